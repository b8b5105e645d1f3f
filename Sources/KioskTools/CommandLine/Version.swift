import CVersion
import KioskEngine
import KioskSupport
/// The program's version, printed by `darkmode-kiosk --version`: debian/changelog's, passed in
/// by Package.swift through the CVersion target (one place for the binary, the man page and the
/// package).
public enum KioskVersion {
    public static let string = String(cString: darkmode_kiosk_version())
    /// The `--version` line.
    public static var line: String { "darkmode-kiosk \(string)" }
}
