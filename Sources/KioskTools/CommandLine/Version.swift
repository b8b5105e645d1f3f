import KioskEngine
import KioskSupport
/// The program's version, printed by `darkmode-kiosk --version` and in the man page:
/// debian/changelog's, which Package.swift passes to the CVersion target. The executable sets
/// it first thing (`main.swift`), before any thread starts; this module does not import
/// CVersion itself, so a new version recompiles the executable's two files, not this module.
public enum KioskVersion {
    nonisolated(unsafe) public static var string = "unknown"
    /// The `--version` line.
    public static var line: String { "darkmode-kiosk \(string)" }
}
