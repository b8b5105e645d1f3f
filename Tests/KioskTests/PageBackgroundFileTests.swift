#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Raster
import Testing
@testable import KioskEngine
@testable import KioskSupport
@testable import KioskTools

/// The config's background images end to end: reading and checking the files (every bad file
/// is an input error naming the config, the key and the image), `render --page --config`
/// drawing them, and `run --check` printing them.
@Suite struct PageBackgroundFileTests {
    static let lightRGB: [UInt8] = [200, 40, 40], darkRGB: [UInt8] = [20, 40, 160]

    /// A solid opaque PNG of `w × h`.
    static func png(_ w: Int, _ h: Int, _ rgb: [UInt8]) throws -> [UInt8] {
        let p = Pixmap(width: w, height: h)
        p.fill(p.bounds, with: StraightRGBA8(r: rgb[0], g: rgb[1], b: rgb[2], a: 255).premultiplied.packed)
        return try PNG.encode(p)
    }

    /// CRC-32 (PNG chunks).
    static func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            c ^= UInt32(b)
            for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        }
        return ~c
    }

    /// A real PNG whose header claims `w × h` (the chunk's CRC recomputed): what a decoder
    /// must refuse before allocating.
    static func pngClaiming(_ w: UInt32, _ h: UInt32) throws -> [UInt8] {
        var b = try png(2, 2, [1, 2, 3])
        // Signature (8), IHDR length (4), "IHDR" (4), width (4), height (4), … CRC after 13 data bytes.
        for (i, v) in [w, h].enumerated() {
            for k in 0..<4 { b[16 + 4 * i + k] = UInt8((v >> (24 - 8 * UInt32(k))) & 0xFF) }
        }
        let crc = crc32(b[12..<(12 + 4 + 13)])
        for k in 0..<4 { b[29 + k] = UInt8((crc >> (24 - 8 * UInt32(k))) & 0xFF) }
        return b
    }

    func load(light: String?, dark: String? = nil, fit: PageBackgroundFit = .cover) throws(KioskError) -> PageBackground? {
        var b = KioskConfig.Page.Background()
        b.light = light
        b.dark = dark
        b.fit = fit
        return try PageBackgroundFile.load(b, configFile: "/etc/kiosk.json")
    }

    func problem(_ path: String) -> KioskError? {
        do { _ = try load(light: path); return nil } catch { return error }
    }

    @Test func goodImagesAreDecodedOnce() throws {
        let dir = TempFolder()
        writeBytes(try Self.png(6, 4, Self.lightRGB), to: dir.file("l.png"))
        let bg = try #require(try load(light: dir.file("l.png"), fit: .contain))
        #expect(bg.light?.width == 6 && bg.light?.height == 4 && bg.dark == nil && bg.fit == .contain)
        #expect(bg.light?.color(x: 5, y: 3).unpremultiplied == StraightRGBA8(r: 200, g: 40, b: 40, a: 255))
        #expect(PageBackgroundFile.summary(bg) == "light 6x4 px, dark none")
        #expect(try load(light: nil, dark: nil) == nil)
    }

    @Test func everyBadFileNamesTheKeyAndTheFile() throws {
        let dir = TempFolder()
        let prefix = "config file /etc/kiosk.json: page.background.light: "
        func expectProblem(_ path: String, _ phrase: String) {
            guard let e = problem(path) else { Issue.record("\(path) was accepted"); return }
            #expect(e.kind == .input && e.exitStatus == 2)
            #expect(e.message.hasPrefix(prefix + path + ": "), "\(e.message)")
            #expect(e.message.contains(phrase), "\(e.message)")
        }
        expectProblem(dir.file("missing.png"), "no such file")
        expectProblem(dir.path, "is a directory, expected a PNG file")
        writeText("not an image\n", to: dir.file("text.png"))
        expectProblem(dir.file("text.png"), "not a PNG file (it does not start with the PNG signature)")
        writeBytes([], to: dir.file("empty.png"))
        expectProblem(dir.file("empty.png"), "is empty")
        writeBytes(Array(try Self.png(40, 40, Self.lightRGB).prefix(60)), to: dir.file("cut.png"))
        expectProblem(dir.file("cut.png"), "not a usable PNG image")
        writeBytes(try Self.pngClaiming(5000, 5000), to: dir.file("huge.png"))
        expectProblem(dir.file("huge.png"), "5000x5000")
        // The claimed size is checked, not just the file size: 4096 × 4096 claimed passes the
        // header check and fails later only because the data is missing.
        writeBytes(try Self.pngClaiming(4096, 4096), to: dir.file("edge.png"))
        #expect(problem(dir.file("edge.png"))?.message.contains("4096x4096 pixels is") == false)
        // Over the byte limit (a sparse file: no disk used).
        let big = dir.file("big.png")
        writeBytes(PNG.signature, to: big)
        #expect(truncate(big, off_t(PageBackgroundFile.byteLimit + 1)) == 0)
        expectProblem(big, "larger than 33554432 bytes")
        #if canImport(Glibc)
        if getuid() != 0 {
            writeBytes(try Self.png(2, 2, Self.lightRGB), to: dir.file("locked.png"))
            chmod(dir.file("locked.png"), 0)
            expectProblem(dir.file("locked.png"), "cannot be read (Permission denied)")
        }
        #endif
    }

    @Test func bothAppearancesAreCheckedBeforeReporting() throws {
        let dir = TempFolder()
        do {
            _ = try load(light: dir.file("a.png"), dark: dir.file("b.png"))
            Issue.record("missing files accepted")
        } catch {
            let lines = error.message.split(separator: "\n")
            #expect(lines.count == 2)
            #expect(lines[0].contains("page.background.light: \(dir.file("a.png")): no such file"))
            #expect(lines[1].contains("page.background.dark: \(dir.file("b.png")): no such file"))
        }
    }

    /// A config folder with two solid images named relative to it.
    static func configFolder(fit: String = "cover") throws -> TempFolder {
        let dir = TempFolder()
        mkdir(dir.file("img"), 0o755)
        writeBytes(try png(16, 9, lightRGB), to: dir.file("img/day.png"))
        writeBytes(try png(16, 9, darkRGB), to: dir.file("img/night.png"))
        writeText(#"{"page": {"background": {"light": "img/day.png", "dark": "img/night.png", "fit": "\#(fit)"}}}"#,
                  to: dir.file("kiosk.json"))
        return dir
    }

    static func render(_ flags: [String]) throws -> Pixmap {
        guard case .render(let o) = try CommandLineParser.parse(["render", "--out", "x.png", "--page", "320x240", "--lang", "en"] + flags) else {
            throw KioskError.usage("not a render command")
        }
        return try RenderCommand.pageImage(o, warn: { _ in })
    }

    /// `render --page --config`: the light image in light, the dark one in dark, the page
    /// colour without the config; the toggles and labels drawn on top.
    @Test func renderDrawsTheConfiguredImages() throws {
        let dir = try Self.configFolder()
        let light = try Self.render(["--light", "--config", dir.file("kiosk.json")])
        let dark = try Self.render(["--dark", "--config", dir.file("kiosk.json")])
        let plain = try Self.render(["--light"])
        let l = StraightRGBA8(r: 200, g: 40, b: 40, a: 255), d = StraightRGBA8(r: 20, g: 40, b: 160, a: 255)
        for (x, y) in [(0, 0), (319, 0), (0, 239), (319, 239), (160, 3)] {
            #expect(light.color(x: x, y: y).unpremultiplied == l, "light at (\(x), \(y))")
            #expect(dark.color(x: x, y: y).unpremultiplied == d, "dark at (\(x), \(y))")
            #expect(plain.color(x: x, y: y).unpremultiplied == StraightRGBA8(r: 235, g: 246, b: 255, a: 255))
        }
        // The toggles and the button sit over the image.
        let layout = PageLayout(pixelWidth: 320, pixelHeight: 240, scale: 1, toggleWidth: 260)
        let t = layout.frame(of: .original), b = layout.buttonPixelFrame
        #expect(light.color(x: Int(t.midX), y: Int(t.midY)).unpremultiplied != l)
        #expect(light.color(x: Int(b.midX), y: Int(b.minY) + 3).unpremultiplied != l)
        // contain: a 16:9 image on a 4:3 page leaves page-coloured bands above and below.
        let containDir = try Self.configFolder(fit: "contain")
        let contain = try Self.render(["--light", "--config", containDir.file("kiosk.json")])
        #expect(contain.color(x: 160, y: 2).unpremultiplied == StraightRGBA8(r: 235, g: 246, b: 255, a: 255))
        #expect(contain.color(x: 2, y: 120).unpremultiplied == l)
    }

    @Test func renderConfigErrorsAndComponentRendersRefuseIt() throws {
        let dir = TempFolder()
        writeText(#"{"page": {"background": {"dark": "nowhere.png"}}}"#, to: dir.file("k.json"))
        do {
            _ = try Self.render(["--dark", "--config", dir.file("k.json")])
            Issue.record("a missing image was accepted")
        } catch let e as KioskError {
            #expect(e.exitStatus == 2)
            #expect(e.message == "config file \(dir.file("k.json")): page.background.dark: \(dir.file("nowhere.png")): no such file")
        }
        #expect(throws: KioskError.self) {
            try CommandLineParser.parse(["render", "--out", "x.png", "--page", "320x240", "--style", "vivid", "--config", dir.file("k.json")])
        }
        #expect(throws: KioskError.self) { try CommandLineParser.parse(["render", "--out", "x.png", "--config", dir.file("k.json")]) }
    }

    /// The real binary: `run --check` names the files and prints the decoded sizes; a broken
    /// image stops it with exit status 2 and a message naming the key and the file.
    @Test func runCheckPrintsTheImagesAndRefusesBadOnes() throws {
        let dir = try Self.configFolder()
        let ok = try runKiosk(["run", "--check", "--config", dir.file("kiosk.json"), "--prefs", dir.file("p.json")], in: dir)
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(ok.stdout.contains("page background: light \(dir.file("img/day.png")), dark \(dir.file("img/night.png")), fit cover\n"), "\(ok.stdout)")
        #expect(ok.stdout.contains("page background images: light 16x9 px, dark 16x9 px\n"), "\(ok.stdout)")
        writeText("GIF89a", to: dir.file("img/night.png"))
        let bad = try runKiosk(["run", "--check", "--config", dir.file("kiosk.json"), "--prefs", dir.file("p.json")], in: dir)
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("config file \(dir.file("kiosk.json")): page.background.dark: \(dir.file("img/night.png")): not a PNG file"), "\(bad.stderr)")
        #expect(!looksLikeCrash(bad.stderr))
        let plain = try runKiosk(["run", "--check", "--prefs", dir.file("p.json")], in: dir)
        #expect(plain.stdout.contains("page background: none (page colours only)\n"), "\(plain.stdout)")
        #expect(!plain.stdout.contains("page background images"))
    }
}
