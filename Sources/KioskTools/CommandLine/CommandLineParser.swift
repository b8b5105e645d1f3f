import DarkModeToggle
import KioskEngine
import KioskSupport
import Text
import Threads

/// Parses `darkmode-kiosk`'s arguments (without the program name) into a `KioskCommand`.
/// Pure: no I/O, no environment. Every problem is a usage error (exit 2) naming the flag and
/// what was expected.
///
/// Grammar: an optional subcommand first (`run` when omitted), then flags in any order, as
/// `--flag value` or `--flag=value`; `--` ends the flags. A flag may be given once. A value
/// may not start with `--` in the two-word form (so a forgotten value is reported, not eaten).
/// `--help`/`-h` anywhere prints the current subcommand's help; `--version` stands alone, as
/// does the undocumented `--man` (the manual page in roff, generated at package build time).
public enum CommandLineParser {
    public static let maxFrames = 10_000_000
    public static let maxTime = 1_000_000.0

    public static func parse(_ arguments: [String]) throws(KioskError) -> KioskCommand {
        var args = arguments[...]
        if let first = args.first {
            switch first {
            case "--help", "-h", "help":
                if first == "help", let topic = args.dropFirst().first {
                    guard let sub = KioskSubcommand(rawValue: topic) else { throw unknownCommand(topic) }
                    return .help(sub)
                }
                return .help(nil)
            case "--version", "-V", "version":
                guard args.count == 1 else { throw .usage("--version takes no other arguments") }
                return .version
            case "--man":
                guard args.count == 1 else { throw .usage("--man takes no other arguments") }
                return .manPage
            default: break
            }
        }
        var subcommand = KioskSubcommand.run
        if let first = args.first, !first.hasPrefix("-") {
            guard let sub = KioskSubcommand(rawValue: first) else { throw unknownCommand(first) }
            subcommand = sub
            args = args.dropFirst()
        }
        guard let scanned = try scan(Array(args), specs: FlagSpec.specs(for: subcommand), subcommand: subcommand) else {
            return .help(subcommand)
        }
        switch subcommand {
        case .run: return .run(try runOptions(scanned))
        case .render: return .render(try renderOptions(scanned))
        case .replay: return .replay(try replayOptions(scanned))
        case .bench: return .bench(try benchOptions(scanned))
        case .soak: return .soak(try soakOptions(scanned))
        case .calibrate: return .calibrate(try calibrateOptions(scanned))
        }
    }

    // MARK: - Scanning

    struct Scanned {
        var values: [String: String] = [:]
        var switches: Set<String> = []
        var positionals: [String] = []
        func value(_ flag: String) -> String? { values[flag] }
        func has(_ flag: String) -> Bool { switches.contains(flag) }

        /// A flag's value checked by one of the validators below; nil when the flag is absent.
        func size(_ flag: String) throws(KioskError) -> PixelSize? {
            try value(flag).map { v throws(KioskError) in try CommandLineParser.size(v, flag: flag) }
        }
        func scale(_ flag: String) throws(KioskError) -> Double? {
            try value(flag).map { v throws(KioskError) in try CommandLineParser.scale(v, flag: flag) }
        }
        func rotation(_ flag: String) throws(KioskError) -> Rotation? {
            try value(flag).map { v throws(KioskError) in try CommandLineParser.rotation(v, flag: flag) }
        }
        /// A language code as given (resolved later with the config's), checked now so that
        /// every command refuses an unknown one the same way.
        func language(_ flag: String) throws(KioskError) -> String? {
            guard let v = value(flag) else { return nil }
            do { _ = try Language(code: v) } catch { throw .usage("\(flag): \(error)") }
            return v
        }
        func rgb(_ flag: String) throws(KioskError) -> [Int]? {
            try value(flag).map { v throws(KioskError) in try CommandLineParser.rgb(v, flag: flag) }
        }
        func number(_ flag: String, in range: ClosedRange<Double>, what: String) throws(KioskError) -> Double? {
            try value(flag).map { v throws(KioskError) in try CommandLineParser.number(v, flag: flag, in: range, what: what) }
        }
        func integer(_ flag: String, in range: ClosedRange<Int>, what: String) throws(KioskError) -> Int? {
            try value(flag).map { v throws(KioskError) in try CommandLineParser.integer(v, flag: flag, in: range, what: what) }
        }
    }

