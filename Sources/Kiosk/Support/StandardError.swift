#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Writes human messages to the process's standard error, each line prefixed with the program
/// name (`darkmode-kiosk: …`). Uses `FileHandle.standardError` (Swift 6 forbids touching the
/// C `stderr` global from concurrent code).
public enum StandardError {
    /// The prefix put before every line.
    public static let programName = "darkmode-kiosk"

    /// Writes `message` (one or more lines), each line prefixed with `darkmode-kiosk: `.
    public static func log(_ message: String) {
        FileHandle.standardError.write(Data(formatted(message).utf8))
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
