#if canImport(Glibc)
import Glibc
#endif
import Foundation
@testable import KioskTools
@testable import KioskEngine
@testable import KioskSupport

/// Runs the real `darkmode-kiosk` executable (the debug build `swift test` builds next to the
/// test bundle) and other child processes, with stdout/stderr captured to files.
enum KioskExecutable {
    /// The folder of the running test executable (`.build/<triple>/debug`).
    static var buildFolder: String {
        var buf = [CChar](repeating: 0, count: 4097)
        let n = readlink("/proc/self/exe", &buf, 4096)
        let exe = n > 0 ? String(decoding: buf[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) : CommandLine.arguments[0]
        return FileIO.directoryName(exe)
    }

    /// The path of the test executable itself.
    static var testExecutable: String {
        var buf = [CChar](repeating: 0, count: 4097)
        let n = readlink("/proc/self/exe", &buf, 4096)
        return n > 0 ? String(decoding: buf[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) : CommandLine.arguments[0]
    }

    /// `$DARKMODE_KIOSK_BIN`, else `darkmode-kiosk` next to the test executable, else the
    /// package's `.build/debug/darkmode-kiosk`; nil when none exists.
    static let path: String? = {
        var candidates: [String] = []
        if let env = ProcessInfo.processInfo.environment["DARKMODE_KIOSK_BIN"], !env.isEmpty { candidates.append(env) }
        candidates.append(FileIO.join(buildFolder, "darkmode-kiosk"))
        let packageRoot = FileIO.directoryName(FileIO.directoryName(FileIO.directoryName(#filePath)))
        candidates.append(FileIO.join(packageRoot, ".build/debug/darkmode-kiosk"))
        return candidates.first { access($0, X_OK) == 0 }
    }()

    static var missingMessage: String {
        "darkmode-kiosk executable not found next to \(testExecutable); build it with `swift build` (or set DARKMODE_KIOSK_BIN)"
    }
}

/// The outcome of a finished child process.
struct ProcessOutcome {
    /// Exit status, or nil when killed by a signal.
    var status: Int32?
    var signal: Int32?
    var stdout: String
    var stderr: String
    var stderrLines: [String] { stderr.split(separator: "\n").map(String.init) }
}

/// A child process with stdout and stderr going to files in `folder`.
final class ChildProcess {
    let pid: pid_t
    let outPath: String
    let errPath: String
    private var finished: ProcessOutcome?

    /// Starts `executable` with `arguments`. `lineBuffered` runs it under `stdbuf -oL` so each
    /// stdout line reaches the file as it is printed (stdio is block-buffered into a file).
    init(_ executable: String, _ arguments: [String], folder: String, tag: String = "child",
         lineBuffered: Bool = false, environment: [String: String] = [:],
         stdoutTo: String? = nil, closed: Set<Int32> = []) throws {
        outPath = FileIO.join(folder, "\(tag).out")
        errPath = FileIO.join(folder, "\(tag).err")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        if let stdoutTo {
            posix_spawn_file_actions_addopen(&actions, 1, stdoutTo, O_WRONLY, 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        }
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        // Closed standard descriptors (`>&-`): closed after the opens above.
        for fd in closed.sorted() { posix_spawn_file_actions_addclose(&actions, fd) }
        let argv0 = lineBuffered ? ["/usr/bin/stdbuf", "-oL", executable] : [executable]
        let argv = (argv0 + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        var child: pid_t = 0
        let rc = posix_spawn(&child, argv0[0], &actions, nil, argv, envp)
        guard rc == 0 else { throw SpawnError(message: "cannot start \(argv0[0]): \(FileIO.errorText(rc))") }
        pid = child
    }

    struct SpawnError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    /// Sends `signal` to the child.
    func kill(_ signal: Int32) { _ = Glibc.kill(pid, signal) }

    /// Waits for the child, killing it (SIGKILL) after `timeout` seconds.
    @discardableResult
    func wait(timeout: Double = 60) -> ProcessOutcome {
        if let finished { return finished }
        var status: Int32 = 0
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let r = waitpid(pid, &status, WNOHANG)
            if r == pid { break }
            if r < 0 && errno != EINTR { break }
            if Date() > deadline { Glibc.kill(pid, SIGKILL) }
            usleep(2000)
        }
        // WIFEXITED / WEXITSTATUS / WTERMSIG by hand (macros are not imported).
        let termSignal = status & 0x7F
        let outcome = ProcessOutcome(status: termSignal == 0 ? (status >> 8) & 0xFF : nil,
                                     signal: termSignal == 0 ? nil : termSignal,
                                     stdout: readText(outPath) ?? "", stderr: readText(errPath) ?? "")
        finished = outcome
        return outcome
    }

    /// Runs to completion.
    static func run(_ executable: String, _ arguments: [String], folder: String, tag: String = "child",
                    timeout: Double = 60, environment: [String: String] = [:],
                    stdoutTo: String? = nil, closed: Set<Int32> = []) throws -> ProcessOutcome {
        try ChildProcess(executable, arguments, folder: folder, tag: tag, environment: environment,
                         stdoutTo: stdoutTo, closed: closed).wait(timeout: timeout)
    }
}

/// Runs the kiosk binary to completion (throws when it is missing).
func runKiosk(_ arguments: [String], in folder: TempFolder, tag: String = "kiosk", timeout: Double = 60) throws -> ProcessOutcome {
    guard let exe = KioskExecutable.path else { throw ChildProcess.SpawnError(message: KioskExecutable.missingMessage) }
    return try ChildProcess.run(exe, arguments, folder: folder.path, tag: tag, timeout: timeout)
}

/// True when `stderr` shows a crash or a Swift runtime trap rather than a handled error.
func looksLikeCrash(_ stderr: String) -> Bool {
    ["Fatal error", "Stack dump", "Backtrace", "backtrace", "Segmentation fault", "Illegal instruction",
     "Current stack trace", "precondition failed", "💣"].contains { stderr.contains($0) }
}

/// Collects rows for the bad-input table in docs/reliability.md when `RELIABILITY_TABLE` names
/// a file: one tab-separated line per case (area, case, exit status, stderr).
enum ReliabilityTable {
    static let path = ProcessInfo.processInfo.environment["RELIABILITY_TABLE"]
    private static let lock = NSLock()

    static func record(_ area: String, _ name: String, _ outcome: ProcessOutcome, note: String = "") {
        guard let path else { return }
        let status = outcome.status.map(String.init) ?? "signal \(outcome.signal ?? 0)"
        let err = outcome.stderr.split(separator: "\n").joined(separator: " ⏎ ")
        let line = [area, name, status, err, note].joined(separator: "\t") + "\n"
        lock.lock(); defer { lock.unlock() }
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        guard fd >= 0 else { return }
        _ = line.withCString { Glibc.write(fd, $0, strlen($0)) }
        close(fd)
    }
}
