import Appearance
import Raster
import KioskEngine
import KioskSupport

/// The settings `darkmode-kiosk run` actually uses: the config file with the command-line
/// flags laid over it (flags win; boolean flags can only switch a feature on), and the
/// environment: the XDG default of the preferences path (after the flag and the config) and
/// every variable the host reads (`host`, parsed here once; a bad value: its default and a warning).
public struct RunSettings: Equatable, Sendable {
    public var windowed: Bool
    /// Window size (windowed) or requested mode; nil for the screen's/host's default.
    public var size: PixelSize?
    public var rotate: Rotation
    /// Pixels per point; nil for automatic.
    public var scale: Double?
    public var reduceMotion: Bool
    public var showFPS: Bool
    /// Toggle width in points.
    public var toggleWidth: Double
    public var pageLight: Color
    public var pageDark: Color
    /// The preferences file: `--prefs`, else the config's `preferences`, else the XDG default;
    /// nil when no location could be found (keep the mode in memory only).
    public var preferencesPath: String?
    /// What the "system" preference follows.
    public var appearance = AppearanceConfig()
    /// Reduce Motion was forced on by `--reduce-motion` or the config: the portal's
    /// `reduced-motion` hint is then ignored (otherwise it is followed).
    public var reduceMotionForced = false
    public var highContrast: Bool = false
    /// Label language code (`--lang`, else the config's); nil: the locale environment.
    public var language: String? = nil
    /// The colour-sets file, nil for the built-in sets.
    public var colorsPath: String? = nil
    /// The page's background image files (resolved paths) and fit.
    public var background = KioskConfig.Page.Background()
    /// Config `input.calibration` (touch screens; on KMS/DRM absolute pointers too); nil: none.
    public var calibration: CalibrationMatrix? = nil
    /// Config `display.connector` (KMS/DRM); nil: the first connected one.
    public var connector: String? = nil
    /// Config `display.sleep`: when the screen sleeps (off by default).
    public var sleep: SleepSettings = .off
    /// What the environment asks of the host and the run (`HostEnvironment`: the table in
    /// docs/kiosk-operation.md).
    public var host = HostEnvironment()

    /// Lays `flags` over `config`, with `environment`: XDG_CONFIG_HOME/HOME for the default
    /// preferences path, and the host's variables (`HostEnvironment.parse`; a value it cannot
    /// use: the default, and a line in `host.warnings`).
    public static func merge(config: KioskConfig, flags: RunOptions, environment: [String: String],
                             passwdHome: () -> String? = PreferencesLocation.passwdHome) -> RunSettings {
        RunSettings(
            windowed: flags.windowed || config.display.windowed,
            size: flags.size ?? config.display.size,
            rotate: flags.rotate ?? config.display.rotate,
            scale: flags.scale ?? config.display.scale,
            reduceMotion: flags.reduceMotion || config.reduceMotion,
            showFPS: flags.showFPS || config.display.showFPS,
            toggleWidth: config.toggle.width,
            pageLight: config.theme.light.page.color,
            pageDark: config.theme.dark.page.color,
            preferencesPath: flags.prefsPath ?? config.preferences
                ?? PreferencesLocation.defaultPath(environment: environment, passwdHome: passwdHome),
            appearance: config.appearance,
            reduceMotionForced: flags.reduceMotion || config.reduceMotion,
            highContrast: flags.highContrast || config.highContrast,
            language: flags.language ?? config.language,
            colorsPath: config.colors,
            background: config.page.background,
            calibration: config.input.calibration,
            connector: config.display.connector,
            sleep: config.display.sleep,
            host: HostEnvironment.parse(environment))
    }

