/// An error the kiosk reports to a person: one human message that names the file, key, flag
/// or line and what was expected, plus the process exit status it maps to.
///
/// Exit statuses follow the command-line contract: 2 for bad usage or bad input (flags,
/// config files, traces), 1 for runtime failures (a display that will not open, a PNG that
/// cannot be written). The message never contains a stack trace.
public struct KioskError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What kind of failure this is; it decides the exit status.
    public enum Kind: Equatable, Sendable {
        /// Bad command line: unknown flag, missing or malformed value.
        case usage
        /// Bad input file: config, trace, …
        case input
        /// The environment failed at run time.
        case runtime
    }

    public var kind: Kind
    /// The message, without a program-name prefix (the logger adds it). May span several
    /// lines when a file held several problems.
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public static func usage(_ message: String) -> KioskError { KioskError(.usage, message) }
    public static func input(_ message: String) -> KioskError { KioskError(.input, message) }
    public static func runtime(_ message: String) -> KioskError { KioskError(.runtime, message) }

    /// 2 for usage and input errors, 1 for runtime failures.
    public var exitStatus: Int32 {
        switch kind {
        case .usage, .input: return 2
        case .runtime: return 1
        }
    }

    public var description: String { message }
}
