import Testing
import Glibc
@testable import KioskHost

/// The KMS/DRM device rules: the one-line error when the display cannot be opened, and the
/// groups line of `run --check` (the machine side is exercised in the VM test,
/// Tests/e2e/kmsdrm-vm.sh).
@Suite struct DeviceAccessTests {
    static func probe(_ group: String, path: String? = "/dev/x0", error: Int32? = nil, member: Bool = true,
                      exists: Bool = true) -> DeviceAccess.Probe {
        DeviceAccess.Probe(group: group, purpose: "p", pattern: "/dev/x*", path: path, openError: error,
                           member: member, groupExists: exists)
    }

    @Test func aCardThatOpensIsNoProblem() {
        #expect(DeviceAccess.drmProblem(card: Self.probe("video", path: "/dev/dri/card0")) == nil)
    }

    @Test func noCardIsOneLineSayingSo() throws {
        let line = try #require(DeviceAccess.drmProblem(card: Self.probe("video", path: nil)))
        #expect(line.hasPrefix("no DRM device: /dev/dri has no card*"))
        #expect(!line.contains("\n"))
    }

    @Test func noPermissionNamesTheFileAndTheGroup() throws {
        for error in [EACCES, EPERM] {
            let line = try #require(DeviceAccess.drmProblem(card: Self.probe("video", path: "/dev/dri/card1", error: error)))
            #expect(line.hasPrefix("no permission to open /dev/dri/card1 for KMS/DRM: add the user to the video group"))
            #expect(!line.contains("\n"))
        }
        let busy = try #require(DeviceAccess.drmProblem(card: Self.probe("video", path: "/dev/dri/card0", error: EBUSY)))
        #expect(busy == "cannot open /dev/dri/card0 for KMS/DRM: \(String(cString: strerror(EBUSY)))")
    }

    @Test func theCheckLineSaysWhichGroupsAreMissingAndHowToAddThem() {
        let probes = [Self.probe("video", path: "/dev/dri/card0"),
                      Self.probe("render", path: nil, member: false),
                      Self.probe("input", path: "/dev/input/event0", error: EACCES, member: false)]
        let line = DeviceAccess.checkLine(probes, root: false, user: "kiosk")
        #expect(line.hasPrefix("device groups for KMS/DRM: video (p): yes, /dev/dri/card0 opens; render (p): no, no /dev/x* here; input (p): no, /dev/input/event0 permission denied"))
        // No render node here: render is not needed; input is.
        #expect(line.hasSuffix("; add them with `sudo usermod -aG input kiosk` and log in again"))
        #expect(!line.contains("\n"))
    }

    @Test func rootHasEveryGroupAndAGroupThatDoesNotExistIsSaid() {
        let probes = [Self.probe("video", member: false), Self.probe("render", member: false, exists: false)]
        #expect(DeviceAccess.checkLine(probes, root: true, user: "root")
                == "device groups for KMS/DRM: video (p): yes (root), /dev/x0 opens; render (p): yes (root), /dev/x0 opens")
        let line = DeviceAccess.checkLine(probes, root: false, user: "u")
        #expect(line.contains("render (p): no such group here"))
        #expect(line.hasSuffix("`sudo usermod -aG video u` and log in again"))
    }

    @Test func firstDeviceTakesTheLowestNumber() throws {
        let dir = "/tmp/dmk-devices-\(getpid())"
        mkdir(dir, 0o700)
        defer { for n in ["card10", "card2", "cardX", "renderD128"] { unlink("\(dir)/\(n)") }; rmdir(dir) }
        for n in ["card10", "card2", "cardX", "renderD128"] { close(open("\(dir)/\(n)", O_CREAT | O_WRONLY, 0o600)) }
        #expect(DeviceAccess.firstDevice(dir: dir, prefix: "card") == "\(dir)/card2")
        #expect(DeviceAccess.firstDevice(dir: dir, prefix: "renderD") == "\(dir)/renderD128")
        #expect(DeviceAccess.firstDevice(dir: dir, prefix: "event") == nil)
        #expect(DeviceAccess.firstDevice(dir: "/nonexistent", prefix: "card") == nil)
    }

    @Test func theConsoleWarningIsOneLineOnlyForAFailure() {
        #expect(VirtualConsole.warning(.graphics(path: "/dev/tty0")) == nil)
        #expect(VirtualConsole.warning(.noConsole) == nil)
        let line = VirtualConsole.warning(.failed(reason: "KDSETMODE on /dev/tty0: Operation not permitted"))
        #expect(line?.hasPrefix("the console stays in text mode (KDSETMODE on /dev/tty0: Operation not permitted)") == true)
        #expect(line?.contains("\n") == false)
    }
}
