#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Raster
import Testing
@testable import KioskSupport
@testable import KioskTools

/// Round three (issue #32) through the real binary: the files the project ships load as they
/// are (#2), process limits end in one clear line (#13), and the words the kiosk uses say what
/// is true (#14, #16).
@Suite struct ShippedFilesAndLimitsTests {
    static let packageRoot = FileIO.directoryName(FileIO.directoryName(FileIO.directoryName(#filePath)))
    static let configFolder = FileIO.join(packageRoot, "config")

    // MARK: - #2: every shipped file loads

    /// Every file under config/ goes through the binary the way a kiosk owner uses it. A new
    /// file there fails this test until it is given a way to be loaded here.
    @Test func everyFileUnderConfigLoads() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.configFolder).sorted()
        #expect(names == ["colors.json", "darkmode-kiosk-kmsdrm.service", "darkmode-kiosk-splash-handover.service",
                          "darkmode-kiosk.service", "darkmode-kiosk.service.d", "kiosk.json"],
                "config/ changed: give each new file a load below")
        let dir = TempFolder()
        for name in names {
            let path = FileIO.join(Self.configFolder, name)
            switch name {
            case "kiosk.json":
                let o = try runKiosk(["run", "--check", "--config", path, "--prefs", dir.file("p.json")], in: dir)
                #expect(o.status == 0 && o.stderr.isEmpty, "\(name): \(o.status.map(String.init) ?? "-") \(o.stderr)")
            case "colors.json":
                let config = dir.file("with-colors.json")
                writeText(#"{"colors": "\#(path)"}"#, to: config)
                let o = try runKiosk(["run", "--check", "--config", config, "--prefs", dir.file("p.json")], in: dir)
                #expect(o.status == 0 && o.stderr.isEmpty, "\(name): \(o.status.map(String.init) ?? "-") \(o.stderr)")
                // The shipped sets are the built-in ones written out: the page is the same, byte
                // for byte, translucent labels and tints included.
                for mode in ["--light", "--dark"] {
                    let a = dir.file("shipped\(mode).png"), b = dir.file("builtin\(mode).png")
                    let withFile = try runKiosk(["render", "--page", "360x780", mode, "--config", config, "--out", a], in: dir)
                    let builtIn = try runKiosk(["render", "--page", "360x780", mode, "--out", b], in: dir)
                    #expect(withFile.status == 0 && builtIn.status == 0, "\(withFile.stderr) \(builtIn.stderr)")
                    #expect(readBytes(a) != nil && readBytes(a) == readBytes(b), "\(mode): the shipped colour sets draw another page")
                }
            case "darkmode-kiosk-splash-handover.service":
                // Plymouth's hand-over after the kiosk's READY=1: Tests/e2e/systemd-unit.sh verifies it.
                #expect(readText(path)?.contains("ExecStart=/bin/plymouth quit --retain-splash") == true)
            case "darkmode-kiosk.service", "darkmode-kiosk-kmsdrm.service":
                // Units, not the binary's input: Tests/e2e/systemd-unit.sh verifies and runs them.
                #expect(readText(path)?.contains("ExecStart=") == true)
            case "darkmode-kiosk.service.d":
                // The fleet's drop-in (docs/fleet.md): systemd-unit.sh verifies it with the unit.
                let inside = try FileManager.default.contentsOfDirectory(atPath: path)
                #expect(inside == ["mqtt-broker.conf"], "\(inside)")
                #expect(readText(FileIO.join(path, "mqtt-broker.conf"))?.contains("IPAddressAllow=") == true)
            default:
                Issue.record("config/\(name): no load for this file")
            }
        }
    }

