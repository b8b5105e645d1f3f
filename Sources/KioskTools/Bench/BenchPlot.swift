import KioskEngine
import KioskSupport
import Raster

/// `bench --plot FILE.png`: the bench's numbers as a picture, drawn by our own rasterizer and
/// the page's typesetter. One row per scenario: the frame-time histogram (left) and the frame
/// times in order (right), the 16.7 ms budget marked red on both. With `--latency`, one row per
/// simulated display: the distribution (cumulative, 0–100 %) of tap and drag latency of each
/// loop against the floor's.
public struct BenchPlot {
    public static let width = 1600
    static let rowHeight = 300.0
    static let margin = 70.0
    static let titleHeight = 60.0

    let canvas: Canvas
    let pixmap: Pixmap
    let text: LabelTypesetter?

    static let ink = Color(r255: 30, g255: 30, b255: 36)
    static let grid = Color(r255: 215, g255: 215, b255: 222)
    static let budget = Color(r255: 214, g255: 48, b255: 49)
    static let bars = Color(r255: 52, g255: 120, b255: 246)
    static let eager = Color(r255: 245, g255: 140, b255: 30)
    static let floorColor = Color(r255: 120, g255: 120, b255: 130)

    /// The picture of `results` (and `latency`, when run).
    public static func draw(_ results: [BenchRunner.ScenarioResult], latency: [LatencyBench.Result],
                            title: String, text: LabelTypesetter?) -> Pixmap {
        let latencyRows = Set(latency.map(\.display)).count
        let rows = results.count + latencyRows
        let height = Int(titleHeight + Double(max(1, rows)) * rowHeight + 20)
        let pix = Pixmap(width: width, height: height)
        pix.fill(pix.bounds, with: PremultipliedRGBA8(r: 255, g: 255, b: 255, a: 255).packed)
        let plot = BenchPlot(canvas: Canvas(pix), pixmap: pix, text: text)
        plot.label(title, x: margin, y: 38, size: 24)
        var top = titleHeight
        let half = (Double(width) - 3 * margin) / 2
        for r in results {
            plot.histogram(r, frame: Rect(x: margin, y: top + 40, width: half, height: rowHeight - 100))
            plot.series(r, frame: Rect(x: 2 * margin + half, y: top + 40, width: half, height: rowHeight - 100))
            top += rowHeight
        }
        for display in LatencyBench.Display.allCases {
            let runs = latency.filter { $0.display == display }
            guard !runs.isEmpty else { continue }
            for (i, kind) in LatencyLedger.Kind.pointer.enumerated() {
                plot.distribution(runs, kind: kind,
                                  frame: Rect(x: margin + Double(i) * (half + margin), y: top + 40, width: half, height: rowHeight - 100))
            }
            top += rowHeight
        }
        return pix
    }

    // MARK: Panels

    func histogram(_ r: BenchRunner.ScenarioResult, frame f: Rect) {
        let times = r.samples.map(\.wallMs)
        let top = Swift.max(BenchRunner.budgetMs * 1.25, (times.max() ?? 0) * 1.02)
        let binCount = 60
        var bins = [Int](repeating: 0, count: binCount)
        for t in times { bins[Swift.min(binCount - 1, Int(t / top * Double(binCount)))] += 1 }
        let most = Double(bins.max() ?? 1)
        label("\(r.name): frame-time histogram (\(r.samples.count) frames; p50 \(fixed(r.p50, 2)), p99 \(fixed(r.p99, 2)) ms)",
              x: f.minX, y: f.minY - 14, size: 17)
        axes(f)
        let w = f.width / Double(binCount)
        for (i, n) in bins.enumerated() where n > 0 {
            // Square-root height: one slow frame stays visible beside hundreds of quick ones.
            let h = Swift.max(2, (Double(n) / most).squareRoot() * (f.height - 4))
            fill(Rect(x: f.minX + Double(i) * w + 1, y: f.maxY - h, width: Swift.max(1, w - 2), height: h), Self.bars)
        }
        let bx = f.minX + BenchRunner.budgetMs / top * f.width
        fill(Rect(x: bx - 1, y: f.minY, width: 2, height: f.height), Self.budget)
        label("16.7 ms budget", x: bx + 6, y: f.minY + 16, size: 14, color: Self.budget)
        xTicks(f, top: top, unit: "ms")
        label("frames (square-root scale)", x: f.minX + 60, y: f.minY + 16, size: 14, color: Self.floorColor)
    }

    func series(_ r: BenchRunner.ScenarioResult, frame f: Rect) {
        let times = r.samples.map(\.wallMs)
        let top = Swift.max(BenchRunner.budgetMs * 1.25, (times.max() ?? 0) * 1.02)
        label("\(r.name): each frame in order (\(r.overBudget) over budget)", x: f.minX, y: f.minY - 14, size: 17)
        axes(f)
        let by = f.maxY - BenchRunner.budgetMs / top * f.height
        fill(Rect(x: f.minX, y: by - 1, width: f.width, height: 2), Self.budget)
        label("16.7 ms", x: f.maxX - 60, y: by - 6, size: 14, color: Self.budget)
        guard times.count > 1 else { return }
        let points = times.enumerated().map { i, t in
            Point(f.minX + Double(i) / Double(times.count - 1) * f.width, f.maxY - t / top * f.height)
        }
        polyline(points, width: 1.4, color: Self.bars)
        yTicks(f, top: top, unit: "ms")
        label("frame →", x: f.maxX - 60, y: f.maxY + 20, size: 14, color: Self.floorColor)
    }

