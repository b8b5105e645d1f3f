// text-probe: renders a sample of the page's labels and measures the text stack.
//   text-probe sample --out FILE.png [--scale S] [--sf-tracking]   both languages, light and dark
//   text-probe measure [--scale S] [--frames N]    RSS of loading fonts, shaping and drawing times
import Foundation
import KioskSupport
import Raster
import Text

struct Failure: Error, CustomStringConvertible {
    let description: String
    let code: Int32
}

func statusKB(_ key: String) -> Int {
    guard let s = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
    for line in s.split(separator: "\n") where line.hasPrefix(key + ":") {
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? -1
    }
    return -1
}

func mb(_ kb: Int) -> String { fixed(Double(kb) / 1024, 1) + " MB" }

/// `s` padded with spaces to `width` characters: on the right (`left` aligned) or on the left.
func padded(_ s: String, _ width: Int, left: Bool = true) -> String {
    let fill = String(repeating: " ", count: max(0, width - s.count))
    return left ? s + fill : fill + s
}

/// VmRSS / VmHWM and the anonymous vs file-backed split of the resident set.
func memory() -> String {
    "RSS \(mb(statusKB("VmRSS"))) (anon \(mb(statusKB("RssAnon"))), file \(mb(statusKB("RssFile")))), HWM \(mb(statusKB("VmHWM")))"
}

func seconds(_ d: Duration) -> Double {
    Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
}

func percentile(_ xs: [Double], _ p: Double) -> Double { KioskSupport.percentile(sorted: xs.sorted(), p) ?? .nan }

/// Labels with their point sizes (headline 17 pt, callout 16 pt).
func labels(_ t: StringTable) -> [(String, Double)] {
    [(t[.original], 17), (t[.vivid], 17), (t[.useSystemSetting], 16), (t[.followingSystem], 16)]
}

/// SF Pro's built-in tracking (Apple HIG table, points at that size) as em: 16 pt −0.31, 17 pt −0.43.
func sfProTracking(points: Double) -> Double {
    let table: [Double: Double] = [16: -0.31, 17: -0.43]
    return (table[points] ?? 0) / points
}

func option(_ args: [String], _ name: String) throws -> String? {
    guard let i = args.firstIndex(of: name) else { return nil }
    guard i + 1 < args.count else { throw Failure(description: "\(name) needs a value", code: 2) }
    return args[i + 1]
}

func number(_ args: [String], _ name: String, _ def: Double) throws -> Double {
    guard let s = try option(args, name) else { return def }
    guard let v = Double(s), v > 0, v.isFinite else {
        throw Failure(description: "\(name): expected a positive number, got \"\(s)\"", code: 2)
    }
    return v
}

func sample(_ args: [String]) throws {
    guard let out = try option(args, "--out") else { throw Failure(description: "sample needs --out FILE.png", code: 2) }
    let scale = try number(args, "--scale", 2)
    let sfTracking = args.contains("--sf-tracking")
    let lib = try FontLibrary()
    let pad = 12.0 * scale
    let w = Int(560 * scale), rowH = 30.0 * scale
    let langs = Language.allCases
    let h = Int(Double(langs.count * 4) * rowH + 2 * pad)
    let pix = Pixmap(width: w, height: h)
    let canvas = Canvas(pix)
    let half = w / 2
    canvas.fill(deviceRect: IntRect(x: 0, y: 0, width: half, height: h), Color(r255: 235, g255: 246, b255: 255))
    canvas.fill(deviceRect: IntRect(x: half, y: 0, width: w - half, height: h), Color(r255: 66, g255: 66, b255: 66))
    var y = pad
    for lang in langs {
        let fonts = try lib.fontSet(family: "Inter", weight: .semibold, language: lang.tag)
        for w in fonts.warnings { FileHandle.standardError.write(Data("\(w)\n".utf8)) }
        let renderer = GlyphRenderer(fonts: fonts)
        for (text, pt) in labels(StringTable(lang)) {
            let line = Shaper.shape(text, pixelSize: pt * scale, fonts: fonts, language: lang.tag,
                                    tracking: sfTracking ? sfProTracking(points: pt) : 0)
            for w in line.warnings { FileHandle.standardError.write(Data("\(w)\n".utf8)) }
            let base = y + (rowH + line.ascent - line.descent) / 2
            renderer.draw(line, on: canvas, baselineOrigin: Point(pad, base), color: Color(r: 0, g: 0, b: 0, a: 0.68))
            renderer.draw(line, on: canvas, baselineOrigin: Point(Double(half) + pad, base),
                          color: Color(r: 1, g: 1, b: 1, a: 0.82))
            print(lang.tag + " " + padded("\"\(text)\"", 20) + " " + padded(fixed(pt * scale, 1), 5, left: false) + " px  width "
                  + padded(fixed(line.width, 2), 6, left: false) + "  ascent " + padded(fixed(line.ascent, 2), 5, left: false)
                  + "  descent " + padded(fixed(line.descent, 2), 5, left: false) + "  runs: "
                  + line.runs.map { "\($0.family)/\($0.script)" }.joined(separator: ", "))
            y += rowH
        }
    }
    try PNGFile.write(pix, to: out)
    print("wrote \(out) (\(w)×\(h))")
}

