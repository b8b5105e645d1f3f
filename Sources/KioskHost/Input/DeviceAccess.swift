#if canImport(Glibc)
import Glibc
#endif

/// The device files a kiosk on KMS/DRM opens, and the groups that open them: `video` for the
/// display (/dev/dri/card*), `render` for GPU rendering (/dev/dri/renderD*, where a GPU has a
/// render node), `input` for touch screens and pointers (/dev/input/event*). Two uses: the
/// one-line error when `SDL_VIDEODRIVER=kmsdrm` finds no DRM device or may not open one
/// (`drmProblem`), and the line `run --check` prints (`checkLine`). The rules are pure
/// (`Probe` values in, text out); `probe()` reads this machine.
public enum DeviceAccess {
    /// One kind of device file as found here.
    public struct Probe: Equatable, Sendable {
        public var group: String          // the group that is meant to open it
        public var purpose: String        // what it is for, in a few words
        public var pattern: String        // e.g. "/dev/dri/card*"
        public var path: String?          // the first such file here, nil when there is none
        public var openError: Int32?      // errno of open(O_RDWR) (nil: it opened)
        public var member: Bool           // the process is in `group` (primary or supplementary)
        public var groupExists: Bool
        public init(group: String, purpose: String, pattern: String, path: String?, openError: Int32?,
                    member: Bool, groupExists: Bool) {
            (self.group, self.purpose, self.pattern, self.path, self.openError, self.member, self.groupExists)
                = (group, purpose, pattern, path, openError, member, groupExists)
        }
    }

    // MARK: pure rules

    /// The one line to print when the display cannot be opened on KMS/DRM, or nil when it can
    /// (a card opens). `card` is the video probe; `root` whether the process runs as root.
    public static func drmProblem(card: Probe) -> String? {
        guard let path = card.path else {
            return "no DRM device: /dev/dri has no card* (is the display's kernel driver loaded?);"
                + " SDL_VIDEODRIVER=kmsdrm needs one"
        }
        guard let error = card.openError else { return nil }
        if error == EACCES || error == EPERM {
            return "no permission to open \(path) for KMS/DRM: add the user to the video group"
                + " (`sudo usermod -aG video USER`, then log in again; in a systemd unit: SupplementaryGroups=video)"
        }
        return "cannot open \(path) for KMS/DRM: \(String(cString: strerror(error)))"
    }

    /// `run --check`'s line: for each group, whether the process has it and what that opens,
    /// and the command that adds the missing ones.
    public static func checkLine(_ probes: [Probe], root: Bool, user: String) -> String {
        var parts: [String] = []
        var missing: [String] = []
        for p in probes {
            let has = root || p.member
            var words = "\(p.group) (\(p.purpose)): "
            if root { words += "yes (root)" } else if !p.groupExists { words += "no such group here" } else { words += has ? "yes" : "no" }
            if let path = p.path {
                words += ", \(path) " + (p.openError == nil ? "opens" : String(cString: strerror(p.openError!)).lowercased())
            } else {
                words += ", no \(p.pattern) here"
            }
            parts.append(words)
            if !has && p.groupExists && (p.path != nil || p.group != "render") { missing.append(p.group) }
        }
        var line = "device groups for KMS/DRM: " + parts.joined(separator: "; ")
        if !missing.isEmpty {
            line += "; add them with `sudo usermod -aG \(missing.joined(separator: ",")) \(user)` and log in again"
        }
        return line
    }

    // MARK: this machine

    /// The three probes (video, render, input) for this process.
    public static func probe() -> [Probe] {
        let groups = processGroups()
        func one(_ group: String, _ purpose: String, dir: String, prefix: String) -> Probe {
            let path = firstDevice(dir: dir, prefix: prefix)
            var openError: Int32?
            if let path {
                let fd = open(path, O_RDWR | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
                if fd >= 0 { close(fd) } else { openError = errno }
            }
            let gid = getgrnam(group)?.pointee.gr_gid
            return Probe(group: group, purpose: purpose, pattern: "\(dir)/\(prefix)*", path: path, openError: openError,
                         member: gid.map { groups.contains($0) } ?? false, groupExists: gid != nil)
        }
        return [one("video", "the display", dir: "/dev/dri", prefix: "card"),
                one("render", "GPU rendering", dir: "/dev/dri", prefix: "renderD"),
                one("input", "touch and pointers", dir: "/dev/input", prefix: "event")]
    }

    /// The probe of /dev/dri/card* alone.
    public static func probeCard() -> Probe { probe()[0] }

    /// The user's name (for the usermod hint), or "USER".
    public static func userName() -> String {
        if let pw = getpwuid(geteuid()), let name = pw.pointee.pw_name { return String(cString: name) }
        return "USER"
    }

    static func processGroups() -> Set<gid_t> {
        var list = [gid_t](repeating: 0, count: 256)
        let n = getgroups(Int32(list.count), &list)
        return Set(list.prefix(max(0, Int(n)))).union([getegid()])
    }

    /// The lowest-numbered /dev entry named prefix+digits (card0 before card1).
    static func firstDevice(dir: String, prefix: String) -> String? {
        guard let d = opendir(dir) else { return nil }
        defer { closedir(d) }
        var best: (Int, String)?
        while let entry = readdir(d) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            guard name.hasPrefix(prefix), let n = Int(name.dropFirst(prefix.count)) else { continue }
            if best == nil || n < best!.0 { best = (n, name) }
        }
        return best.map { "\(dir)/\($0.1)" }
    }
}
