#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import KioskEngine
import KioskSupport
import KioskTools
import KioskSDL
import Text

/// The command-line front end: parse, dispatch, map errors to exit statuses (2 bad input,
/// 1 runtime failure). Never a stack trace for bad input.
func main() -> Int32 {
    let command: KioskCommand
    do {
        command = try CommandLineParser.parse(Array(CommandLine.arguments.dropFirst()))
    } catch {
        return StandardError.report(error)
    }
    do {
        switch command {
        case .help(let sub):
            print(HelpText.text(for: sub))
            return 0
        case .version:
            print(KioskVersion.line)
            return 0
        case .run(let options):
            return try runKiosk(options)
        case .render(let options):
            try RenderCommand.run(options, environment: processEnvironment())
            return 0
        case .replay(let options):
            try ReplayCommand.run(options) { print($0) }
            return 0
        case .bench(let options):
            if options.raster {
                print(RasterBenchmark.table(try RasterBenchmark.run()))
                print(ComponentBenchmark.table(ComponentBenchmark.run()))
                print(ComponentBenchmark.table(ComponentBenchmark.run(style: .vivid)))
                return 0
            }
            try BenchCommand.run(options) { print($0) }
            return 0
        case .soak(let options):
            try SoakCommand.run(minutes: options.minutes, seed: options.seed,
                                size: options.size ?? PixelSize(width: 1280, height: 800), scale: options.scale ?? 1) { print($0) }
            return 0
        }
    } catch let error as KioskError {
        return StandardError.report(error)
    } catch {
        return StandardError.report(.runtime("\(error)"))
    }
}

/// `darkmode-kiosk [run]`: config + flags, the saved mode, then the SDL host. The first frame
/// already shows the saved mode; every commit is written to the preferences file at once.
func runKiosk(_ flags: RunOptions) throws(KioskError) -> Int32 {
    let config = try KioskConfig.load(path: flags.configPath)
    let settings = RunSettings.merge(config: config, flags: flags, environment: processEnvironment())
    let colors = try ColorSetsFile.load(path: settings.colorsPath)
    let language: Language
    do { language = try Language.resolve(explicit: settings.language, environment: processEnvironment()) } catch {
        throw .usage("--lang: \(error)")
    }
    if flags.checkOnly {
        print(settings.summary)
        return 0
    }
    let text = PageText.make(language: language)
    if settings.preferencesPath == nil {
        StandardError.log("no preferences location (set XDG_CONFIG_HOME or HOME, or pass --prefs): the mode is kept in memory only")
    }
    let (store, preference) = PreferencesStore.open(path: settings.preferencesPath)
    let host = HostOptions(windowed: settings.windowed, size: settings.size.map { ($0.width, $0.height) },
                           rotation: settings.rotate, scale: settings.scale)
    return SDLHost.run(host, makeApp: { page in
        KioskApp(options: settings.kioskOptions(pixelWidth: page.pixelWidth, pixelHeight: page.pixelHeight, scale: page.scale,
                                                colors: colors, strings: text.strings, typesetter: text.typesetter),
                 preference: preference)
    }, onCommit: { store?.saveReporting($0) })
}

/// The process environment as a dictionary (what `RunSettings` reads XDG paths from).
func processEnvironment() -> [String: String] {
    var env: [String: String] = [:]
    var p = environ
    while let entry = p.pointee {
        let s = String(cString: entry)
        if let eq = s.firstIndex(of: "=") { env[String(s[..<eq])] = String(s[s.index(after: eq)...]) }
        p += 1
    }
    return env
}

exit(main())