func measure(_ args: [String]) throws {
    let scale = try number(args, "--scale", 2)
    let frames = Int(try number(args, "--frames", 600))
    let hwm0 = statusKB("VmHWM")
    print("start:                 \(memory())")
    let clock = ContinuousClock()
    var t0 = clock.now
    let lib = try FontLibrary()
    let tInit = clock.now - t0
    print("after FontLibrary():   \(memory())")
    t0 = clock.now
    let sets = try Language.allCases.map { try lib.fontSet(family: "Inter", weight: .semibold, language: $0.tag) }
    let tSets = clock.now - t0
    print("after two font sets:   \(memory())")
    // Shape everything once so fallback faces (CJK) are loaded.
    t0 = clock.now
    var lines: [(ShapedLine, GlyphRenderer, Language)] = []
    for (lang, fonts) in zip(Language.allCases, sets) {
        let r = GlyphRenderer(fonts: fonts)
        for (text, pt) in labels(StringTable(lang)) {
            lines.append((Shaper.shape(text, pixelSize: pt * scale, fonts: fonts, language: lang.tag), r, lang))
        }
        print("after shaping \(lang.tag):".padding(toLength: 23, withPad: " ", startingAt: 0) + memory())
    }
    let tFirstShape = clock.now - t0
    let hwm2 = statusKB("VmHWM")
    print("fonts: FontLibrary() (FreeType + fontconfig config and cache) \(fixed(seconds(tInit) * 1000, 1)) ms, "
          + "two font sets \(fixed(seconds(tSets) * 1000, 1)) ms, first shaping of 8 labels "
          + "(loads faces) \(fixed(seconds(tFirstShape) * 1000, 1)) ms")
    for (lang, fonts) in zip(Language.allCases, sets) {
        print("  \(lang.tag): faces loaded \(fonts.faces.map { "\($0.family) \($0.style)" }), fallback candidates \(fonts.candidateCount)")
    }

    // Shaping time per label (median of repeated shaping).
    for (lang, fonts) in zip(Language.allCases, sets) {
        for (text, pt) in labels(StringTable(lang)) {
            var ts: [Double] = []
            for _ in 0..<200 {
                let s = clock.now
                let l = Shaper.shape(text, pixelSize: pt * scale, fonts: fonts, language: lang.tag)
                ts.append(seconds(clock.now - s))
                precondition(!l.glyphs.isEmpty)
            }
            print("shape " + padded(lang.tag, 8) + " " + padded("\"\(text)\"", 22) + " median "
                  + padded(fixed(percentile(ts, 0.5) * 1e6, 1), 6, left: false) + " µs  p99 "
                  + padded(fixed(percentile(ts, 0.99) * 1e6, 1), 6, left: false) + " µs")
        }
    }

    // Drawing: four labels per frame at `scale`, on a 1920×1080 frame, cache warm.
    let pix = Pixmap(width: 1920, height: 1080)
    let canvas = Canvas(pix)
    for lang in Language.allCases {
        let mine = lines.filter { $0.2 == lang }
        t0 = clock.now
        for (i, (l, r, _)) in mine.enumerated() {
            r.draw(l, on: canvas, baselineOrigin: Point(100.3, 100 + Double(i) * 80), color: .black.withAlpha(0.68))
        }
        let cold = seconds(clock.now - t0)
        var ts: [Double] = []
        for f in 0..<frames {
            let dx = Double(f % 4) * 0.25
            let s = clock.now
            for (i, (l, r, _)) in mine.enumerated() {
                r.draw(l, on: canvas, baselineOrigin: Point(100.3 + dx, 100 + Double(i) * 80), color: .black.withAlpha(0.68))
            }
            ts.append(seconds(clock.now - s))
        }
        let r = mine[0].1
        print("draw \(lang.tag): 4 labels at \(fixed(scale, 0))x: first (rasterize + cache) \(fixed(cold * 1e6, 1)) µs; "
              + "per frame median \(fixed(percentile(ts, 0.5) * 1e6, 1)) µs, p99 \(fixed(percentile(ts, 0.99) * 1e6, 1)) µs; "
              + "cache \(r.cachedGlyphCount) glyphs, \(r.cachedBytes) bytes")
    }
    print("after drawing (a 1920×1080 frame is 7.9 MB): \(memory())")
    print("added by fonts (VmHWM after shaping − VmHWM at start): \(mb(hwm2 - hwm0))")
}

let args = Array(CommandLine.arguments.dropFirst())
do {
    switch args.first {
    case "sample": try sample(Array(args.dropFirst()))
    case "measure": try measure(Array(args.dropFirst()))
    default: throw Failure(description: "usage: text-probe sample --out FILE.png [--scale S] | measure [--scale S] [--frames N]", code: 2)
    }
} catch let f as Failure {
    FileHandle.standardError.write(Data("text-probe: \(f.description)\n".utf8))
    exit(f.code)
} catch {
    FileHandle.standardError.write(Data("text-probe: \(error)\n".utf8))
    exit(1)
}
