import Log
import DarkModeToggle
import Raster
import KioskEngine
import KioskSupport
import Text

/// `darkmode-kiosk render`: one frame of the toggle to a PNG file.
public enum RenderCommand {
    /// The whole page through `KioskApp` at `--time` (no separate layout code): the preference,
    /// colours, language and high contrast the flags give.
    public static func pageImage(_ o: RenderOptions, environment: [String: String] = [:],
                                 warn: (String) -> Void = { Log.warning($0) }) throws(KioskError) -> Pixmap {
        guard let page = o.page else { throw .usage("render: a page render needs --page WxH") }
        // `--config`: the page as `run` shows it with that file (colours, toggle width, high
        // contrast, language, background images); flags win.
        let configured = try ConfiguredPage.load(configPath: o.configPath, highContrast: o.highContrast,
                                                 language: o.language, environment: environment)
        let text = PageText.make(language: configured.language, warn: warn)
        let preference: AppearancePreference = o.preference.flatMap(AppearancePreference.init(rawValue:))
            ?? (o.appearance == .dark ? .dark : .light)
        var options = configured.options(pixelWidth: page.width, pixelHeight: page.height, scale: o.resolvedScale,
                                         strings: text.strings, typesetter: text.typesetter)
        options.reduceMotion = o.isStatic || configured.settings.reduceMotion
        let app = KioskApp(options: options, preference: preference)
        // The app's ambient loops start at its first frame: a first frame at 0 makes `--time`
        // the loops' time, as in a component render (the page at T seconds after start).
        if o.time > 0 { _ = app.renderFrame(at: 0) }
        _ = app.renderFrame(at: o.time)
        return app.frame
    }

    /// Renders the frame the options describe (no file I/O).
    public static func image(_ o: RenderOptions, theme: PageTheme = .standard, cached: Bool = true) -> Pixmap {
        let width = o.resolvedWidth
        let renderer = o.style.makeRenderer(width: Double(width), scale: 1)
        let frame = ToggleFrame(appearance: o.resolvedProgress, position: o.resolvedPosition,
                                ambient: Ambient.state(time: o.time, reduceMotion: o.isStatic))
        let height = Int((Double(width) * ToggleMetrics.componentAspect).rounded())
        let pixmap: Pixmap
        let origin: (x: Int, y: Int)
        if let page = o.page {
            pixmap = Pixmap(width: page.width, height: page.height)
            let color = o.pageColor.map { Color(r255: Double($0[0]), g255: Double($0[1]), b255: Double($0[2])) }
                ?? theme.pageColor(isDark: o.resolvedIsDark)
            pixmap.fill(pixmap.bounds, with: color.premultiplied8.packed)
            origin = ((page.width - width) / 2, (page.height - height) / 2)
        } else {
            pixmap = Pixmap(width: width, height: height)
            origin = (0, 0)
        }
        renderer.draw(frame, on: Canvas(pixmap), origin: origin, cached: cached)
        return pixmap
    }

    /// What a render maps beyond the process's own start: 8 bytes a pixel, two full-size
    /// pixmaps (the frame, and the page's background or the component's layers). Measured with
    /// `ulimit -v` at the edge: `--page 4096x4096` needs 98 MiB more than `--page 2048x2048`,
    /// 7.98 bytes for each added pixel.
    static func memoryNeed(_ o: RenderOptions) -> Int {
        let (w, h) = o.page.map { ($0.width, $0.height) }
            ?? (o.resolvedWidth, Int((Double(o.resolvedWidth) * ToggleMetrics.componentAspect).rounded()))
        return w * h * 8
    }

    static func imageSize(_ o: RenderOptions) -> String {
        o.page.map { "\($0.width)x\($0.height)" } ?? "\(o.resolvedWidth)-pixel-wide"
    }

    /// Renders and writes the PNG; errors name the file.
    public static func run(_ o: RenderOptions, theme: PageTheme = .standard,
                           environment: [String: String] = [:]) throws(KioskError) {
        if let problem = ProcessLimits.addressSpaceProblem(bytes: memoryNeed(o), for: "a \(imageSize(o)) render") {
            throw .runtime("render: " + problem)
        }
        let pix = o.isPageRender ? try pageImage(o, environment: environment) : image(o, theme: theme)
        do { try PNGFile.write(pix, to: o.outPath) } catch {
            throw .runtime("render --out: \(error)")
        }
    }
}