    /// Cumulative distributions: each loop's latency and the floor of the scheduled loop's samples.
    func distribution(_ runs: [LatencyBench.Result], kind: LatencyLedger.Kind, frame f: Rect) {
        let all = runs.flatMap { $0.of(kind) }
        let top = Swift.max(40, (all.map(\.ms).max() ?? 0) * 1.05)
        let display = runs.first?.display.rawValue ?? ""
        label("\(kind.rawValue) latency, \(display) display (cumulative %)", x: f.minX, y: f.minY - 14, size: 17)
        axes(f)
        for q in [0.5, 0.99] {
            let y = f.maxY - q * f.height
            fill(Rect(x: f.minX, y: y, width: f.width, height: 1), Self.grid)
            label("p\(Int(q * 100))", x: f.minX - 36, y: y + 5, size: 13, color: Self.floorColor)
        }
        var legend = f.minY + 40
        func curve(_ values: [Double], _ color: Color, _ name: String) {
            guard !values.isEmpty else { return }
            let s = values.sorted()
            var pts: [Point] = [Point(f.minX + s[0] / top * f.width, f.maxY)]
            for (i, v) in s.enumerated() {
                let x = f.minX + Swift.min(v, top) / top * f.width
                pts.append(Point(x, f.maxY - Double(i) / Double(s.count) * f.height))
                pts.append(Point(x, f.maxY - Double(i + 1) / Double(s.count) * f.height))
            }
            polyline(pts, width: 2.2, color: color)
            fill(Rect(x: f.maxX - 250, y: legend - 10, width: 24, height: 4), color)
            label(name, x: f.maxX - 218, y: legend, size: 14, color: color)
            legend += 22
        }
        if let scheduled = runs.first(where: { $0.policy == .scheduled }) {
            curve(scheduled.of(kind).map(\.floorMs), Self.floorColor, display == LatencyBench.Display.vblank.rawValue
                  ? "floor: r + wait for vblank" : "floor: r")
            curve(scheduled.of(kind).map(\.ms), Self.bars, "now (scheduled loop)")
        }
        if let eager = runs.first(where: { $0.policy == .eager }) {
            curve(eager.of(kind).map(\.ms), Self.eager, "before (eager loop)")
        }
        if display == LatencyBench.Display.vblank.rawValue {
            let bx = f.minX + 1000.0 / 60 / top * f.width
            fill(Rect(x: bx - 1, y: f.minY, width: 2, height: f.height), Self.budget)
            label("one frame", x: bx + 6, y: f.maxY - 8, size: 13, color: Self.budget)
        }
        xTicks(f, top: top, unit: "ms")
    }

    // MARK: Drawing

    func fill(_ r: Rect, _ color: Color) { canvas.fill(Path.rect(r), .solid(color)) }

    func axes(_ f: Rect) {
        fill(Rect(x: f.minX, y: f.maxY, width: f.width, height: 1.5), Self.ink)
        fill(Rect(x: f.minX - 1.5, y: f.minY, width: 1.5, height: f.height + 1.5), Self.ink)
    }

    func xTicks(_ f: Rect, top: Double, unit: String) {
        let step = Self.niceStep(top / 6)
        var v = 0.0
        while v <= top {
            let x = f.minX + v / top * f.width
            fill(Rect(x: x, y: f.maxY, width: 1, height: 6), Self.ink)
            label(Self.tick(v) + (v == 0 ? " " + unit : ""), x: x - 8, y: f.maxY + 22, size: 13)
            v += step
        }
    }

    func yTicks(_ f: Rect, top: Double, unit: String) {
        let step = Self.niceStep(top / 4)
        var v = step
        while v <= top {
            let y = f.maxY - v / top * f.height
            fill(Rect(x: f.minX - 6, y: y, width: 6, height: 1), Self.ink)
            label(Self.tick(v), x: f.minX - 40, y: y + 5, size: 13)
            v += step
        }
    }

    static func niceStep(_ raw: Double) -> Double {
        guard raw > 0, raw.isFinite else { return 1 }
        var p = 1.0
        while p * 10 <= raw { p *= 10 }
        while p > raw { p /= 10 }
        for m in [1.0, 2, 5, 10] where p * m >= raw { return p * m }
        return p * 10
    }

    static func tick(_ v: Double) -> String { v == v.rounded() ? String(Int(v)) : fixed(v, 1) }

    /// Segments as thin quads (`width` px), joined by round dots.
    func polyline(_ pts: [Point], width: Double, color: Color) {
        var path = Path()
        for (a, b) in zip(pts, pts.dropFirst()) {
            let dx = b.x - a.x, dy = b.y - a.y, len = (dx * dx + dy * dy).squareRoot()
            guard len > 0.01 else { continue }
            let nx = -dy / len * width / 2, ny = dx / len * width / 2
            path.append(Path.polygon([Point(a.x + nx, a.y + ny), Point(b.x + nx, b.y + ny),
                                      Point(b.x - nx, b.y - ny), Point(a.x - nx, a.y - ny)]))
        }
        canvas.fill(path, .solid(color))
    }

    func label(_ s: String, x: Double, y: Double, size: Double, color: Color = BenchPlot.ink) {
        guard let text else { return }
        text.draw(text.shape(s, pixelSize: size, tracking: 0), on: canvas, baselineOrigin: Point(x, y), color: color)
    }
}
