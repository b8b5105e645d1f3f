#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
@testable import KioskTools
@testable import KioskSupport

/// The real kiosk (`run` on SDL's dummy video driver: no display needed, the appearance runner
/// and its preferences watcher run as in production) with a preferences file in its own folder.
/// Other programs' rewrites are seen in stderr ("was changed by another program; following it").
final class LiveKiosk {
    let dir: TempFolder
    let folder: String
    let prefs: String
    let child: ChildProcess
    private var serial = 0

    init(_ dir: TempFolder, tag: String = "live", start: String = #"{"appearance": "light"}"#) throws {
        self.dir = dir
        folder = dir.file("prefs")
        prefs = folder + "/preferences.json"
        precondition(mkdir(folder, 0o700) == 0)
        writeText(start + "\n", to: prefs)
        // No session or system bus: the sources are skipped at once (one line each).
        child = try kioskChild(["run", "--windowed", "--size", "160x100", "--prefs", prefs], in: dir, tag: tag,
                               environment: ["SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy",
                                             "DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/session",
                                             "DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/system"])
    }

    var stderr: String { readText(child.errPath) ?? "" }
    /// How many outside changes the kiosk has followed so far.
    var followed: Int { stderr.components(separatedBy: "was changed by another program; following it").count - 1 }

    /// Writes `text` beside the file and renames it over the file (as fleet tools do).
    func replace(_ text: String) {
        serial += 1
        let tmp = folder + "/.tool-\(serial)"
        writeText(text, to: tmp)
        rename(tmp, prefs)
    }

    /// Renames the entry `name` (made by the caller inside the folder) over the file.
    func renameOver(_ name: String) -> Bool { rename(folder + "/" + name, prefs) == 0 }

