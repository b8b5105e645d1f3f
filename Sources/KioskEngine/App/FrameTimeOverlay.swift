import Raster

/// The `--show-fps` overlay, drawn by our rasterizer in the page's top-left corner: a panel
/// with a label ("60 fps · 0.4 ms": frames per second from the mean interval between presented
/// frames, and the mean work time per frame — render, upload, present) above the last 60
/// frame intervals as bars. A bar is red when its interval missed a vsync (longer than 1.5 ×
/// the refresh interval), green otherwise; the white line marks one refresh interval. A second
/// row gives the last second's input-to-screen latency, p50 and max ("lat 9/17 ms").
/// Everything is drawn inside the panel, which is repainted whole each time it changes.
public final class FrameTimeOverlay {
    public static let history = 60
    private var intervals: [Double] = []
    private var works: [Double] = []
    private var next = 0
    private var nextWork = 0
    public private(set) var needsRedraw = false
    /// The display's refresh interval in milliseconds (60 Hz unless the host says otherwise).
    public var refreshMilliseconds: Double = 1000.0 / 60
    /// Panel size in device pixels: bars 6 + 120 + 6 px wide; label row, latency row, then bars.
    static let size = (width: 132, height: 62)
    /// The latency row ("lat 9/17 ms", "lat -- ms" without a tap or drag in the last second).
    public private(set) var latencyLabel = "lat -- ms"

    static let origin = (x: 8, y: 8)

    public init() {}

    /// Records one frame: `interval` since the previous presented frame (nil for the first
    /// frame after idle) and the frame's `work` time, both in milliseconds.
    public func record(interval: Double?, work: Double?) {
        if let ms = interval, ms.isFinite, ms >= 0 {
            if intervals.count < Self.history { intervals.append(ms) } else { intervals[next] = ms }
            next = (next + 1) % Self.history
            needsRedraw = true
        }
        if let ms = work, ms.isFinite, ms >= 0 {
            if works.count < Self.history { works.append(ms) } else { works[nextWork] = ms }
            nextWork = (nextWork + 1) % Self.history
            needsRedraw = true
        }
    }

    /// The latencies (ms) of the frames shown in the last second: the row shows their p50 and max.
    public func recordLatency(_ ms: [Double]) {
        let text: String
        if ms.isEmpty {
            text = "lat -- ms"
        } else {
            let s = ms.sorted()
            let p50 = s[(s.count - 1) / 2], top = s[s.count - 1]
            text = "lat \(min(999, Int(p50.rounded())))/\(min(999, Int(top.rounded()))) ms"
        }
        if text != latencyLabel {
            latencyLabel = text
            needsRedraw = true
        }
    }

    /// Records a frame interval only (milliseconds).
    public func record(milliseconds ms: Double) { record(interval: ms, work: nil) }

    /// Mean of the recorded frame intervals (ms), or nil with no samples.
    public var mean: Double? { intervals.isEmpty ? nil : intervals.reduce(0, +) / Double(intervals.count) }
    /// Mean work time (ms), or nil with no samples.
    public var meanWork: Double? { works.isEmpty ? nil : works.reduce(0, +) / Double(works.count) }

    /// True when an interval missed at least one vsync.
    public func missedVsync(_ interval: Double) -> Bool { interval > 1.5 * refreshMilliseconds }

    /// The label, e.g. "60 fps · 0.4 ms" ("-- fps" before any interval).
    public var label: String {
        let fps = mean.map { $0 > 0 ? "\(min(999, Int((1000 / $0).rounded())))" : "999" } ?? "--"
        let work = meanWork.map { " · " + Self.tenths(min($0, 99.9)) + " ms" } ?? ""
        return "\(fps) fps" + work
    }

    public var bounds: IntRect {
        IntRect(x: Self.origin.x, y: Self.origin.y, width: Self.size.width, height: Self.size.height)
    }

