import Testing
@testable import KioskTools
@testable import KioskEngine
@testable import KioskSupport

@Suite struct CommandLineTests {
    func parse(_ args: [String]) throws(KioskError) -> KioskCommand { try CommandLineParser.parse(args) }

    func usageError(_ args: [String]) -> String? {
        do { _ = try parse(args); return nil } catch {
            #expect(error.kind == .usage && error.exitStatus == 2)
            return error.message
        }
    }

    @Test func noArgumentsRunsWithNothingOverridden() throws {
        #expect(try parse([]) == .run(RunOptions()))
        #expect(try parse(["run"]) == .run(RunOptions()))
    }

    @Test func runFlagsInBothForms() throws {
        var expected = RunOptions()
        expected.windowed = true
        expected.size = PixelSize(width: 800, height: 480)
        expected.rotate = .clockwise90
        expected.scale = 2
        expected.configPath = "/etc/k.json"
        expected.prefsPath = "p.json"
        expected.reduceMotion = true
        expected.showFPS = true
        let spaced = ["--windowed", "--size", "800x480", "--rotate", "90", "--scale", "2", "--config", "/etc/k.json",
                      "--prefs", "p.json", "--reduce-motion", "--show-fps"]
        let joined = ["run", "--show-fps", "--size=800x480", "--rotate=90", "--scale=2", "--config=/etc/k.json",
                      "--prefs=p.json", "--reduce-motion", "--windowed"]
        #expect(try parse(spaced) == .run(expected))
        #expect(try parse(joined) == .run(expected))
    }

    @Test func renderOptionsAndResolvedValues() throws {
        guard case .render(let r) = try parse(["render", "--out", "a.png", "--width=520", "--page", "1024x600",
                                               "--progress", "0.25", "--time", "3.5", "--static", "--dark", "--scale", "2"]) else {
            Issue.record("not render"); return
        }
        #expect(r.outPath == "a.png" && r.width == 520 && r.page == PixelSize(width: 1024, height: 600))
        #expect(r.progress == 0.25 && r.position == nil && r.time == 3.5 && r.isStatic && r.appearance == .dark && r.scale == 2)
        #expect(r.resolvedPosition == 0.25)
        #expect(r.resolvedIsDark)

        guard case .render(let d) = try parse(["render", "--out=b.PNG", "--dark"]) else { Issue.record("not render"); return }
        #expect(d.resolvedProgress == 1 && d.resolvedPosition == 1 && d.resolvedWidth == 260 && d.time == 0)
        guard case .render(let p) = try parse(["render", "--out=c.png", "--progress", "0.75", "--position", "0.5", "--scale", "3"]) else {
            Issue.record("not render"); return
        }
        #expect(p.resolvedIsDark && p.resolvedPosition == 0.5 && p.resolvedWidth == 780)
        guard case .render(let l) = try parse(["render", "--out=c.png", "--light"]) else { Issue.record("not render"); return }
        #expect(!l.resolvedIsDark && l.resolvedProgress == 0)
    }

