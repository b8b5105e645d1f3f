#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The kiosk's one log: every line on standard error, prefixed with the program name
/// (`darkmode-kiosk: …`, written here and nowhere else), and with its journald priority (`<3>`,
/// `<4>`, …, see `LogPriority`) in front when standard error is the journal. One `write(2)`
/// per message, straight to file descriptor 2 (no buffering, nothing lost at exit; Swift 6
/// forbids touching the C `stderr` global from concurrent code), so lines from two threads do
/// not interleave mid-line.
public enum Log {
    /// The program name put before every line.
    public static let programName = "darkmode-kiosk"

    /// Whether standard error is the journal (decided once, from `JOURNAL_STREAM` and
    /// standard error's device and inode).
    public static let toJournal: Bool = {
        var st = stat()
        let stream = getenv("JOURNAL_STREAM").map { String(cString: $0) }
        return fstat(2, &st) == 0
            && JournalStream.isJournal(journalStream: stream, stderrDevice: UInt64(st.st_dev), stderrInode: UInt64(st.st_ino))
    }()

    /// Something failed: the kiosk stops, or a feature is off.
    public static func error(_ message: String) { write(message, priority: .error) }
    /// Something is not as asked, and the kiosk goes on another way.
    public static func warning(_ message: String) { write(message, priority: .warning) }
    /// A normal but significant event (a display paused, a signal received).
    public static func notice(_ message: String) { write(message, priority: .notice) }
    /// What the kiosk chose or found (presenter, input devices, timing).
    public static func info(_ message: String) { write(message, priority: .info) }
    /// Detail for the journal only, where it is filtered by priority: written only when
    /// standard error is the journal.
    public static func debug(_ message: String) {
        if toJournal { write(message, priority: .debug) }
    }

    /// Writes `message` (one or more lines) at `priority`.
    public static func write(_ message: String, priority: LogPriority) {
        var bytes = Array(formatted(message, priority: priority, journal: toJournal).utf8)
        bytes.withUnsafeMutableBytes { buf in
            var offset = 0
            while offset < buf.count {
                let n = Glibc.write(2, buf.baseAddress! + offset, buf.count - offset)
                if n < 0 { if errno == EINTR { continue } else { return } }
                if n == 0 { return }
                offset += n
            }
        }
    }

    /// The exact text `write` writes: every line prefixed with `darkmode-kiosk: `, and with
    /// the priority before that when `journal`; newline-terminated.
    public static func formatted(_ message: String, priority: LogPriority, journal: Bool) -> String {
        var lines = message.split(separator: "\n", omittingEmptySubsequences: false)
        if lines.count > 1, lines.last?.isEmpty == true { lines.removeLast() }
        let prefixed = lines.map { "\(programName): \($0)" }.joined(separator: "\n")
        return JournalStream.format(prefixed, priority: priority, journal: journal)
    }
}
