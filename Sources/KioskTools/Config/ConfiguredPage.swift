import KioskEngine
import KioskSupport
import Text

/// The page a config file describes, for the headless commands (`render --page`, `bench`):
/// the same settings, colour sets, labels and background images `run` uses, loaded once.
public struct ConfiguredPage {
    public var settings: RunSettings
    public var colors: ColorSets
    public var background: PageBackground?
    public var language: Language

    /// Loads `configPath` (nil: the built-in defaults) with `highContrast`/`language` from the
    /// command line laid over it. Errors name the file and key (exit 2).
    public static func load(configPath: String?, highContrast: Bool = false, language: String? = nil,
                            environment: [String: String]) throws(KioskError) -> ConfiguredPage {
        let config = try KioskConfig.load(path: configPath)
        var flags = RunOptions()
        flags.configPath = configPath
        flags.highContrast = highContrast
        flags.language = language
        // No preferences are read or written here: keep the XDG lookup out of it.
        let settings = RunSettings.merge(config: config, flags: flags, environment: [:], passwdHome: { nil })
        let colors = try ColorSetsFile.load(path: settings.colorsPath)
        let background = try PageBackgroundFile.load(settings.background, configFile: configPath)
        let lang: Language
        do { lang = try Language.resolve(explicit: settings.language, environment: environment) } catch {
            throw .usage("--lang: \(error)")
        }
        return ConfiguredPage(settings: settings, colors: colors, background: background, language: lang)
    }

    /// The app's options at this size and scale, with these labels.
    public func options(pixelWidth: Int, pixelHeight: Int, scale: Double, strings: PageStrings,
                        typesetter: LabelTypesetter?) -> KioskOptions {
        var o = settings.kioskOptions(pixelWidth: pixelWidth, pixelHeight: pixelHeight, scale: scale, colors: colors,
                                      strings: strings, typesetter: typesetter, background: background)
        o.showFPS = false
        return o
    }
}