    /// The app's start options for a page of `pixelWidth × pixelHeight` (already rotated) at
    /// `scale` pixels per point (the host resolves automatic scale).
    public func kioskOptions(pixelWidth: Int, pixelHeight: Int, scale: Double, colors: ColorSets = .standard,
                             strings: PageStrings = .english, typesetter: LabelTypesetter? = nil,
                             background: PageBackground? = nil) -> KioskOptions {
        KioskOptions(pixelWidth: pixelWidth, pixelHeight: pixelHeight, scale: scale, reduceMotion: reduceMotion,
                     showFPS: showFPS, toggleWidth: toggleWidth, theme: PageTheme(light: pageLight, dark: pageDark),
                     colors: colors, highContrast: highContrast, strings: strings, typesetter: typesetter,
                     background: background)
    }

    /// How the page sits at `size` (rotated as configured) and `scale` (1 when automatic):
    /// "column" or "side by side", and whether it had to be scaled down.
    public func layoutSummary(size: PixelSize, scale: Double) -> String {
        let turned = rotate.degrees % 180 != 0
        let l = PageLayout(pixelWidth: turned ? size.height : size.width, pixelHeight: turned ? size.width : size.height,
                           scale: scale, toggleWidth: toggleWidth)
        var s = "page layout at \(turned ? size.height : size.width)x\(turned ? size.width : size.height) px, scale \(scale): "
            + (l.arrangement == .column ? "column" : "toggle groups side by side")
        if l.contentScale < 1 {
            s += "; content scaled to \(Int((l.contentScale * 100).rounded(.down)))% to fit"
        }
        return s
    }

    /// The high-contrast page colours of `colors` (`run --check` prints it after the summary;
    /// the config's theme sets only the normal pair): "high-contrast page colours: light
    /// R,G,B, dark R,G,B".
    public static func highContrastLine(_ colors: ColorSets) -> String {
        func rgb(_ c: Color) -> String { "\(Int((c.r * 255).rounded())),\(Int((c.g * 255).rounded())),\(Int((c.b * 255).rounded()))" }
        let page = colors[.pageBackground]
        return "high-contrast page colours: light \(rgb(page.highContrastLight)), dark \(rgb(page.highContrastDark))"
    }

    /// A human summary of the effective settings (`run --check`).
    public var summary: String {
        func rgb(_ c: Color) -> String { "\(Int((c.r * 255).rounded())),\(Int((c.g * 255).rounded())),\(Int((c.b * 255).rounded()))" }
        return [
            "display: " + (windowed ? "windowed" : "full-screen") + (size.map { " \($0.width)x\($0.height)" } ?? "")
                + ", rotate \(rotate.degrees), scale " + (scale.map { "\($0)" } ?? "automatic")
                + ", connector " + (connector ?? "the first connected (KMS/DRM)"),
            "toggle width: \(toggleWidth) pt",
            "page colours: light \(rgb(pageLight)), dark \(rgb(pageDark))",
            "reduce motion: \(reduceMotion ? "on" : "off (follows the desktop portal's reduced-motion)"), FPS overlay: \(showFPS ? "on" : "off")",
            "preferences: " + (preferencesPath ?? "none (kept in memory)"),
            "colours: " + (colorsPath ?? "built-in sets"),
            "high contrast: " + (highContrast ? "on" : "off (follows the desktop portal's contrast)"),
            "language: " + (language ?? "from the locale environment"),
            "page background: " + (background.isEmpty ? "none (page colours only)"
                : "light \(background.light ?? "none"), dark \(background.dark ?? "none"), fit \(background.fit.rawValue)"),
            "input calibration: " + (calibration.map { $0.text + " (KMS/DRM: in place of each device's LIBINPUT_CALIBRATION_MATRIX; "
                + "under a compositor: touch only, on top of the compositor's)" }
                ?? "none (each device's LIBINPUT_CALIBRATION_MATRIX, if set)"),
            "screen sleep: " + sleep.summary,
        ].joined(separator: "\n") + (size.map { "\n" + layoutSummary(size: $0, scale: scale ?? 1) } ?? "")
            + "\n" + AppearanceSummary.lines(appearance).joined(separator: "\n")
    }
}
