import Raster

/// The `--show-fps` overlay: the last frame times as bars against the 16.7 ms budget line,
/// and the mean frame time as seven-segment digits, drawn by our rasterizer in the page's
/// top-left corner.
public final class FrameTimeOverlay {
    public static let history = 60
    private var samples: [Double] = []
    private var next = 0
    public private(set) var needsRedraw = false
    /// Overlay size in device pixels (set on draw).
    /// Wide enough for the bars (6 + 120 px) and the digits to their right ("999.9" ≈ 44 px).
    static let size = (width: 180, height: 44)
    static let origin = (x: 8, y: 8)

    public init() {}

    public func record(milliseconds ms: Double) {
        guard ms.isFinite, ms >= 0 else { return }
        if samples.count < Self.history { samples.append(ms) } else { samples[next] = ms }
        next = (next + 1) % Self.history
        needsRedraw = true
    }

    /// Mean of the recorded frame times (ms), or nil with no samples.
    public var mean: Double? { samples.isEmpty ? nil : samples.reduce(0, +) / Double(samples.count) }

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
        let r = b.rect
        canvas.fill(Path.roundedRect(r, radius: 6), .solid(Color(r: 0, g: 0, b: 0, a: 0.6)))
        // Bars: one per sample, 0…33 ms mapped to the panel's lower 24 px.
        let barArea = Rect(x: r.minX + 6, y: r.maxY - 28, width: Double(Self.history) * 2, height: 24)
        let ordered = samples.count < Self.history ? samples : Array(samples[next...] + samples[..<next])
        var bars = Path()
        var overBudget = Path()
        for (i, ms) in ordered.enumerated() {
            let h = min(1, ms / 33.3) * barArea.height
            let bar = Rect(x: barArea.minX + Double(i) * 2, y: barArea.maxY - h, width: 1.5, height: h)
            if ms > 1000.0 / 60 { overBudget.append(.rect(bar)) } else { bars.append(.rect(bar)) }
        }
        canvas.fill(bars, .solid(Color(r: 0.45, g: 0.9, b: 0.5)))
        canvas.fill(overBudget, .solid(Color(r: 1, g: 0.4, b: 0.3)))
        let budgetY = barArea.maxY - barArea.height / 2
        canvas.fill(.rect(Rect(x: barArea.minX, y: budgetY, width: barArea.width, height: 1)), .solid(Color(r: 1, g: 1, b: 1, a: 0.5)))
        // Mean frame time, e.g. "4.2" (ms), top right of the bars.
        let text = mean.map { Self.tenths(min($0, 999.9)) } ?? "--"
        SevenSegment.draw(text, on: canvas, at: Point(barArea.maxX + 4, r.minY + 8), digitHeight: 14,
                          color: Color(r: 1, g: 1, b: 1, a: 0.95))
        return b
    }
}

extension FrameTimeOverlay {
    /// A non-negative value with one decimal, e.g. 4.25 → "4.3" (the digits the overlay shows).
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

/// Seven-segment digits as paths (no font needed): "0"–"9", ".", "-".
enum SevenSegment {
    //  a
    // f b
    //  g
    // e c
    //  d
    static let segments: [Character: String] = [
        "0": "abcdef", "1": "bc", "2": "abged", "3": "abgcd", "4": "fgbc",
        "5": "afgcd", "6": "afgedc", "7": "abc", "8": "abcdefg", "9": "abcfgd", "-": "g",
    ]

    static func draw(_ text: String, on canvas: Canvas, at origin: Point, digitHeight h: Double, color: Color) {
        let w = h * 0.55, t = max(1.5, h * 0.14)
        var x = origin.x
        var path = Path()
        for ch in text {
            if ch == "." {
                path.append(.rect(Rect(x: x, y: origin.y + h - t, width: t, height: t)))
                x += t * 2
                continue
            }
            for seg in segments[ch] ?? "" {
                let r: Rect
                switch seg {
                case "a": r = Rect(x: x + t, y: origin.y, width: w - 2 * t, height: t)
                case "b": r = Rect(x: x + w - t, y: origin.y + t, width: t, height: h / 2 - 1.5 * t)
                case "c": r = Rect(x: x + w - t, y: origin.y + h / 2 + t / 2, width: t, height: h / 2 - 1.5 * t)
                case "d": r = Rect(x: x + t, y: origin.y + h - t, width: w - 2 * t, height: t)
                case "e": r = Rect(x: x, y: origin.y + h / 2 + t / 2, width: t, height: h / 2 - 1.5 * t)
                case "f": r = Rect(x: x, y: origin.y + t, width: t, height: h / 2 - 1.5 * t)
                default: r = Rect(x: x + t, y: origin.y + h / 2 - t / 2, width: w - 2 * t, height: t)
                }
                path.append(.rect(r))
            }
            x += w + t
        }
        canvas.fill(path, .solid(color))
    }
}
