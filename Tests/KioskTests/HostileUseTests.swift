#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
@testable import KioskTools
@testable import KioskSupport

/// A pipe the test holds, pre-filled so that the child's stdout writes block once `room`
/// bytes are written: with `room` = the length of the replay's first (layout) line, the replay
/// prints that line, saves its first commit, then blocks printing the commit line until the
/// test drains the pipe. That gives the test a deterministic moment "while the kiosk runs".
/// (Linux pipes hold 16 pages; a write of at most PIPE_BUF bytes is atomic, so it waits
/// until it fits whole.)
final class BlockingPipe {
    let readEnd: Int32
    let writeEnd: Int32

    init(room: Int) {
        var fds: [Int32] = [0, 0]
        precondition(pipe(&fds) == 0)
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        (readEnd, writeEnd) = (fds[0], fds[1])
        let flags = fcntl(writeEnd, F_GETFL)
        _ = fcntl(writeEnd, F_SETFL, flags | O_NONBLOCK)
        let chunk = [UInt8](repeating: 0x23, count: 4096)
        for _ in 0..<15 { _ = chunk.withUnsafeBytes { write(writeEnd, $0.baseAddress, $0.count) } }
        _ = chunk.withUnsafeBytes { write(writeEnd, $0.baseAddress, $0.count - room) }
        _ = fcntl(writeEnd, F_SETFL, flags)
    }

    /// A path the child opens as its stdout (the spawn file actions run before exec, while the
    /// close-on-exec descriptor is still open).
    var childPath: String { "/proc/self/fd/\(writeEnd)" }

    /// Reads everything available now (non-blocking), returning the non-filler text.
    func drain() -> String {
        let flags = fcntl(readEnd, F_GETFL)
        _ = fcntl(readEnd, F_SETFL, flags | O_NONBLOCK)
        var out: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buf.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            out += buf[0..<n]
        }
        return String(decoding: out.filter { $0 != 0x23 }, as: UTF8.self)
    }

    deinit { close(readEnd); close(writeEnd) }
}

/// Waits until `condition` holds (polling), up to `timeout` seconds.
@discardableResult
func waitUntil(_ timeout: Double = 20, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        usleep(5000)
    }
    return condition()
}

func kioskChild(_ args: [String], in dir: TempFolder, tag: String, stdoutTo: String? = nil, closed: Set<Int32> = [],
                environment: [String: String] = [:]) throws -> ChildProcess {
    guard let exe = KioskExecutable.path else { throw ChildProcess.SpawnError(message: KioskExecutable.missingMessage) }
    return try ChildProcess(exe, args, folder: dir.path, tag: tag, environment: environment, stdoutTo: stdoutTo, closed: closed)
}

/// The length (with its newline) of the first stdout line of the replay of `trace`.
func layoutLineLength(_ trace: String, in dir: TempFolder) throws -> Int {
    let o = try runKiosk(["replay", trace], in: dir, tag: "probe")
    let first = o.stdout.split(separator: "\n").first ?? ""
    precondition(first.contains("layout"), "unexpected first line: \(first)")
    return first.utf8.count + 1
}

/// A pipe on which the replay of `trace` blocks right after its first commit was saved.
func pipeBlockingAfterFirstCommit(_ trace: String, in dir: TempFolder) throws -> BlockingPipe {
    BlockingPipe(room: try layoutLineLength(trace, in: dir))
}

func runKiosk(_ arguments: [String], in folder: TempFolder, tag: String = "kiosk", stdoutTo: String) throws -> ProcessOutcome {
    try kioskChild(arguments, in: folder, tag: tag, stdoutTo: stdoutTo).wait(timeout: 60)
}

/// Issue "reliability, round two": what a hostile or careless user found, each case through
/// the real binary.
@Suite struct HostileUseTests {
    // MARK: 1. Output files never replace what is not a regular file

    @Test func renderIntoALinkToDevNullLeavesTheLinkAndTheDevice() throws {
        let dir = TempFolder()
        let out = dir.file("null.png")
        #expect(symlink("/dev/null", out) == 0)
        let o = try runKiosk(["render", "--out", out, "--width", "40"], in: dir)
        ReliabilityTable.record("output", "render --out: a link to /dev/null", o)
        #expect(o.status == 0, "\(o.stderr)")
        #expect(isSymlink(out))
        var st = stat()
        #expect(stat("/dev/null", &st) == 0 && (st.st_mode & S_IFMT) == S_IFCHR)
        #expect(folderEntries(dir.path).allSatisfy { !$0.contains(".tmp") }, "\(folderEntries(dir.path))")
    }