    /// Splits arguments into flag values, switches and positionals; nil when help was asked.
    static func scan(_ args: [String], specs: [FlagSpec], subcommand: KioskSubcommand) throws(KioskError) -> Scanned? {
        var out = Scanned()
        var seen = Set<String>()
        var i = 0
        var flagsEnded = false
        while i < args.count {
            let arg = args[i]
            i += 1
            if flagsEnded || !arg.hasPrefix("-") || arg == "-" || isNumberLike(arg) {
                out.positionals.append(arg)
                continue
            }
            if arg == "--" { flagsEnded = true; continue }
            if arg == "--help" || arg == "-h" { return nil }
            let (name, inline): (String, String?) = {
                guard let eq = arg.firstIndex(of: "=") else { return (arg, nil) }
                return (String(arg[..<eq]), String(arg[arg.index(after: eq)...]))
            }()
            guard let spec = specs.first(where: { $0.name == name }) else {
                var message = "unknown flag \(name) for '\(subcommand.rawValue)'"
                if let s = Suggestion.closest(to: name, among: specs.map(\.name)) { message += " (did you mean \(s)?)" }
                throw .usage(message + "; see darkmode-kiosk \(subcommand.rawValue) --help")
            }
            guard seen.insert(name).inserted else { throw .usage("flag \(name) is given more than once") }
            if let valueName = spec.valueName {
                let value: String
                if let inline {
                    value = inline
                } else {
                    guard i < args.count, !args[i].hasPrefix("--") else { throw .usage("flag \(name) needs a value: \(name) \(valueName)") }
                    value = args[i]
                    i += 1
                }
                guard !value.isEmpty else { throw .usage("flag \(name) needs a value: \(name) \(valueName)") }
                out.values[name] = value
            } else {
                if inline != nil { throw .usage("flag \(name) takes no value (found \(arg))") }
                out.switches.insert(name)
            }
        }
        return out
    }

    private static func isNumberLike(_ s: String) -> Bool {
        s.count > 1 && s.hasPrefix("-") && s.dropFirst().first.map { $0.isASCII && ($0.isNumber || $0 == ".") } == true
    }

    private static func unknownCommand(_ word: String) -> KioskError {
        var message = "unknown command '\(word)' (expected run, render, replay or bench)"
        if let s = Suggestion.closest(to: word, among: KioskSubcommand.allCases.map(\.rawValue)) { message += "; did you mean '\(s)'?" }
        return .usage(message)
    }

    // MARK: - Building options

    private static func noPositionals(_ s: Scanned, _ sub: KioskSubcommand) throws(KioskError) {
        if let extra = s.positionals.first {
            throw .usage("unexpected argument '\(extra)' for '\(sub.rawValue)'; see darkmode-kiosk \(sub.rawValue) --help")
        }
    }

    static func runOptions(_ s: Scanned) throws(KioskError) -> RunOptions {
        try noPositionals(s, .run)
        var o = RunOptions()
        o.windowed = s.has("--windowed")
        o.reduceMotion = s.has("--reduce-motion")
        o.showFPS = s.has("--show-fps")
        o.checkOnly = s.has("--check")
        o.preflightOnly = s.has("--preflight")
        if o.checkOnly && o.preflightOnly {
            throw .usage("--check and --preflight are two ways to check; give one (see darkmode-kiosk run --help)")
        }
        o.highContrast = s.has("--high-contrast")
        o.language = try s.language("--lang")
        o.size = try s.size("--size")
        o.rotate = try s.rotation("--rotate")
        o.scale = try s.scale("--scale")
        o.configPath = s.value("--config")
        o.prefsPath = s.value("--prefs")
        o.lanes = try s.integer("--threads", in: 1...HelperLanes.maxLanes, what: "a thread count")
        return o
    }