    /// Rewrites the file until the kiosk follows a rewrite: the watcher is then live.
    func waitForWatcher() -> Bool {
        var n = 0
        return waitUntil(30) {
            n += 1
            if n % 40 == 1 { replace(#"{"appearance": "\#(n % 80 == 1 ? "dark" : "light")", "probe": \#(n)}"#) }
            return followed > 0
        }
    }

    /// A rewrite made after `count` follows is followed within `timeout` seconds.
    func followsARewrite(after count: Int, timeout: Double = 10) -> Bool {
        replace(#"{"appearance": "dark", "after": \#(count)}"#)
        return waitUntil(timeout) { followed > count }
    }

    /// SIGTERM; the outcome and how long the exit took.
    func terminate(within seconds: Double = 10) -> (ProcessOutcome, Double) {
        let t0 = Date()
        child.kill(SIGTERM)
        let o = child.wait(timeout: seconds)
        return (o, Date().timeIntervalSince(t0))
    }

    /// Bytes the kiosk has read with read(2) and friends so far (/proc/PID/io `rchar`).
    var bytesRead: Int {
        let text = readText("/proc/\(child.pid)/io") ?? ""
        for line in text.split(separator: "\n") where line.hasPrefix("rchar:") {
            return Int(line.dropFirst(6).trimmingCharacters(in: .whitespaces)) ?? -1
        }
        return -1
    }

    deinit { child.kill(SIGKILL); child.wait(timeout: 5) }
}

/// Issue #32 ("Reliability, round three"), items 1, 5, 6, 9 and 10: the preferences file's
/// reader, its folder and the watcher, attacked through the real binary.
@Suite struct PreferencesFolderTests {
    // MARK: 1. A FIFO renamed over the file does not hang the watcher

    @Test(arguments: ["a FIFO in the folder", "a link to a FIFO outside"])
    func fifoRenamedOverTheFileLeavesTheWatcherRunning(_ how: String) throws {
        let dir = TempFolder()
        let k = try LiveKiosk(dir, tag: "fifo")
        #expect(k.waitForWatcher(), "the watcher never followed a rewrite: \(k.stderr)")
        let before = k.followed
        if how.hasPrefix("a FIFO") {
            #expect(mkfifo(k.folder + "/x", 0o600) == 0)
        } else {
            #expect(mkfifo(dir.file("outside.fifo"), 0o600) == 0)
            #expect(symlink(dir.file("outside.fifo"), k.folder + "/x") == 0)
        }
        #expect(k.renameOver("x"))
        // The watcher is still there: the entry is handled as a bad file and a later rewrite
        // is followed.
        #expect(waitUntil(10) { k.stderr.contains(how.hasPrefix("a FIFO") ? "is a FIFO" : "which is a FIFO") }, "\(k.stderr)")
        #expect(k.followsARewrite(after: before + 1), "a rewrite after the FIFO was not followed: \(k.stderr)")
        let (o, took) = k.terminate()
        #expect(o.status == 0 && o.signal == nil, "SIGTERM: status \(o.status.map(String.init) ?? "-") signal \(o.signal ?? 0) after \(took) s")
        #expect(took < 5, "SIGTERM took \(took) s")
        expectCleanStderr(o, how)
        if !how.hasPrefix("a FIFO") {
            var st = stat()
            #expect(lstat(dir.file("outside.fifo"), &st) == 0 && (st.st_mode & S_IFMT) == S_IFIFO, "the FIFO outside is untouched")
        }
    }

    // MARK: 6. The watcher never reads through a link, never more than a preferences file can be

    @Test func linkToAFileOutsideTheFolderIsNeverOpened() throws {
        let dir = TempFolder()
        let k = try LiveKiosk(dir, tag: "outside")
        #expect(k.waitForWatcher(), "\(k.stderr)")
        let secret = dir.file("secret.json")
        writeText(#"{"appearance": "dark", "secret": "do not read"}"# + "\n", to: secret)
        // Every open or read of the target from now on is seen here.
        let ino = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        defer { close(ino) }
        #expect(inotify_add_watch(ino, secret, UInt32(IN_OPEN | IN_ACCESS)) >= 0)
        #expect(symlink(secret, k.folder + "/x") == 0 && k.renameOver("x"))
        #expect(waitUntil(10) { k.stderr.contains("is a symbolic link to \(secret)") }, "\(k.stderr)")
        #expect(k.followsARewrite(after: k.followed), "\(k.stderr)")
        var buf = [UInt8](repeating: 0, count: 4096)
        let n = buf.withUnsafeMutableBytes { read(ino, $0.baseAddress, $0.count) }
        #expect(n <= 0, "the kiosk opened or read \(secret) through the link (\(n) bytes of inotify events)")
        #expect(readText(secret) == #"{"appearance": "dark", "secret": "do not read"}"# + "\n")
        let (o, _) = k.terminate()
        #expect(o.status == 0, "\(o.stderr)")
    }

    @Test(arguments: ["a link to /dev/zero", "a sparse 1 GiB file"])
    func nothingLargerThanAPreferencesFileIsRead(_ how: String) throws {
        let dir = TempFolder()
        let k = try LiveKiosk(dir, tag: "large")
        #expect(k.waitForWatcher(), "\(k.stderr)")
        usleep(300_000)
        let before = k.bytesRead
        #expect(before >= 0, "no /proc/PID/io")
        if how.contains("/dev/zero") {
            #expect(symlink("/dev/zero", k.folder + "/x") == 0)
        } else {
            let fd = open(k.folder + "/x", O_WRONLY | O_CREAT | O_EXCL, 0o600)
            #expect(fd >= 0 && ftruncate(fd, 1 << 30) == 0)
            close(fd)
        }
        #expect(k.renameOver("x"))
        let phrase = how.contains("/dev/zero") ? "is a symbolic link to /dev/zero" : "is too large (1073741824 bytes or more, the limit is 65536)"
        #expect(waitUntil(10) { k.stderr.contains(phrase) }, "\(k.stderr)")
        let read = k.bytesRead - before
        #expect(read < 1 << 20, "the kiosk read \(read) bytes after \(how) was renamed in")
        let (o, _) = k.terminate()
        #expect(o.status == 0, "\(o.stderr)")
    }

    // MARK: 5. The folder replaced while running is watched again

    @Test(arguments: ["removed and made again", "renamed away and replaced"])
    func folderReplacedWhileRunningIsFollowed(_ how: String) throws {
        let dir = TempFolder()
        let k = try LiveKiosk(dir, tag: "folder")
        #expect(k.waitForWatcher(), "\(k.stderr)")
        let before = k.followed
        if how.hasPrefix("removed") {
            try FileManager.default.removeItem(atPath: k.folder)
        } else {
            #expect(rename(k.folder, dir.file("prefs.old")) == 0)
        }
        #expect(mkdir(k.folder, 0o700) == 0)
        #expect(k.followsARewrite(after: before), "a file in the new folder was not followed: \(k.stderr)")
        let notes = k.stderr.split(separator: "\n").filter { $0.contains("preferences watcher: the folder \(k.folder)") }
        #expect(!notes.isEmpty && notes.count <= 2, "said once (removed, then back): \(notes)")
        #expect(notes.last?.contains("watching") == true, "\(notes)")
        // And it stays watched: a second rewrite is followed too.
        #expect(k.followsARewrite(after: k.followed), "\(k.stderr)")
        let (o, _) = k.terminate()
        #expect(o.status == 0, "\(o.stderr)")
        expectCleanStderr(o, how)
    }

    // MARK: 9. A preferences path that names a folder is refused at start

    enum FolderPath: String, CaseIterable, Sendable {
        case flag = "--prefs naming a folder"
        case trailingSlash = "--prefs ending in a slash"
        case config = "config \"preferences\": \"../data\""
    }

    @Test(arguments: FolderPath.allCases, [["run", "--check"], ["run"], ["replay"]])
    func prefsNamingAFolderIsRefusedAtStart(_ path: FolderPath, _ command: [String]) throws {
        let dir = TempFolder()
        #expect(mkdir(dir.file("data"), 0o700) == 0 && mkdir(dir.file("etc"), 0o700) == 0)
        writeText("keep\n", to: dir.file("data/notes.txt"))
        var args = command
        if command == ["replay"] {
            guard path != .config else { return } // replay has no config file
            writeText(threeTaps, to: dir.file("taps.jsonl"))
            args.append(dir.file("taps.jsonl"))
        }
        switch path {
        case .flag: args += ["--prefs", dir.file("data")]
        case .trailingSlash: args += ["--prefs", dir.file("nothing-yet/")]
        case .config:
            writeText(#"{"preferences": "../data"}"#, to: dir.file("etc/kiosk.json"))
            args += ["--config", dir.file("etc/kiosk.json")]
        }
        if command == ["run"] { args += ["--windowed", "--size", "160x100"] }
        let o = try kioskChild(args, in: dir, tag: "folder", environment: ["SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"])
            .wait(timeout: 30)
        ReliabilityTable.record("preferences", "\(command.joined(separator: " ")): \(path.rawValue)", o)
        expectCleanStderr(o, path.rawValue)
        #expect(o.status == 2, "\(command) \(path.rawValue): \(o.stderr)")
        #expect(o.stderrLines.count == 1, "\(o.stderr)")
        let line = o.stderrLines.first ?? ""
        switch path {
        case .flag: #expect(line.contains("--prefs \(dir.file("data")): is a folder"), "\(line)")
        case .trailingSlash: #expect(line.contains("names a folder"), "\(line)")
        case .config: #expect(line.contains("\"preferences\"") && line.contains("is a folder"), "\(line)")
        }
        #expect(line.contains("preferences.json"), "says what to give instead: \(line)")
        #expect(folderEntries(dir.file("data")) == ["notes.txt"] && readText(dir.file("data/notes.txt")) == "keep\n")
        #expect(!folderEntries(dir.path).contains { $0.contains(".bad-") }, "\(folderEntries(dir.path))")
        #expect(!folderEntries(dir.path).contains("nothing-yet"))
    }

    // MARK: 10. The folder swapped for a link while running

    @Test func folderSwappedForALinkIsNotWrittenThrough() throws {
        let dir = TempFolder()
        let trace = dir.file("taps.jsonl")
        writeText(threeTaps, to: trace)
        #expect(mkdir(dir.file("prefs"), 0o700) == 0 && mkdir(dir.file("victim"), 0o700) == 0)
        let victimFile = dir.file("victim/preferences.json")
        let victimText = #"{"appearance": "light", "owner": "victim"}"# + "\n"
        writeText(victimText, to: victimFile)
        let prefs = dir.file("prefs/preferences.json")
        let pipe = try pipeBlockingAfterFirstCommit(trace, in: dir)
        let child = try kioskChild(["replay", trace, "--prefs", prefs], in: dir, tag: "swap", stdoutTo: pipe.childPath)
        // The first commit is saved, then the child blocks printing its line.
        #expect(waitUntil { isRegularFile(prefs) })
        #expect(rename(dir.file("prefs"), dir.file("prefs.old")) == 0)
        #expect(symlink(dir.file("victim"), dir.file("prefs")) == 0)
        var out = ""
        let done = waitUntil(60) { out += pipe.drain(); return out.contains(#""final""#) }
        let o = child.wait(timeout: 30)
        #expect(done, "\(out) \(o.stderr)")
        expectCleanStderr(o, "swapped folder")
        #expect(o.status == 0, "\(o.stderr)")
        #expect(folderEntries(dir.file("victim")) == ["preferences.json"], "\(folderEntries(dir.file("victim")))")
        #expect(readText(victimFile) == victimText, "the link's target was never written")
        #expect(o.stderrLines.count == 1 && o.stderr.contains("was replaced by a symbolic link to \(dir.file("victim"))"), "\(o.stderr)")
        #expect(o.stdout.contains(#""final":{"isDarkMode":true,"commits":3"#) || out.contains(#""final":{"isDarkMode":true,"commits":3"#),
                "the replay ran on in memory: \(out)")
        #expect((try? PreferencesDocument.decode(readBytes(dir.file("prefs.old/preferences.json")) ?? []).get())?.fixedDarkMode == true,
                "the first commit stays where it was saved")
    }

    @Test func folderReplacedByARealFolderIsSavedIntoTheNewOne() throws {
        let dir = TempFolder()
        let trace = dir.file("taps.jsonl")
        writeText(threeTaps, to: trace)
        #expect(mkdir(dir.file("prefs"), 0o700) == 0)
        let prefs = dir.file("prefs/preferences.json")
        let pipe = try pipeBlockingAfterFirstCommit(trace, in: dir)
        let child = try kioskChild(["replay", trace, "--prefs", prefs], in: dir, tag: "real", stdoutTo: pipe.childPath)
        #expect(waitUntil { isRegularFile(prefs) })
        #expect(rename(dir.file("prefs"), dir.file("prefs.old")) == 0 && mkdir(dir.file("prefs"), 0o700) == 0)
        var out = ""
        #expect(waitUntil(60) { out += pipe.drain(); return out.contains(#""final""#) }, "\(out)")
        let o = child.wait(timeout: 30)
        #expect(o.status == 0 && o.stderr.isEmpty, "\(o.stderr)")
        #expect((try? PreferencesDocument.decode(readBytes(prefs) ?? []).get())?.fixedDarkMode == true, "saved into the new folder")
    }
}