    @Test func renderIntoDevFullIsAFailureAndTheLinkStays() throws {
        let dir = TempFolder()
        let out = dir.file("full.png")
        #expect(symlink("/dev/full", out) == 0)
        let o = try runKiosk(["render", "--out", out, "--width", "40"], in: dir)
        ReliabilityTable.record("output", "render --out: a link to /dev/full", o)
        expectCleanStderr(o, "dev/full")
        #expect(o.status == 1)
        #expect(o.stderr.contains(out) && o.stderr.contains("No space left on device"), "\(o.stderr)")
        #expect(isSymlink(out))
    }

    @Test func renderIntoAFifoStreamsToItsReader() throws {
        let dir = TempFolder()
        let out = dir.file("pipe.png")
        #expect(mkfifo(out, 0o600) == 0)
        let reader = open(out, O_RDONLY | O_NONBLOCK)
        #expect(reader >= 0)
        defer { close(reader) }
        let child = try kioskChild(["render", "--out", out, "--width", "40"], in: dir, tag: "fifo")
        var got: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 65536)
        var o: ProcessOutcome?
        waitUntil(30) {
            while true {
                let n = buf.withUnsafeMutableBytes { read(reader, $0.baseAddress, $0.count) }
                if n <= 0 { break }
                got += buf[0..<n]
            }
            var status: Int32 = 0
            if o == nil, waitpid(child.pid, &status, WNOHANG) == child.pid {
                o = ProcessOutcome(status: (status >> 8) & 0xFF, signal: status & 0x7F == 0 ? nil : status & 0x7F,
                                   stdout: "", stderr: readText(child.errPath) ?? "")
            }
            return o != nil && got.count > 8
        }
        #expect(o?.status == 0, "\(o?.stderr ?? "still running")")
        #expect(Array(got.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "a PNG arrived through the FIFO")
        var st = stat()
        #expect(lstat(out, &st) == 0 && (st.st_mode & S_IFMT) == S_IFIFO, "the FIFO is still a FIFO")
    }

    @Test func benchJsonIntoAFifoNobodyReadsFailsAtOnce() throws {
        let dir = TempFolder()
        let out = dir.file("bench.json")
        #expect(mkfifo(out, 0o600) == 0)
        let o = try runKiosk(["bench", "--scenario", "idle", "--frames", "2", "--size", "64x64", "--json", out], in: dir)
        ReliabilityTable.record("output", "bench --json: a FIFO nobody reads", o)
        expectCleanStderr(o, "fifo")
        #expect(o.status == 1)
        #expect(o.stderr.contains("nothing is reading it"), "\(o.stderr)")
        var st = stat()
        #expect(lstat(out, &st) == 0 && (st.st_mode & S_IFMT) == S_IFIFO)
    }

    @Test func benchJsonThroughALinkToARegularFileIsRefusedAndNothingChanges() throws {
        let dir = TempFolder()
        writeText("keep me\n", to: dir.file("victim.txt"))
        let out = dir.file("bench.json")
        #expect(symlink("victim.txt", out) == 0)
        let o = try runKiosk(["bench", "--scenario", "idle", "--frames", "2", "--size", "64x64", "--json", out], in: dir)
        ReliabilityTable.record("output", "bench --json: a link to a regular file", o)
        expectCleanStderr(o, "link")
        #expect(o.status == 1)
        #expect(o.stderr.contains("symbolic link to a regular file"), "\(o.stderr)")
        #expect(isSymlink(out))
        #expect(readText(dir.file("victim.txt")) == "keep me\n")
    }

    @Test func benchJsonReplacesARegularFileAtomically() throws {
        let dir = TempFolder()
        let out = dir.file("bench.json")
        writeText("old\n", to: out)
        let o = try runKiosk(["bench", "--scenario", "idle", "--frames", "2", "--size", "64x64", "--json", out], in: dir)
        #expect(o.status == 0, "\(o.stderr)")
        let text = readText(out) ?? ""
        #expect((try? StrictJSONParser.parse(Array(text.utf8))) != nil, "\(text)")
        #expect(folderEntries(dir.path).sorted() == ["bench.json", "kiosk.err", "kiosk.out"], "\(folderEntries(dir.path))")
    }

    // MARK: 2. The preferences path never reaches outside its folder

    @Test func linkAtStartToANonJSONFileMovesTheLinkNotItsTarget() throws {
        let dir = TempFolder()
        let trace = dir.file("taps.jsonl")
        writeText(threeTaps, to: trace)
        #expect(mkdir(dir.file("outside"), 0o700) == 0 && mkdir(dir.file("prefs"), 0o700) == 0)
        let victim = dir.file("outside/notes.txt")
        writeText("not JSON, somebody's notes\n", to: victim)
        let prefs = dir.file("prefs/preferences.json")
        #expect(symlink(victim, prefs) == 0)
        let o = try runKiosk(["replay", trace, "--prefs", prefs], in: dir)
        ReliabilityTable.record("preferences", "a symlink to a non-JSON file outside the folder", o)
        expectCleanStderr(o, "link at start")
        #expect(o.status == 0)
        #expect(o.stderrLines.count == 1 && o.stderr.contains("is a symbolic link to"), "\(o.stderr)")
        #expect(folderEntries(dir.file("outside")) == ["notes.txt"], "the target was not renamed")
        #expect(readText(victim) == "not JSON, somebody's notes\n")
        let kept = folderEntries(dir.file("prefs")).filter { $0.hasPrefix("preferences.json.bad-") }
        #expect(kept.count == 1 && isSymlink(dir.file("prefs/" + (kept.first ?? "?"))), "the link itself was kept aside")
        #expect(isRegularFile(prefs))
        #expect((try? PreferencesDocument.decode(readBytes(prefs) ?? []).get())?.fixedDarkMode == true)
    }

    @Test func linkToAValidFileIsNotFollowedEither() throws {
        let dir = TempFolder()
        let trace = dir.file("taps.jsonl")
        writeText(threeTaps, to: trace)
        let victim = dir.file("elsewhere.json")
        writeText(#"{"isDarkMode": false, "owner": "someone else"}"# + "\n", to: victim)
        #expect(mkdir(dir.file("prefs"), 0o700) == 0)
        let prefs = dir.file("prefs/preferences.json")
        #expect(symlink(victim, prefs) == 0)
        let o = try runKiosk(["replay", trace, "--prefs", prefs], in: dir)
        #expect(o.status == 0)
        #expect(readText(victim) == #"{"isDarkMode": false, "owner": "someone else"}"# + "\n")
        #expect(isRegularFile(prefs))
    }

    @Test func linkPlantedWhileRunningIsMovedAsideAndItsTargetUntouched() throws {
        let dir = TempFolder()
        let trace = dir.file("taps.jsonl")
        writeText(threeTaps, to: trace)
        let victim = dir.file("victim.conf")
        writeText("precious\n", to: victim)
        #expect(mkdir(dir.file("prefs"), 0o700) == 0)
        let prefs = dir.file("prefs/preferences.json")
        let pipe = try pipeBlockingAfterFirstCommit(trace, in: dir)
        let child = try kioskChild(["replay", trace, "--prefs", prefs], in: dir, tag: "planted", stdoutTo: pipe.childPath)
        // The first commit is saved, then the child blocks printing its line.
        #expect(waitUntil { isRegularFile(prefs) })
        #expect(unlink(prefs) == 0 && symlink(victim, prefs) == 0)
        var out = ""
        let done = waitUntil(60) {
            out += pipe.drain()
            return out.contains(#""final""#)
        }
        let o = child.wait(timeout: 30)
        #expect(done, "\(out) \(o.stderr)")
        expectCleanStderr(o, "planted")
        #expect(o.status == 0, "\(o.stderr)")
        #expect(readText(victim) == "precious\n", "the link's target was never written")
        #expect(isRegularFile(prefs))
        let kept = folderEntries(dir.file("prefs")).filter { $0.hasPrefix("preferences.json.bad-") }
        #expect(kept.count == 1 && isSymlink(dir.file("prefs/" + (kept.first ?? "?"))), "\(folderEntries(dir.file("prefs")))")
        #expect(o.stderr.contains("changed while the kiosk ran"), "\(o.stderr)")
    }

    // MARK: 3. Edits made while the kiosk runs are kept

    @Test func keysAddedWhileRunningSurviveTheNextSave() throws {
        let dir = TempFolder()
        let trace = dir.file("taps.jsonl")
        writeText(threeTaps, to: trace)
        let prefs = dir.file("preferences.json")
        writeText(#"{"isDarkMode": false, "atStart": 1}"#, to: prefs)
        let pipe = try pipeBlockingAfterFirstCommit(trace, in: dir)
        let child = try kioskChild(["replay", trace, "--prefs", prefs], in: dir, tag: "merge", stdoutTo: pipe.childPath)
        #expect(waitUntil { readText(prefs)?.contains(#""dark""#) == true })
        // Another program rewrites the file: drops a key, adds two.
        writeText(#"{"isDarkMode": true, "addedLater": [1, 2.50], "fleet": {"id": "k-7"}}"#, to: prefs)
        var out = ""
        #expect(waitUntil(60) { out += pipe.drain(); return out.contains(#""final""#) }, "\(out)")
        let o = child.wait(timeout: 30)
        expectCleanStderr(o, "merge")
        #expect(o.status == 0 && o.stderr.isEmpty, "\(o.stderr)")
        let object = try #require(try? PreferencesDocument.decode(readBytes(prefs) ?? []).get()).object
        #expect(object["appearance"] == .string("dark"), "the kiosk's key wins (3 commits from light)")
        #expect(object["fleet"] != nil && object["addedLater"] != nil, "\(readText(prefs) ?? "")")
        #expect(readText(prefs)?.contains("2.50") == true, "numbers kept as written")
        #expect(object["atStart"] == nil, "keys as found now, not as read at start")
    }

    @Test func brokenFileWrittenWhileRunningIsKeptAside() throws {
        let dir = TempFolder()
        let trace = dir.file("taps.jsonl")
        writeText(threeTaps, to: trace)
        let prefs = dir.file("preferences.json")
        let pipe = try pipeBlockingAfterFirstCommit(trace, in: dir)
        let child = try kioskChild(["replay", trace, "--prefs", prefs], in: dir, tag: "broken", stdoutTo: pipe.childPath)
        #expect(waitUntil { isRegularFile(prefs) })
        writeText("{\"isDarkMode\": tr", to: prefs)
        var out = ""
        #expect(waitUntil(60) { out += pipe.drain(); return out.contains(#""final""#) })
        let o = child.wait(timeout: 30)
        #expect(o.status == 0)
        #expect(o.stderrLines.count == 1 && o.stderr.contains("is not valid JSON"), "\(o.stderr)")
        let kept = folderEntries(dir.path).filter { $0.hasPrefix("preferences.json.bad-") }
        #expect(kept.count == 1)
        #expect(readText(dir.file(kept.first ?? "?")) == "{\"isDarkMode\": tr")
        #expect((try? PreferencesDocument.decode(readBytes(prefs) ?? []).get())?.fixedDarkMode == true)
    }

    // MARK: 4. Closed standard descriptors

    @Test func closedStandardDescriptorsBecomeDevNull() throws {
        let dir = TempFolder()
        let trace = dir.file("taps.jsonl")
        writeText(threeTaps, to: trace)
        let pipe = try pipeBlockingAfterFirstCommit(trace, in: dir)
        // stdin and stderr closed; stdout a full pipe so the child waits while we look at it.
        let child = try kioskChild(["replay", trace, "--prefs", dir.file("p.json")], in: dir, tag: "closed",
                                   stdoutTo: pipe.childPath, closed: [0, 2])
        func target(_ fd: Int) -> String? {
            var buf = [CChar](repeating: 0, count: 4097)
            let n = readlink("/proc/\(child.pid)/fd/\(fd)", &buf, 4096)
            return n > 0 ? String(decoding: buf[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) : nil
        }
        let blocked = waitUntil { isRegularFile(dir.file("p.json")) }
        let fd0 = target(0), fd2 = target(2)
        var out = ""
        _ = waitUntil(60) { out += pipe.drain(); return out.contains(#""final""#) }
        let o = child.wait(timeout: 30)
        #expect(blocked)
        #expect(fd0 == "/dev/null" && fd2 == "/dev/null", "fd 0 → \(fd0 ?? "closed"), fd 2 → \(fd2 ?? "closed")")
        #expect(o.status == 0)
    }

    @Test func stdoutAndStderrClosedStillRunsAndSaves() throws {
        let dir = TempFolder()
        let trace = dir.file("taps.jsonl")
        writeText(threeTaps, to: trace)
        let o = try kioskChild(["replay", trace, "--prefs", dir.file("p.json")], in: dir, tag: "closed12", closed: [1, 2]).wait(timeout: 60)
        #expect(o.status == 0)
        #expect((try? PreferencesDocument.decode(readBytes(dir.file("p.json")) ?? []).get())?.fixedDarkMode == true)
    }

    // MARK: 5. Failed output is an error

    @Test(arguments: [["--help"], ["run", "--check"], ["replay", "TRACE"],
                      ["bench", "--scenario", "idle", "--frames", "2", "--size", "64x64"], ["--version"]])
    func outputToDevFullExitsOne(_ args: [String]) throws {
        let dir = TempFolder()
        let trace = dir.file("taps.jsonl")
        writeText(threeTaps, to: trace)
        let a = args.map { $0 == "TRACE" ? trace : $0 }
        let o = try runKiosk(a, in: dir, stdoutTo: "/dev/full")
        ReliabilityTable.record("output", "`darkmode-kiosk \(args.joined(separator: " ")) > /dev/full`", o)
        expectCleanStderr(o, "\(args)")
        #expect(o.status == 1, "\(args): \(o.stderr)")
        #expect(o.stderr.contains("could not write to standard output: No space left on device"), "\(o.stderr)")
    }

    @Test func closedPipeIsAnErrorNotASilentDeath() throws {
        let dir = TempFolder()
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        close(fds[0])  // nobody will ever read
        defer { close(fds[1]) }
        let o = try runKiosk(["--help"], in: dir, stdoutTo: "/proc/self/fd/\(fds[1])")
        #expect(o.signal == nil, "killed by SIGPIPE")
        #expect(o.status == 1)
        #expect(o.stderr.contains("Broken pipe"), "\(o.stderr)")
    }

    // MARK: 8. Messages and signals

    @Test func sigquitEndsAReplayCleanly() throws {
        let dir = TempFolder()
        let trace = dir.file("taps.jsonl")
        writeText(threeTaps, to: trace)
        let pipe = try pipeBlockingAfterFirstCommit(trace, in: dir)
        let child = try kioskChild(["replay", trace, "--prefs", dir.file("p.json")], in: dir, tag: "quit", stdoutTo: pipe.childPath)
        #expect(waitUntil { isRegularFile(dir.file("p.json")) })
        child.kill(SIGQUIT)
        let o = child.wait(timeout: 10)
        #expect(!looksLikeCrash(o.stderr) && !o.stderr.contains("crashed"), "\(o.stderr)")
        #expect(o.signal == SIGTERM, "ends as SIGTERM would, found status \(o.status.map(String.init) ?? "-") signal \(o.signal ?? 0)")
    }

    @Test func sigquitQuitsTheSDLHostLikeSigterm() throws {
        let dir = TempFolder()
        let child = try kioskChild(["run", "--windowed", "--size", "160x100", "--prefs", dir.file("p.json")], in: dir, tag: "sdl",
                                   environment: ["SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"])
        usleep(1_500_000)
        child.kill(SIGQUIT)
        let o = child.wait(timeout: 10)
        #expect(!looksLikeCrash(o.stderr) && !o.stderr.contains("crashed"), "\(o.stderr)")
        #expect(o.status == 0 && o.signal == nil, "status \(o.status.map(String.init) ?? "-") signal \(o.signal ?? 0): \(o.stderr)")
    }

    @Test(arguments: [("None", "unexpected 'None'"), ("No", "unexpected 'No'"), ("I am", "unexpected 'I'"),
                      ("Infinity", "NaN and Infinity are not JSON numbers"), ("NaN", "NaN and Infinity are not JSON numbers")])
    func jsonTokensStartingWithNOrISayWhatWasFound(_ token: String, _ phrase: String) throws {
        let dir = TempFolder()
        let config = dir.file("kiosk.json")
        writeText("{\"display\": {\"scale\": \(token)}}", to: config)
        let o = try runKiosk(["run", "--check", "--config", config], in: dir)
        ReliabilityTable.record("config", "a bare word \(token)", o)
        expectCleanStderr(o, token)
        #expect(o.status == 2)
        #expect(o.stderr.contains(phrase) && o.stderr.contains("column 23"), "\(o.stderr)")
        if !token.hasPrefix("NaN") && !token.hasPrefix("Inf") { #expect(!o.stderr.contains("NaN and Infinity"), "\(o.stderr)") }
    }

    @Test(arguments: ["0", "128", "254.9"])
    func nonOpaquePageColourIsRefused(_ alpha: String) throws {
        let dir = TempFolder()
        let config = dir.file("kiosk.json")
        writeText("{\"theme\": {\"dark\": {\"page\": [255, 0, 0, \(alpha)]}}}", to: config)
        let o = try runKiosk(["run", "--check", "--config", config], in: dir)
        ReliabilityTable.record("config", "page colour alpha \(alpha)", o)
        expectCleanStderr(o, alpha)
        #expect(o.status == 2)
        #expect(o.stderr.contains("theme.dark.page[3]") && o.stderr.contains("opaque"), "\(o.stderr)")
    }

    @Test func opaqueAlphaIsStillAccepted() throws {
        let dir = TempFolder()
        let config = dir.file("kiosk.json")
        writeText("{\"theme\": {\"dark\": {\"page\": [255, 0, 0, 255]}}}", to: config)
        let o = try runKiosk(["run", "--check", "--config", config], in: dir)
        #expect(o.status == 0, "\(o.stderr)")
    }

    @Test func overlongPreferencesPathCreatesNoFolders() throws {
        let dir = TempFolder()
        let trace = dir.file("taps.jsonl")
        writeText(threeTaps, to: trace)
        let deep = (0..<50).map { _ in String(repeating: "d", count: 100) }.joined(separator: "/")
        let prefs = dir.file(deep + "/preferences.json")
        let o = try runKiosk(["replay", trace, "--prefs", prefs], in: dir)
        ReliabilityTable.record("preferences", "a 5000-byte path", o)
        expectCleanStderr(o, "long path")
        #expect(o.status == 0)
        #expect(o.stdout.contains(#""final":{"isDarkMode":true,"commits":3"#))
        #expect(o.stderr.contains("the path is") && o.stderr.contains("bytes long"), "\(o.stderr)")
        #expect(folderEntries(dir.path).sorted() == ["kiosk.err", "kiosk.out", "taps.jsonl"], "\(folderEntries(dir.path))")
    }

    @Test func overlongNameCreatesNoFolders() throws {
        let dir = TempFolder()
        let trace = dir.file("taps.jsonl")
        writeText(threeTaps, to: trace)
        let prefs = dir.file("a/b/" + String(repeating: "n", count: 300) + "/preferences.json")
        let o = try runKiosk(["replay", trace, "--prefs", prefs], in: dir)
        #expect(o.status == 0)
        #expect(o.stderr.contains("bytes long, the limit is 255"), "\(o.stderr)")
        #expect(!folderEntries(dir.path).contains("a"))
    }

    // MARK: 7 (bounds). Config values and render sizes

    @Test func hugeToggleWidthIsRefused() throws {
        let dir = TempFolder()
        let config = dir.file("kiosk.json")
        writeText(#"{"toggle": {"width": 4096}}"#, to: config)
        let o = try runKiosk(["run", "--check", "--config", config], in: dir)
        ReliabilityTable.record("config", "toggle width 4096", o)
        expectCleanStderr(o, "width")
        #expect(o.status == 2)
        #expect(o.stderr.contains("toggle.width") && o.stderr.contains("found 4096"), "\(o.stderr)")
    }

    @Test(arguments: [["--width", "16384"], ["--page", "16384x16384"], ["--page", "8000x4000"], ["--width", "6000"]])
    func renderBeyondThePixelLimitIsRefusedBeforeAllocating(_ flags: [String]) throws {
        let dir = TempFolder()
        let out = dir.file("big.png")
        let start = Date()
        let o = try runKiosk(["render", "--out", out] + flags, in: dir, timeout: 20)
        ReliabilityTable.record("flags", "`darkmode-kiosk render --out x.png \(flags.joined(separator: " "))`", o)
        expectCleanStderr(o, "\(flags)")
        #expect(o.status == 2, "\(flags): \(o.stderr)")
        #expect(o.stderr.contains("pixels") && o.stderr.contains("limit"), "\(o.stderr)")
        #expect(Date().timeIntervalSince(start) < 15)
        #expect(!isRegularFile(out))
    }

    @Test func renderAtThePixelLimitStillWorks() throws {
        let dir = TempFolder()
        let out = dir.file("ok.png")
        let o = try runKiosk(["render", "--out", out, "--page", "4096x4096", "--width", "200"], in: dir, timeout: 120)
        #expect(o.status == 0, "\(o.stderr)")
        #expect(isRegularFile(out))
    }
}