    /// Refuses images over `SettingLimits.renderPixels` before anything is allocated.
    static func checkRenderPixels(_ o: RenderOptions) throws(KioskError) {
        let limit = SettingLimits.renderPixels
        let width = o.resolvedWidth
        let height = Int((Double(width) * ToggleMetrics.componentAspect).rounded())
        if width * height > limit {
            let flag = o.width != nil ? "--width \(width)" : "--scale \(o.resolvedScale)"
            throw .usage("\(flag): the component would be \(width)x\(height) = \(width * height) pixels, the limit is \(limit) (4096x4096)")
        }
        if let page = o.page, page.width * page.height > limit {
            throw .usage("--page \(page): \(page.width * page.height) pixels, the limit is \(limit) (4096x4096)")
        }
    }

    static func renderOptions(_ s: Scanned) throws(KioskError) -> RenderOptions {
        try noPositionals(s, .render)
        guard let out = s.value("--out") else { throw .usage("render needs --out FILE.png") }
        guard out.lowercased().hasSuffix(".png"), out.count > 4 else {
            throw .usage("--out: expected a file name ending in .png, found '\(out)'")
        }
        var o = RenderOptions(outPath: out)
        o.width = try s.integer("--width", in: 1...PixelSize.maxDimension, what: "a width in pixels")
        o.page = try s.size("--page")
        o.progress = try s.number("--progress", in: 0...1, what: "a progress")
        o.position = try s.number("--position", in: 0...1, what: "a position progress")
        o.time = try s.number("--time", in: 0...maxTime, what: "a time in seconds") ?? 0
        o.scale = try s.scale("--scale")
        o.isStatic = s.has("--static")
        o.pageColor = try s.rgb("--page-color")
        if let v = s.value("--style") {
            guard let style = ToggleStyle(rawValue: v) else { throw .usage("--style: expected original or vivid, found '\(v)'") }
            o.style = style
            o.styleGiven = true
        }
        o.highContrast = s.has("--high-contrast")
        o.language = try s.language("--lang")
        o.configPath = s.value("--config")
        if o.configPath != nil, !o.isPageRender {
            throw .usage("--config applies to a page render (--page WxH without --style, --width, --progress, --position or --page-color)")
        }
        if let v = s.value("--appearance") {
            guard ["system", "light", "dark"].contains(v) else { throw .usage("--appearance: expected system, light or dark, found '\(v)'") }
            guard !s.has("--light"), !s.has("--dark") else { throw .usage("--appearance excludes --light and --dark") }
            o.preference = v
            if v != "system" { o.appearance = v == "dark" ? .dark : .light }
            try checkRenderPixels(o)
            return o
        }
        switch (s.has("--light"), s.has("--dark")) {
        case (true, true): throw .usage("--light and --dark exclude each other")
        case (true, false): o.appearance = .light
        case (false, true): o.appearance = .dark
        case (false, false): o.appearance = nil
        }
        try checkRenderPixels(o)
        return o
    }

    static func replayOptions(_ s: Scanned) throws(KioskError) -> ReplayOptions {
        guard let trace = s.positionals.first else { throw .usage("replay needs a trace file: darkmode-kiosk replay TRACE.jsonl") }
        guard s.positionals.count == 1 else {
            throw .usage("unexpected argument '\(s.positionals[1])' for 'replay' (one trace file expected)")
        }
        var o = ReplayOptions(tracePath: trace)
        o.size = try s.size("--size")
        o.scale = try s.scale("--scale")
        o.prefsPath = s.value("--prefs")
        o.reduceMotion = s.has("--reduce-motion")
        o.frames = s.has("--frames")
        return o
    }

