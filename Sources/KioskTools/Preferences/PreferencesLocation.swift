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

    /// Where a preferences path came from, for messages.
    public enum Origin: Equatable, Sendable {
        case flag
        case config(file: String)
        case defaultLocation
    }

    /// Refuses, at start, a preferences path that names a folder (issue #32, item 9): an
    /// existing directory (or a link to one), a path ending in `/`, `.` or `..`. Such a path
    /// would otherwise be taken for a bad file and the whole folder renamed aside, or every
    /// save fail. One line, exit 2 (`KioskError.input`).
    public static func checkNotAFolder(_ path: String, origin: Origin) throws(KioskError) {
        let base = FileIO.baseName(path)
        let why: String
        if path.isEmpty {
            why = "is empty"
        } else if path.hasSuffix("/") || base == "." || base == ".." {
            why = "names a folder"
        } else if let st = FileIO.statInfo(path), (st.st_mode & S_IFMT) == S_IFDIR {
            why = "is a folder"
        } else {
            return
        }
        let example = path.isEmpty ? fileName : FileIO.join(path, fileName)
        let hint = "expected the preferences file itself, e.g. \(example)"
        switch origin {
        case .flag:
            throw .input("--prefs \(path): \(why); \(hint)")
        case .config(let file):
            throw .input("config file \(file): \"preferences\" (\(path)) \(why); \(hint)")
        case .defaultLocation:
            throw .input("the default preferences file \(path) \(why); move it away or pass --prefs FILE")
        }
    }

    /// The home folder of the real user from the passwd database.
    public static func passwdHome() -> String? {
        guard let pw = getpwuid(getuid()), let dir = pw.pointee.pw_dir else { return nil }
        let s = String(cString: dir)
        return s.hasPrefix("/") ? s : nil
    }
}
