import KioskEngine
import KioskSupport
extension PreferencesStore {
    /// Opens the preferences at `path` the way every driver does at start: loads the saved
    /// mode (the default when there is none or the file is bad) and reports a problem once on
    /// stderr. With no path the mode lives in memory only (no store).
    public static func open(path: String?) -> (store: PreferencesStore?, isDarkMode: Bool) {
        guard let path else { return (nil, defaultIsDarkMode) }
        let store = PreferencesStore(path: path)
        let loaded = store.load()
        if let d = loaded.diagnostic { StandardError.log(d) }
        return (store, loaded.isDarkMode)
    }

    /// Saves a committed mode; a failure is reported on stderr (the store says each problem
    /// once) and the app keeps running in memory.
    public func saveReporting(isDarkMode: Bool) {
        if let d = save(isDarkMode: isDarkMode) { StandardError.log(d) }
    }
}