    @Test func replayAndBench() throws {
        var replay = ReplayOptions(tracePath: "t.jsonl")
        replay.size = PixelSize(width: 640, height: 480)
        replay.scale = 1.5
        replay.prefsPath = "/tmp/p.json"
        replay.reduceMotion = true
        #expect(try parse(["replay", "--size", "640x480", "t.jsonl", "--scale=1.5", "--prefs", "/tmp/p.json", "--reduce-motion"]) == .replay(replay))
        #expect(try parse(["replay", "--", "-odd.jsonl"]) == .replay(ReplayOptions(tracePath: "-odd.jsonl")))

        var bench = BenchOptions()
        bench.size = PixelSize(width: 1920, height: 1080)
        bench.scale = 2
        bench.frames = 120
        bench.scenario = .drag
        bench.jsonPath = "out.json"
        bench.framesJSONPath = "frames.json"
        bench.fullRedraw = true
        bench.raster = true
        bench.lanes = 2
        #expect(try parse(["bench", "--size=1920x1080", "--scale", "2", "--frames", "120", "--scenario", "drag",
                           "--json", "out.json", "--frames-json", "frames.json", "--full-redraw", "--raster", "--threads", "2"]) == .bench(bench))
        #expect(try parse(["bench"]) == .bench(BenchOptions()))
        #expect(BenchScenario.all.expanded == [.ambient, .tap, .drag, .theme, .idle])
        #expect(BenchScenario.idle.expanded == [.idle])
    }

    @Test func helpAndVersion() throws {
        #expect(try parse(["--help"]) == .help(nil))
        #expect(try parse(["-h"]) == .help(nil))
        #expect(try parse(["help", "bench"]) == .help(.bench))
        #expect(try parse(["render", "--out", "x.png", "--help"]) == .help(.render))
        #expect(try parse(["--windowed", "--help"]) == .help(.run))
        #expect(try parse(["--version"]) == .version)
        #expect(usageError(["--version", "--windowed"]) != nil)
    }

    @Test func helpTextListsEveryFlagOfEverySubcommand() {
        #expect(HelpText.general.contains("darkmode-kiosk --help | --version"))
        for sub in KioskSubcommand.allCases {
            #expect(HelpText.general.contains("darkmode-kiosk \(sub == .run ? "[run]" : sub.rawValue)"))
            let text = HelpText.text(for: sub)
            for spec in FlagSpec.specs(for: sub) {
                #expect(text.contains(spec.name), "\(sub): \(spec.name)")
                #expect(HelpText.general.contains(spec.name), "general: \(spec.name)")
            }
        }
    }

    @Test(arguments: [
        (["--fullscreen"], "unknown flag --fullscreen for 'run'"),
        (["--windowd"], "did you mean --windowed?"),
        (["render", "--out", "a.png", "--sizee", "3x3"], "unknown flag --sizee for 'render'"),
        (["--size"], "flag --size needs a value: --size WxH"),
        (["--size", "--windowed"], "flag --size needs a value"),
        (["--size="], "flag --size needs a value"),
        (["--size", "0x10"], "--size: expected a size WxH with both sides whole numbers in 1…16384 (e.g. 1024x600), found '0x10'"),
        (["--size", "abc"], "found 'abc'"),
        (["--rotate", "45"], "--rotate: expected one of 0, 90, 180, 270, found '45'"),
        (["--scale", "0"], "--scale: expected a scale (pixels per point) in 0.25…16, found 0"),
        (["--scale", "-1"], "--scale: expected a scale"),
        (["--scale", "nan"], "--scale: expected a scale (pixels per point) (a number), found 'nan'"),
        (["--scale", "inf"], "found 'inf'"),
        (["--scale", "0x1p1"], "found '0x1p1'"),
        (["--scale", "1e999"], "found '1e999'"),
        (["--windowed=yes"], "flag --windowed takes no value"),
        (["--windowed", "--windowed"], "flag --windowed is given more than once"),
        (["run", "extra"], "unexpected argument 'extra' for 'run'"),
        (["rendr"], "unknown command 'rendr'"),
        (["rendr"], "did you mean 'render'?"),
        (["render"], "render needs --out FILE.png"),
        (["render", "--out", "a.jpg"], "--out: expected a file name ending in .png, found 'a.jpg'"),
        (["render", "--out", "a.png", "--light", "--dark"], "--light and --dark exclude each other"),
        (["render", "--out", "a.png", "--progress", "1.5"], "--progress: expected a progress in 0…1, found 1.5"),
        (["render", "--out", "a.png", "--position", "-0.1"], "--position: expected a position progress in 0…1, found -0.1"),
        (["render", "--out", "a.png", "--time", "-1"], "--time: expected a time in seconds"),
        (["render", "--out", "a.png", "--width", "2.5"], "--width: expected a width in pixels (a whole number), found '2.5'"),
        (["render", "--out", "a.png", "--width", "0"], "--width: expected a width in pixels in 1…16384, found 0"),
        (["replay"], "replay needs a trace file"),
        (["replay", "a.jsonl", "b.jsonl"], "unexpected argument 'b.jsonl' for 'replay'"),
        (["bench", "--frames", "0"], "--frames: expected a frame count in 1…10000000, found 0"),
        (["bench", "--threads", "0"], "--threads: expected a thread count in 1…8, found 0"),
        (["run", "--threads", "two"], "--threads: expected a thread count"),
        (["bench", "--scenario", "spin"], "--scenario: expected one of ambient, tap, drag, theme, idle, save, all, found 'spin'"),
        (["help", "dance"], "unknown command 'dance'"),
    ])
    func badUsageNamesTheFlag(_ args: [String], _ phrase: String) throws {
        let message = try #require(usageError(args), "\(args) parsed")
        #expect(message.contains(phrase), "\(message)")
    }

    @Test func negativeNumbersAreValuesNotFlags() throws {
        let message = try #require(usageError(["render", "--out", "a.png", "--progress", "-0.5"]))
        #expect(message.contains("--progress: expected a progress in 0…1, found -0.5"))
    }

    @Test func errorsPrintWithTheProgramPrefix() {
        #expect(KioskError.runtime("x").exitStatus == 1)
        #expect(KioskError.input("x").exitStatus == 2)
        #expect(KioskVersion.line.hasPrefix("darkmode-kiosk "))
    }
}

@Suite struct RunCheckTests {
    @Test func checkFlagParsesAndTheSummaryNamesTheSettings() throws {
        guard case .run(let o) = try CommandLineParser.parse(["--check", "--rotate", "90", "--prefs", "/tmp/p.json"]) else {
            Issue.record("expected run"); return
        }
        #expect(o.checkOnly)
        let settings = RunSettings.merge(config: .defaults, flags: o, environment: [:], passwdHome: { nil })
        #expect(settings.summary.contains("rotate 90"))
        #expect(settings.summary.contains("preferences: /tmp/p.json"))
        #expect(settings.summary.contains("page colours: light 235,246,255, dark 66,66,66"))
    }
}