    static func benchOptions(_ s: Scanned) throws(KioskError) -> BenchOptions {
        try noPositionals(s, .bench)
        var o = BenchOptions()
        o.size = try s.size("--size")
        o.scale = try s.scale("--scale")
        o.frames = try s.integer("--frames", in: 1...maxFrames, what: "a frame count")
        if let name = s.value("--scenario") {
            guard let sc = BenchScenario(rawValue: name.lowercased()) else {
                let names = BenchScenario.allCases.map(\.rawValue).joined(separator: ", ")
                throw .usage("--scenario: expected one of \(names), found '\(name)'")
            }
            o.scenario = sc
        }
        o.jsonPath = s.value("--json")
        o.framesJSONPath = s.value("--frames-json")
        o.fullRedraw = s.has("--full-redraw")
        o.raster = s.has("--raster")
        o.configPath = s.value("--config")
        o.lanes = try s.integer("--threads", in: 1...HelperLanes.maxLanes, what: "a thread count")
        o.latency = s.has("--latency")
        o.plotPath = s.value("--plot")
        if let v = s.value("--seed") {
            guard let seed = UInt64(v) else { throw .usage("--seed: expected a whole number 0…\(UInt64.max), found '\(v)'") }
            o.seed = seed
        }
        return o
    }

    static func soakOptions(_ s: Scanned) throws(KioskError) -> SoakOptions {
        try noPositionals(s, .soak)
        var o = SoakOptions()
        if let v = s.value("--minutes") {
            guard let m = Double(v), m.isFinite, m > 0, m <= 7 * 24 * 60 else {
                throw .usage("--minutes: expected simulated minutes in (0, 10080], found '\(v)'")
            }
            o.minutes = m
        }
        if let v = s.value("--seed") {
            guard let seed = UInt64(v) else { throw .usage("--seed: expected a whole number 0…\(UInt64.max), found '\(v)'") }
            o.seed = seed
        }
        o.size = try s.size("--size")
        o.scale = try s.scale("--scale")
        return o
    }

    static func calibrateOptions(_ s: Scanned) throws(KioskError) -> CalibrateOptions {
        try noPositionals(s, .calibrate)
        var o = CalibrateOptions()
        if let name = s.value("--device") {
            guard !name.isEmpty else { throw .usage("--device: expected an input device's name (as in /proc/bus/input/devices), found ''") }
            o.deviceName = name
        }
        o.printResult = s.has("--print")
        o.rotate = try s.rotation("--rotate") ?? .none
        if let path = s.value("--config") {
            guard !path.isEmpty else { throw .usage("--config: expected a file name, found ''") }
            o.configPath = path
        }
        return o
    }

    // MARK: - Value validators

    /// "R,G,B" with each component an integer 0…255.
    static func rgb(_ v: String, flag: String) throws(KioskError) -> [Int] {
        let parts = v.split(separator: ",", omittingEmptySubsequences: false).map { Int($0.filter { $0 != " " }) }
        guard parts.count == 3, parts.allSatisfy({ $0 != nil && (0...255).contains($0!) }) else {
            throw .usage("\(flag): expected R,G,B with each 0-255, found '\(v)'")
        }
        return parts.map { $0! }
    }

    static func size(_ v: String, flag: String) throws(KioskError) -> PixelSize {
        guard let s = PixelSize(parsing: v) else { throw .usage("\(flag): expected \(PixelSize.expectation), found '\(v)'") }
        return s
    }

    static func rotation(_ v: String, flag: String) throws(KioskError) -> Rotation {
        guard let d = Int(v), let r = Rotation(degrees: d) else {
            throw .usage("\(flag): expected \(Rotation.expectation), found '\(v)'")
        }
        return r
    }

    static func scale(_ v: String, flag: String) throws(KioskError) -> Double {
        try number(v, flag: flag, in: SettingLimits.scale, what: "a scale (pixels per point)")
    }

    /// A finite decimal number in `range` (no hex, nan or inf spellings).
    static func number(_ v: String, flag: String, in range: ClosedRange<Double>, what: String) throws(KioskError) -> Double {
        let allowed = Set("0123456789.eE+-")
        guard !v.isEmpty, v.allSatisfy({ allowed.contains($0) }), let d = Double(v), d.isFinite else {
            throw .usage("\(flag): expected \(what) (a number), found '\(v)'")
        }
        guard range.contains(d) else {
            throw .usage("\(flag): expected \(what) in \(short(range.lowerBound))…\(short(range.upperBound)), found \(v)")
        }
        return d
    }

    static func integer(_ v: String, flag: String, in range: ClosedRange<Int>, what: String) throws(KioskError) -> Int {
        guard let n = Int(v) else { throw .usage("\(flag): expected \(what) (a whole number), found '\(v)'") }
        guard range.contains(n) else { throw .usage("\(flag): expected \(what) in \(range.lowerBound)…\(range.upperBound), found \(v)") }
        return n
    }

