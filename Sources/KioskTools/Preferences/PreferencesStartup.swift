import Log
import Appearance
import KioskEngine
import KioskSupport
extension PreferencesStore {
    /// Opens the preferences at `path` the way every driver does at start: loads the saved
    /// preference (the default, follow the system, when there is none or the file is bad),
    /// reports a problem once on stderr, and rewrites a legacy `isDarkMode` file once in the
    /// `appearance` schema. With no path the preference lives in memory only (no store).
    public static func open(path: String?) -> (store: PreferencesStore?, appearance: AppearancePreference) {
        guard let path else { return (nil, defaultAppearance) }
        let store = PreferencesStore(path: path)
        let loaded = store.load()
        if let d = loaded.diagnostic { Log.warning(d) }
        if loaded.migratedLegacy { store.saveReporting(appearance: loaded.appearance) }
        return (store, loaded.appearance)
    }

    /// Saves a chosen preference; a failure is reported on stderr (the store says each problem
    /// once) and the app keeps running in memory.
    public func saveReporting(appearance: AppearancePreference) {
        if let d = save(appearance: appearance) { Log.warning(d) }
    }

    /// Saves what an input handler asked for.
    public func saveReporting(_ output: KioskOutput) {
        switch output {
        case .preferenceChanged(let p): saveReporting(appearance: p)
        }
    }
}