    /// Labels, tints, hairlines and the focus ring are drawn over the page: their alpha loads as
    /// written (it was forced to 255, or refused unless 255).
    @Test func translucentColoursLoadAsWritten() throws {
        let dir = TempFolder()
        let colors = dir.file("colors.json"), config = dir.file("kiosk.json")
        writeText(#"{"label": {"light": [255, 0, 0, 40]}, "materialTint": {"light": [0, 0, 255, 0]}}"#, to: colors)
        writeText(#"{"colors": "\#(colors)"}"#, to: config)
        let check = try runKiosk(["run", "--check", "--config", config, "--prefs", dir.file("p.json")], in: dir)
        #expect(check.status == 0, "\(check.stderr)")
        // Through the renderer: a faint label differs from the same label drawn opaque.
        writeText(#"{"label": {"light": [255, 0, 0, 255]}}"#, to: dir.file("opaque.json"))
        writeText(#"{"colors": "\#(dir.file("opaque.json"))"}"#, to: dir.file("opaque-config.json"))
        let faint = try runKiosk(["render", "--page", "360x780", "--light", "--config", config, "--out", dir.file("faint.png")], in: dir)
        let opaque = try runKiosk(["render", "--page", "360x780", "--light", "--config", dir.file("opaque-config.json"),
                                   "--out", dir.file("opaque.png")], in: dir)
        #expect(faint.status == 0 && opaque.status == 0, "\(faint.stderr) \(opaque.stderr)")
        let a = try PNG.decode(try #require(readBytes(dir.file("faint.png"))))
        let b = try PNG.decode(try #require(readBytes(dir.file("opaque.png"))))
        let redder = zip(a.pixelArray, b.pixelArray).filter { $0 != $1 }.count
        #expect(redder > 100, "the label's alpha made no difference (\(redder) pixels differ)")
    }

    /// The page's own colour stays opaque, in a colour-sets file as in the config's theme.
    @Test func translucentPageBackgroundIsStillRefused() throws {
        let dir = TempFolder()
        let colors = dir.file("colors.json"), config = dir.file("kiosk.json")
        writeText(#"{"pageBackground": {"dark": [10, 10, 10, 128]}}"#, to: colors)
        writeText(#"{"colors": "\#(colors)"}"#, to: config)
        let o = try runKiosk(["run", "--check", "--config", config], in: dir)
        expectCleanStderr(o, "pageBackground alpha")
        #expect(o.status == 2)
        #expect(o.stderr.contains("pageBackground.dark[3]") && o.stderr.contains("opaque"), "\(o.stderr)")
    }

    // MARK: - #13: limits of the process

    /// A shell that lowers a limit, then runs the kiosk.
    func runLimited(_ limit: String, _ arguments: [String], in dir: TempFolder) throws -> ProcessOutcome {
        let exe = try #require(KioskExecutable.path)
        let quoted = ([exe] + arguments).map { "'" + $0 + "'" }.joined(separator: " ")
        return try ChildProcess.run("/bin/sh", ["-c", "ulimit \(limit) && exec \(quoted)"], folder: dir.path, timeout: 60)
    }

    /// Too few descriptors for SDL and D-Bus: one line naming the limit, exit 1, before any
    /// library aborts (SIGABRT inside libdbus at 10–12, wrong advice about X11 at 6–8).
    @Test(arguments: ["6", "8", "10", "12"])
    func tooFewOpenFilesIsOneLine(_ n: String) throws {
        let dir = TempFolder()
        let o = try runLimited("-n \(n)", ["run", "--windowed", "--prefs", dir.file("p.json")], in: dir)
        expectCleanStderr(o, "ulimit -n \(n)")
        #expect(o.status == 1 && o.signal == nil, "status \(o.status.map(String.init) ?? "-") signal \(o.signal ?? 0): \(o.stderr)")
        #expect(o.stderrLines.count == 1 && o.stderr.contains("open files") && o.stderr.contains("ulimit -n"), "\(o.stderr)")
        #expect(!o.stderr.contains("video driver"), "\(o.stderr)")
    }

    /// Too little address space for the page asked for: one line, exit 1, no crash report.
    @Test func tooLittleMemoryForAPageRenderIsOneLine() throws {
        let dir = TempFolder()
        let o = try runLimited("-v 150000", ["render", "--page", "4096x4096", "--out", dir.file("big.png")], in: dir)
        expectCleanStderr(o, "ulimit -v")
        #expect(o.status == 1 && o.signal == nil, "status \(o.status.map(String.init) ?? "-") signal \(o.signal ?? 0): \(o.stderr)")
        #expect(o.stderrLines.count == 1 && o.stderr.contains("memory") && o.stderr.contains("4096x4096"), "\(o.stderr)")
        #expect(readBytes(dir.file("big.png")) == nil)
    }

    // MARK: - #14, #16: words and flags that say what is true

    @Test func backgroundImagesOverFourThousandPixelsASideAreRefused() throws {
        for (w, h, ok) in [(4097, 1, false), (5000, 3000, false), (4096, 2, true)] {
            let dir = TempFolder()
            writeBytes(try PageBackgroundFileTests.png(w, h, [10, 20, 30]), to: dir.file("bg.png"))
            writeText(#"{"page": {"background": {"light": "\#(dir.file("bg.png"))"}}}"#, to: dir.file("kiosk.json"))
            let o = try runKiosk(["run", "--check", "--config", dir.file("kiosk.json"), "--prefs", dir.file("p.json")], in: dir)
            expectCleanStderr(o, "\(w)x\(h)")
            if ok {
                #expect(o.status == 0, "\(w)x\(h): \(o.stderr)")
            } else {
                #expect(o.status == 2 && o.stderr.contains("\(w)x\(h)") && o.stderr.contains("4096x4096"), "\(w)x\(h): \(o.stderr)")
            }
        }
    }

    /// A PNG that is broken for another reason does not blame the size.
    @Test func brokenPNGErrorDoesNotMentionTheSizeLimit() throws {
        let dir = TempFolder()
        var bytes = try PageBackgroundFileTests.png(8, 8, [1, 2, 3])
        bytes.removeLast(bytes.count / 2)
        writeBytes(bytes, to: dir.file("bg.png"))
        writeText(#"{"page": {"background": {"dark": "\#(dir.file("bg.png"))"}}}"#, to: dir.file("kiosk.json"))
        let o = try runKiosk(["run", "--check", "--config", dir.file("kiosk.json")], in: dir)
        expectCleanStderr(o, "truncated PNG")
        #expect(o.status == 2 && o.stderr.contains("page.background.dark"), "\(o.stderr)")
        #expect(!o.stderr.contains("4096"), "\(o.stderr)")
    }

    /// `--lang` is checked the same way whatever is rendered (the toggle alone exited 0).
    @Test(arguments: [["--width", "200"], ["--page", "360x780"], [String]()])
    func unknownLanguageIsRefusedByEveryRender(_ extra: [String]) throws {
        let dir = TempFolder()
        let o = try runKiosk(["render", "--lang", "xx", "--out", dir.file("x.png")] + extra, in: dir)
        expectCleanStderr(o, "--lang xx")
        #expect(o.status == 2 && o.stderr.contains("--lang") && o.stderr.contains("unknown language \"xx\""), "\(o.stderr)")
        let run = try runKiosk(["run", "--check", "--lang", "xx"], in: dir)
        #expect(run.status == 2 && run.stderr.contains("unknown language \"xx\""), "\(run.stderr)")
    }

    /// `render --page --time T` draws the page T seconds after its start, as the component
    /// render does: the stars twinkle (at the first instant they were all at opacity 0).
    @Test func pageRenderHonoursTime() throws {
        let dir = TempFolder()
        func render(_ t: String, _ name: String) throws -> Pixmap {
            let o = try runKiosk(["render", "--page", "360x780", "--dark", "--time", t, "--out", dir.file(name)], in: dir)
            #expect(o.status == 0, "\(o.stderr)")
            return try PNG.decode(try #require(readBytes(dir.file(name))))
        }
        let start = try render("0", "t0.png"), later = try render("1.7", "t17.png"), again = try render("1.7", "t17b.png")
        let moved = start.pixelArray != later.pixelArray, same = later.pixelArray == again.pixelArray
        #expect(moved, "--time 1.7 drew the page's first instant")
        #expect(same, "two renders at --time 1.7 differ")
    }
}

private extension Pixmap {
    /// The packed pixels, row after row (for comparing two renders).
    var pixelArray: [UInt32] { Array(UnsafeBufferPointer(start: pixels, count: width * height)) }
}
