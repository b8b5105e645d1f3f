#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes human messages to the process's standard error, each line prefixed with the program
/// name (`darkmode-kiosk: …`), straight to file descriptor 2 (Swift 6 forbids touching the C
/// `stderr` global from concurrent code).
public enum StandardError {
    /// The prefix put before every line.
    public static let programName = "darkmode-kiosk"

    /// Writes `message` (one or more lines), each line prefixed with `darkmode-kiosk: `, with
    /// plain `write(2)` calls on file descriptor 2 (no buffering, nothing lost at exit).
    public static func log(_ message: String) {
        var bytes = Array(formatted(message).utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            offset += n
        }
    }

    /// Reports `error` on stderr; returns its exit status so callers can `exit(report(e))`.
    @discardableResult
    public static func report(_ error: KioskError) -> Int32 {
        log(error.message)
        return error.exitStatus
    }

    /// The exact text `log` writes: every line prefixed, ending in a newline.
    public static func formatted(_ message: String) -> String {
        let lines = message.split(separator: "\n", omittingEmptySubsequences: false)
        return lines.map { "\(programName): \($0)\n" }.joined()
    }
}