    private static func short(_ d: Double) -> String { JSONNumber(d)?.text ?? "\(d)" }
}

/// One flag a subcommand accepts; `valueName` is nil for switches.
struct FlagSpec: Equatable {
    var name: String
    var valueName: String?
    var help: String
    /// How the flag reads in the synopsis: nil for "[--name VALUE]", "" to leave it out (it
    /// shares a token with the flag before it), or the token itself.
    var usage: String?

    init(name: String, valueName: String? = nil, help: String, usage: String? = nil) {
        self.name = name; self.valueName = valueName; self.help = help; self.usage = usage
    }

    /// The synopsis token, or nil when another flag's token covers this one.
    var synopsisToken: String? {
        if let usage { return usage.isEmpty ? nil : usage }
        return "[" + (valueName.map { "\(name) \($0)" } ?? name) + "]"
    }

    static func specs(for sub: KioskSubcommand) -> [FlagSpec] {
        switch sub {
        case .run: return run
        case .render: return render
        case .replay: return replay
        case .bench: return bench
        case .soak: return soak
        case .calibrate: return calibrate
        }
    }

    static let run: [FlagSpec] = [
        FlagSpec(name: "--windowed", help: "run in a window instead of full screen"),
        FlagSpec(name: "--size", valueName: "WxH", help: "window size (or full-screen mode) in pixels"),
        FlagSpec(name: "--rotate", valueName: "0|90|180|270", help: "turn the page clockwise on the screen"),
        FlagSpec(name: "--scale", valueName: "S", help: "pixels per point (default: automatic)"),
        FlagSpec(name: "--config", valueName: "FILE", help: "settings file (JSON) over the built-in defaults"),
        FlagSpec(name: "--prefs", valueName: "FILE", help: "preferences file (default: $XDG_CONFIG_HOME/darkmode-kiosk/preferences.json)"),
        FlagSpec(name: "--reduce-motion", help: "no ambient animation, short cross-fades (forced; without it the desktop portal's reduced-motion decides, live)"),
        FlagSpec(name: "--show-fps", help: "frame-time overlay (fps, work time, the last second's latency p50/max)"),
        FlagSpec(name: "--high-contrast", help: "high-contrast colour variants, labels at least 7:1 (forced; without it the desktop portal's contrast decides, live)"),
        FlagSpec(name: "--lang", valueName: "en|zh-Hans", help: "label language (default: config, then LC_ALL/LC_MESSAGES/LANG)"),
        FlagSpec(name: "--check", help: "check the config and flags, print the settings, exit (no display needed)"),
        FlagSpec(name: "--preflight", help: "exit 2 on what run would refuse (config, flags, files), silently otherwise; what run only warns about passes (a unit's ExecCondition=)"),
        FlagSpec(name: "--threads", valueName: "N", help: "threads that draw a busy frame (default: 2 with 2 or more cores, else 1; helpers sleep while the page is still)"),
    ]
    static let render: [FlagSpec] = [
        FlagSpec(name: "--out", valueName: "FILE.png", help: "the PNG to write (required)", usage: "--out FILE.png"),
        FlagSpec(name: "--width", valueName: "PX", help: "component width in pixels (image PX x PX*80/130 without --page)"),
        FlagSpec(name: "--page", valueName: "WxH", help: "render the whole page of this size (with --style/--width/--progress: the component centred)"),
        FlagSpec(name: "--progress", valueName: "P", help: "appearance progress, 0 light ... 1 dark"),
        FlagSpec(name: "--position", valueName: "Q", help: "celestial position progress (default: P)"),
        FlagSpec(name: "--time", valueName: "T", help: "ambient-animation clock in seconds (default 0)"),
        FlagSpec(name: "--static", help: "Reduce-Motion look: clouds at rest, all stars visible"),
        FlagSpec(name: "--light", help: "light mode (progress 0 unless given)", usage: "[--light|--dark]"),
        FlagSpec(name: "--dark", help: "dark mode (progress 1 unless given)", usage: ""),
        FlagSpec(name: "--scale", valueName: "S", help: "pixels per point (default 1)"),
        FlagSpec(name: "--page-color", valueName: "R,G,B", help: "page colour (0-255 each) instead of the mode's"),
        FlagSpec(name: "--style", valueName: "original|vivid", help: "the toggle's look (default original)"),
        FlagSpec(name: "--appearance", valueName: "system|light|dark", help: "the page's preference (system follows no preference: light)"),
        FlagSpec(name: "--high-contrast", help: "high-contrast colour variants"),
        FlagSpec(name: "--lang", valueName: "en|zh-Hans", help: "label language (default from LC_ALL/LC_MESSAGES/LANG)"),
        FlagSpec(name: "--config", valueName: "FILE", help: "page render: the kiosk's settings file (colours, language, background images)"),
    ]
    static let replay: [FlagSpec] = [
        FlagSpec(name: "--size", valueName: "WxH", help: "virtual window size in pixels"),
        FlagSpec(name: "--scale", valueName: "S", help: "pixels per point"),
        FlagSpec(name: "--prefs", valueName: "FILE", help: "preferences file to load and write"),
        FlagSpec(name: "--reduce-motion", help: "replay with Reduce Motion on"),
        FlagSpec(name: "--frames", help: "also one JSON line per rendered frame (position, appearance, celestialX, dirtyPixels)"),
    ]
    static let soak: [FlagSpec] = [
        FlagSpec(name: "--minutes", valueName: "N", help: "simulated minutes at 60 frames a second (default 1)"),
        FlagSpec(name: "--seed", valueName: "N", help: "random-input seed (default 1)"),
        FlagSpec(name: "--size", valueName: "WxH", help: "page size in pixels (default 1280x800)"),
        FlagSpec(name: "--scale", valueName: "S", help: "pixels per point (default 1)"),
    ]
    static let calibrate: [FlagSpec] = [
        FlagSpec(name: "--device", valueName: "NAME", help: "calibrate this touch device (its name, as in /proc/bus/input/devices; default: the first one touched; KMS/DRM only)"),
        FlagSpec(name: "--print", help: "also print the config key and the udev rule line (LIBINPUT_CALIBRATION_MATRIX)"),
        FlagSpec(name: "--rotate", valueName: "0|90|180|270", help: "the page's turn the kiosk runs with (default 0)"),
        FlagSpec(name: "--config", valueName: "FILE", help: "the config file whose input.calibration is written (default /etc/darkmode-kiosk/kiosk.json)"),
    ]
    static let bench: [FlagSpec] = [
        FlagSpec(name: "--size", valueName: "WxH", help: "page size in pixels"),
        FlagSpec(name: "--scale", valueName: "S", help: "pixels per point"),
        FlagSpec(name: "--frames", valueName: "N", help: "frames per scenario (at least 1)"),
        FlagSpec(name: "--scenario", valueName: "NAME", help: "ambient, tap, drag, theme, idle, save or all (default all)",
                 usage: "[--scenario NAME|all]"),
        FlagSpec(name: "--json", valueName: "FILE", help: "also write the results as JSON"),
        FlagSpec(name: "--frames-json", valueName: "FILE", help: "also write every counted frame's wall and CPU time and changed pixels as JSON"),
        FlagSpec(name: "--full-redraw", help: "redraw the whole page every frame (no dirty rectangles)"),
        FlagSpec(name: "--raster", help: "time the rasterizer alone"),
        FlagSpec(name: "--config", valueName: "FILE", help: "the page as this settings file configures it (colours, language, background images)"),
        FlagSpec(name: "--threads", valueName: "N", help: "threads that draw a frame (default: 2 with 2 or more cores, else 1)"),
        FlagSpec(name: "--latency", help: "touch-to-screen latency of taps and drags on a simulated 60 Hz display, against the floor"),
        FlagSpec(name: "--seed", valueName: "N", help: "random taps and drags of --latency (default 1)"),
        FlagSpec(name: "--plot", valueName: "FILE", help: "also draw frame times (and latency) as a PNG picture"),
    ]
}
