#if canImport(Glibc)
import Glibc
#endif
import KioskEngine
import KioskSupport

/// Where the preferences file lives by default: `$XDG_CONFIG_HOME/darkmode-kiosk/preferences.json`,
/// falling back to `$HOME/.config/darkmode-kiosk/preferences.json` (XDG Base Directory rules:
/// an empty or relative `XDG_CONFIG_HOME` is ignored), then to the passwd entry's home folder.
public enum PreferencesLocation {
    public static let folderName = "darkmode-kiosk"
    public static let fileName = "preferences.json"

    /// The default path from `environment`, or nil when no home folder can be found (the
    /// caller then keeps the mode in memory only).
    public static func defaultPath(environment: [String: String], passwdHome: () -> String? = passwdHome) -> String? {
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") {
            return FileIO.join(FileIO.join(xdg, folderName), fileName)
        }
        let home: String?
        if let h = environment["HOME"], h.hasPrefix("/") { home = h } else { home = passwdHome() }
        guard let home else { return nil }
        return FileIO.join(FileIO.join(FileIO.join(home, ".config"), folderName), fileName)
    }

    /// The home folder of the real user from the passwd database.
    public static func passwdHome() -> String? {
        guard let pw = getpwuid(getuid()), let dir = pw.pointee.pw_dir else { return nil }
        let s = String(cString: dir)
        return s.hasPrefix("/") ? s : nil
    }
}
