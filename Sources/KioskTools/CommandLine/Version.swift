import KioskEngine
import KioskSupport
/// The program's version, printed by `darkmode-kiosk --version`.
public enum KioskVersion {
    public static let string = "0.1.0"
    /// The `--version` line.
    public static var line: String { "darkmode-kiosk \(string)" }
}