    /// Draws the overlay if it changed (or `force`); returns the rectangle drawn (empty if none).
    func draw(on canvas: Canvas, page: UInt32, force: Bool) -> IntRect {
        guard needsRedraw || force else { return .zero }
        needsRedraw = false
        let b = bounds.intersection(canvas.drawableBounds)
        guard !b.isEmpty else { return .zero }
        canvas.transform = .identity
        // Nothing may land outside the rectangle reported as changed (an incremental frame
        // would keep stale pixels there).
        let savedClip = canvas.clip
        canvas.clip = b
        defer { canvas.clip = savedClip }
        // Page colour underneath, then a translucent dark panel.
        canvas.fill(deviceRect: b, PremultipliedRGBA8(packed: page).asColor)
        let r = bounds.rect
        canvas.fill(Path.roundedRect(r, radius: 6), .solid(Color(r: 0, g: 0, b: 0, a: 0.6)))
        // Label row.
        PixelFont.draw(label, on: canvas, at: Point(r.minX + 6, r.minY + 6), cell: 2, maxWidth: r.width - 12,
                       color: Color(r: 1, g: 1, b: 1, a: 0.95))
        PixelFont.draw(latencyLabel, on: canvas, at: Point(r.minX + 6, r.minY + 20), cell: 2, maxWidth: r.width - 12,
                       color: Color(r: 1, g: 1, b: 1, a: 0.95))
        // Bars: one per interval, 0…3 refresh intervals mapped to the panel's lower 24 px.
        let barArea = Rect(x: r.minX + 6, y: r.maxY - 28, width: Double(Self.history) * 2, height: 24)
        let ordered = intervals.count < Self.history ? intervals : Array(intervals[next...] + intervals[..<next])
        let full = 3 * refreshMilliseconds
        var bars = Path()
        var missed = Path()
        for (i, ms) in ordered.enumerated() {
            let h = max(1, min(1, ms / full) * barArea.height)
            let bar = Rect(x: barArea.minX + Double(i) * 2, y: barArea.maxY - h, width: 1.5, height: h)
            if missedVsync(ms) { missed.append(.rect(bar)) } else { bars.append(.rect(bar)) }
        }
        canvas.fill(bars, .solid(Color(r: 0.45, g: 0.9, b: 0.5)))
        canvas.fill(missed, .solid(Color(r: 1, g: 0.4, b: 0.3)))
        let refreshY = (barArea.maxY - barArea.height / 3).rounded()
        canvas.fill(.rect(Rect(x: barArea.minX, y: refreshY, width: barArea.width, height: 1)), .solid(Color(r: 1, g: 1, b: 1, a: 0.5)))
        return b
    }
}

extension FrameTimeOverlay {
    /// A non-negative value with one decimal, e.g. 4.25 → "4.3".
    static func tenths(_ x: Double) -> String {
        let t = Int((max(0, x) * 10).rounded())
        return "\(t / 10).\(t % 10)"
    }
}

extension PremultipliedRGBA8 {
    var asColor: Color {
        let s = unpremultiplied
        return Color(r: Double(s.r) / 255, g: Double(s.g) / 255, b: Double(s.b) / 255, a: Double(s.a) / 255)
    }
}

/// A tiny pixel font for the overlay label (no font library in the engine): digits, ".",
/// "-", "·", "/", space and the letters of "fps", "ms" and "lat", on a 5-row grid of `cell`-pixel squares.
enum PixelFont {
    /// Rows top to bottom; "#" is a lit cell. Every glyph is 3 cells wide except "m" (5) and
    /// the narrow ".", "·" and space (1).
    static let glyphs: [Character: [String]] = [
        "0": ["###", "#.#", "#.#", "#.#", "###"], "1": [".#.", "##.", ".#.", ".#.", "###"],
        "2": ["###", "..#", "###", "#..", "###"], "3": ["###", "..#", ".##", "..#", "###"],
        "4": ["#.#", "#.#", "###", "..#", "..#"], "5": ["###", "#..", "###", "..#", "###"],
        "6": ["###", "#..", "###", "#.#", "###"], "7": ["###", "..#", ".#.", ".#.", ".#."],
        "8": ["###", "#.#", "###", "#.#", "###"], "9": ["###", "#.#", "###", "..#", "###"],
        "-": ["...", "...", "###", "...", "..."], ".": [".", ".", ".", ".", "#"],
        "·": [".", ".", "#", ".", "."], " ": [".", ".", ".", ".", "."],
        "f": [".##", "#..", "###", "#..", "#.."], "p": ["###", "#.#", "###", "#..", "#.."],
        "s": [".##", "#..", ".#.", "..#", "##."],
        "l": ["#..", "#..", "#..", "#..", ".##"], "a": ["...", "##.", ".##", "#.#", "###"],
        "t": [".#.", "###", ".#.", ".#.", "..#"], "/": ["..#", "..#", ".#.", "#..", "#.."], "m": ["#####", "#.#.#", "#.#.#", "#.#.#", "#.#.#"],
    ]

    /// Width of `text` in pixels.
    static func width(_ text: String, cell: Double) -> Double {
        text.reduce(0) { $0 + Double((glyphs[$1]?.first?.count ?? 3) + 1) * cell }
    }

    /// Draws `text` with its top-left at `origin`, stopping before `maxWidth`.
    static func draw(_ text: String, on canvas: Canvas, at origin: Point, cell: Double, maxWidth: Double, color: Color) {
        var path = Path()
        var x = origin.x
        for ch in text {
            guard let rows = glyphs[ch] else { continue }
            let w = Double(rows[0].count) * cell
            if x + w > origin.x + maxWidth { break }
            for (j, row) in rows.enumerated() {
                for (i, c) in row.enumerated() where c == "#" {
                    path.append(.rect(Rect(x: x + Double(i) * cell, y: origin.y + Double(j) * cell, width: cell, height: cell)))
                }
            }
            x += w + cell
        }
        canvas.fill(path, .solid(color))
    }
}
