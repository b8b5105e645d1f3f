import Raster
import KioskEngine
import KioskSupport

/// Micro-benchmark of the rasterizer's kernels on 1920×1080-class RGBA8 buffers.
///
/// Every kernel is timed call by call with a monotonic clock (`ContinuousClock`); only the kernel
/// call is inside the timed region (re-seeding an input, where a kernel works in place, is not).
/// After one warm-up round, `repetitions` rounds run the kernels interleaved (kernel A, B, C, …,
/// then again A, B, C, …) so that a slow moment of the machine hits all rows alike; each round
/// calls a kernel until at least `minimumSampleSeconds` have passed, and a row reports the median
/// over the rounds of the nanoseconds per pixel.
///
/// "Pixels" are those the kernel is responsible for: the whole target for fills, blends and
/// composites, the plane for the blur, and the bounding box of the shape for anti-aliased paths.
public enum RasterBenchmark {
    /// One measured kernel.
    public struct Row: Sendable, Equatable {
        /// What was measured (kernel, shape, size).
        public var name: String
        /// Median nanoseconds per pixel.
        public var nsPerPixel: Double
        /// Pixels one call of the kernel processes.
        public var pixelsPerIteration: Int
        /// The target from the issue, in ns per pixel; nil where the issue sets none.
        public var targetNsPerPixel: Double?
        /// The copy of the span kernels that ran (`Kernels`).
        public var level: Kernels.Level
        /// This row's time over the baseline copy's for the same kernel (nil on the baseline's row).
        public var overBaseline: Double?

        public init(name: String, nsPerPixel: Double, pixelsPerIteration: Int, targetNsPerPixel: Double?,
                    level: Kernels.Level = .baseline, overBaseline: Double? = nil) {
            self.name = name
            self.nsPerPixel = nsPerPixel
            self.pixelsPerIteration = pixelsPerIteration
            self.targetNsPerPixel = targetNsPerPixel
            self.level = level
            self.overBaseline = overBaseline
        }

        /// Whether the row meets its target; nil where there is no target.
        public var meetsTarget: Bool? { targetNsPerPixel.map { nsPerPixel <= $0 } }
    }

    /// Targets from the issue (release build, one core), ns per pixel.
    public enum Target {
        public static let opaqueFill = 0.1
        public static let srcOverSpan = 1.0
        public static let pathFill = 1.5
        public static let linearGradient = 2.5
        public static let gaussianBlur = 4.0
    }

    /// Measures all kernels on a `width × height` target (the blur uses a plane of that size).
    /// - Parameters:
    ///   - repetitions: interleaved rounds after the warm-up; the median is reported (≥ 1).
    ///   - minimumSampleSeconds: how long each kernel runs per round (at least one call).
    /// - Throws: `KioskError.usage` naming the parameter when a size or count is out of range.
    ///   - levels: the copies of the span kernels to time, each kernel under each copy in turn
    ///     (interleaved like the kernels); the copy chosen before is chosen again after.
    public static func run(width: Int = 1920, height: Int = 1080, repetitions: Int = 7,
                           minimumSampleSeconds: Double = 0.02, levels: [Kernels.Level] = [Kernels.level]) throws -> [Row] {
        guard width >= 64, height >= 64, width <= 16384, height <= 16384 else {
            throw KioskError.usage("bench --raster: size must be between 64x64 and 16384x16384 pixels, got \(width)x\(height)")
        }
        guard repetitions >= 1, repetitions <= 1000 else {
            throw KioskError.usage("bench --raster: repetitions must be 1…1000, got \(repetitions)")
        }
        guard minimumSampleSeconds.isFinite, minimumSampleSeconds >= 0, minimumSampleSeconds <= 60 else {
            throw KioskError.usage("bench --raster: minimum sample time must be 0…60 s, got \(minimumSampleSeconds)")
        }
        let kernels = makeKernels(width: width, height: height)
        let before = Kernels.level
        defer { Kernels.choose(before) }
        for level in levels {
            Kernels.choose(level)
            for k in kernels { _ = sample(k, minimumSeconds: 0) }   // warm-up: caches, pools, scratch buffers
        }
        var samples = [[[Double]]](repeating: [[Double]](repeating: [], count: levels.count), count: kernels.count)
        for _ in 0..<repetitions {
            for (i, k) in kernels.enumerated() {
                for (j, level) in levels.enumerated() {
                    Kernels.choose(level)
                    samples[i][j].append(sample(k, minimumSeconds: minimumSampleSeconds))
                }
            }
        }
        return kernels.enumerated().flatMap { i, k in
            let ns = samples[i].map { median($0) ?? .nan }
            let base = levels.firstIndex(of: .baseline).map { ns[$0] }
            return levels.enumerated().map { j, level in
                Row(name: k.name, nsPerPixel: ns[j], pixelsPerIteration: k.pixels, targetNsPerPixel: k.target, level: level,
                    overBaseline: level == .baseline ? nil : base.map { ns[j] / $0 })
            }
        }
    }

    /// `bench --raster`: the kernels, then the component drawn from scratch (both styles), under
    /// every copy of the span kernels this CPU runs (the portable baseline and, with AVX2, the
    /// copy the kiosk picks), so one run shows what the dispatch gains.
    public static func command(output: (String) -> Void) throws {
        let levels = Kernels.Level.allCases.filter { $0 == .baseline || Kernels.avx2Available }
        output("span kernels: " + levels.map(\.rawValue).joined(separator: ", ") + " (the kiosk runs \(Kernels.best.rawValue))")
        output(table(try run(levels: levels)))
        let before = Kernels.level
        defer { Kernels.choose(before) }
        for level in levels {
            Kernels.choose(level)
            output("component from scratch, span kernels \(level.rawValue):")
            output(ComponentBenchmark.table(ComponentBenchmark.run()))
            output(ComponentBenchmark.table(ComponentBenchmark.run(style: .vivid)))
        }
    }

    /// A fixed-width text table: name, ns/px, pixels per iteration, target, verdict.
    public static func table(_ rows: [Row]) -> String {
        let nameWidth = max(6, rows.map(\.name.count).max() ?? 0)
        func pad(_ s: String, _ n: Int, right: Bool = false) -> String {
            let fill = String(repeating: " ", count: max(0, n - s.count))
            return right ? fill + s : s + fill
        }
        var out = pad("kernel", nameWidth) + "  " + pad("copy", 8) + "  " + pad("ns/px", 8, right: true) + "  "
            + pad("vs base", 7, right: true) + "  " + pad("px/iter", 9, right: true) + "  " + pad("target", 7, right: true) + "  verdict\n"
        out += String(repeating: "-", count: nameWidth + 2 + 8 + 2 + 8 + 2 + 7 + 2 + 9 + 2 + 7 + 9) + "\n"
        for r in rows {
            let target = r.targetNsPerPixel.map { "≤" + format($0, digits: 2) } ?? "-"
            let verdict: String
            switch r.meetsTarget {
            case .some(true): verdict = "ok"
            case .some(false): verdict = "MISS"
            case .none: verdict = "-"
            }
            let ratio = r.overBaseline.map { "×" + format($0, digits: 2) } ?? "-"
            out += pad(r.name, nameWidth) + "  " + pad(r.level.rawValue, 8) + "  " + pad(format(r.nsPerPixel, digits: 3), 8, right: true) + "  "
                + pad(ratio, 7, right: true) + "  "
                + pad(String(r.pixelsPerIteration), 9, right: true) + "  " + pad(target, 7, right: true) + "  " + verdict + "\n"
        }
        return out
    }

    // MARK: Kernels

    /// A kernel to time: `body` is timed, `prepare` (if any) runs untimed before each call.
    struct Kernel {
        var name: String
        var pixels: Int
        var target: Double?
        var prepare: (() -> Void)?
        var body: () -> Void
    }

    /// Every kernel `bench --raster` times, on targets of `w` × `h`, in the table's order.
    static func makeKernels(width w: Int, height h: Int) -> [Kernel] {
        fillKernels(width: w, height: h) + pathKernels(width: w, height: h) + gradientKernels(width: w, height: h)
            // Gaussian blur: full-frame planes at both sigmas, and a 300×300 plane (a shadow
            // layer's size) at σ 10.
            + [(w, h, 10.0), (w, h, 21.0), (300, 300, 10.0)].map { blurKernel(width: $0.0, height: $0.1, sigma: $0.2) }
            + layerKernels(width: w, height: h)
    }

    /// Solid colour: an opaque fill and a translucent span.
    static func fillKernels(width w: Int, height h: Int) -> [Kernel] {
        let full = IntRect(x: 0, y: 0, width: w, height: h)
        var kernels: [Kernel] = []
        // Opaque solid fill through the canvas (a device rectangle, src-over of an opaque colour).
        let fillTarget = Pixmap(width: w, height: h)
        let fillCanvas = Canvas(fillTarget)
        let opaque = Color(r255: 40, g255: 90, b255: 200)
        kernels.append(Kernel(name: "opaque fill (Canvas.fill deviceRect)", pixels: w * h, target: Target.opaqueFill,
                              body: { fillCanvas.fill(deviceRect: full, opaque) }))

        // Src-over of a translucent colour over a whole row: Blend.solidSpan with nil coverage.
        let spanTarget = Pixmap(width: w, height: h)
        spanTarget.fill(full, with: Color(r255: 200, g255: 180, b255: 40).premultiplied8.packed)
        let translucent = Color(r255: 30, g255: 60, b255: 220, alpha: 0.45).premultiplied8.packed
        kernels.append(Kernel(name: "src-over solid span (alpha 0.45)", pixels: w * h, target: Target.srcOverSpan,
                              body: {
                                  for y in 0..<h {
                                      Blend.solidSpan(spanTarget.pixels + y * spanTarget.stride, count: w,
                                                      color: translucent, coverage: nil)
                                  }
                              }))
        return kernels
    }

    /// Anti-aliased path fills, per pixel of the shape's bounding box.
    static func pathKernels(width w: Int, height h: Int) -> [Kernel] {
        let full = IntRect(x: 0, y: 0, width: w, height: h)
        var kernels: [Kernel] = []
        let pathTarget = Pixmap(width: w, height: h)
        pathTarget.fill(full, with: Color(r255: 240, g255: 240, b255: 235).premultiplied8.packed)
        let pathCanvas = Canvas(pathTarget)
        let radius = Double(min(w, h)) * 0.45
        let circle = Path.circle(center: Point(Double(w) / 2, Double(h) / 2), radius: radius)
        let circleBox = Rect(x: Double(w) / 2 - radius, y: Double(h) / 2 - radius, width: 2 * radius, height: 2 * radius).roundedOut
        kernels.append(Kernel(name: "AA path: circle r=\(Int(radius)), opaque", pixels: circleBox.width * circleBox.height,
                              target: Target.pathFill,
                              body: { pathCanvas.fill(circle, .solid(Color(r255: 250, g255: 200, b255: 60))) }))
        let rr = Rect(x: Double(w) * 0.1 + 0.3, y: Double(h) * 0.1 + 0.3, width: Double(w) * 0.8, height: Double(h) * 0.8)
        let rounded = Path.roundedRect(rr, radius: Double(h) * 0.12, style: .continuous)
        let rrBox = rr.roundedOut
        kernels.append(Kernel(name: "AA path: rounded rect \(rrBox.width)x\(rrBox.height), alpha 0.6",
                              pixels: rrBox.width * rrBox.height, target: Target.pathFill,
                              body: { pathCanvas.fill(rounded, .solid(Color(r255: 20, g255: 40, b255: 90, alpha: 0.6))) }))
        return kernels
    }

    /// Linear gradients over the whole target (a rectangle path, so rasterization is included).
    static func gradientKernels(width w: Int, height h: Int) -> [Kernel] {
        let gradTarget = Pixmap(width: w, height: h)
        let gradCanvas = Canvas(gradTarget)
        let stops = [GradientStop(0, Color(r255: 20, g255: 110, b255: 230)),
                     GradientStop(0.6, Color(r255: 120, g255: 190, b255: 250, alpha: 0.8)),
                     GradientStop(1, Color(r255: 250, g255: 230, b255: 200))]
        let diagonal = LinearGradient(start: Point(0, 0), end: Point(Double(w), Double(h)), stops: stops)
        let vertical = LinearGradient(start: Point(0, 0), end: Point(0, Double(h)), stops: stops)
        let rectPath = Path.rect(Rect(x: 0, y: 0, width: Double(w), height: Double(h)))
        return [Kernel(name: "linear gradient, diagonal", pixels: w * h, target: Target.linearGradient,
                       body: { gradCanvas.fill(rectPath, .linearGradient(diagonal)) }),
                Kernel(name: "linear gradient, vertical", pixels: w * h, target: Target.linearGradient,
                       body: { gradCanvas.fill(rectPath, .linearGradient(vertical)) })]
    }

    /// Layers: the composite of a finished layer at the page's size and a toggle's, and the
    /// whole round trip.
    static func layerKernels(width w: Int, height h: Int) -> [Kernel] {
        let full = IntRect(x: 0, y: 0, width: w, height: h)
        let rectPath = Path.rect(Rect(x: 0, y: 0, width: Double(w), height: Double(h)))
        var kernels: [Kernel] = []
        // Layer composite: the compositing step of endLayer (Canvas.draw of a finished layer with
        // opacity 0.5), with a layer whose every pixel is translucent content.
        let layerTarget = Pixmap(width: w, height: h)
        layerTarget.fill(full, with: Color(r255: 240, g255: 240, b255: 235).premultiplied8.packed)
        let layerCanvas = Canvas(layerTarget)
        let layer = Pixmap(width: w, height: h)
        Canvas(layer).fill(rectPath, .linearGradient(LinearGradient(
            start: Point(0, 0), end: Point(Double(w), Double(h) * 0.3),
            stops: [GradientStop(0, Color(r255: 10, g255: 20, b255: 60, alpha: 0.9)),
                    GradientStop(1, Color(r255: 200, g255: 120, b255: 40, alpha: 0.3))])))
        let sprite = Sprite(pixmap: layer, origin: (0, 0))
        kernels.append(Kernel(name: "layer composite, opacity 0.5 (Canvas.draw)", pixels: w * h, target: nil,
                              body: { layerCanvas.draw(sprite, opacity: 0.5) }))
        // The same at a toggle's size (520x320), where both rows stay in the core's caches.
        let small = IntRect(x: 0, y: 0, width: 520, height: 320)
        let smallLayer = Pixmap(width: small.width, height: small.height)
        smallLayer.copy(small, from: layer)
        let smallSprite = Sprite(pixmap: smallLayer, origin: (0, 0))
        let smallTarget = Pixmap(width: small.width, height: small.height)
        smallTarget.fill(small, with: Color(r255: 240, g255: 240, b255: 235).premultiplied8.packed)
        let smallCanvas = Canvas(smallTarget)
        kernels.append(Kernel(name: "layer composite 520x320, opacity 0.5", pixels: small.area, target: nil,
                              body: { smallCanvas.draw(smallSprite, opacity: 0.5) }))
        kernels.append(Kernel(name: "layer composite 520x320, opacity 1", pixels: small.area, target: nil,
                              body: { smallCanvas.draw(smallSprite, opacity: 1) }))
        // The whole layer round trip: begin, fill the layer, end with opacity 0.5.
        kernels.append(Kernel(name: "layer begin + fill + endLayer(0.5)", pixels: w * h, target: nil,
                              body: {
                                  layerCanvas.beginLayer(deviceBounds: full)
                                  layerCanvas.fill(deviceRect: full, Color(r255: 90, g255: 30, b255: 120, alpha: 0.7))
                                  layerCanvas.endLayer(opacity: 0.5)
                              }))
        return kernels
    }

    /// Gaussian blur of a float plane holding a soft disc, re-seeded (untimed) before each call
    /// since the blur works in place.
    static func blurKernel(width w: Int, height h: Int, sigma: Double) -> Kernel {
        let seed = discPlane(width: w, height: h)
        var plane = seed
        var scratch: [Float] = []
        return Kernel(name: "Gaussian blur sigma=\(Int(sigma)), \(w)x\(h) plane", pixels: w * h,
                      target: Target.gaussianBlur,
                      prepare: {
                          plane.withUnsafeMutableBufferPointer { p in
                              seed.withUnsafeBufferPointer { p.baseAddress!.update(from: $0.baseAddress!, count: $0.count) }
                          }
                      },
                      body: {
                          plane.withUnsafeMutableBufferPointer { p in
                              GaussianBlur.blur(p.baseAddress!, width: w, height: h, sigma: sigma, scratch: &scratch)
                          }
                      })
    }

    /// A plane of zeros with a filled disc of radius h/4 (the alpha of a sun).
    static func discPlane(width w: Int, height h: Int) -> [Float] {
        var plane = [Float](repeating: 0, count: w * h)
        let cx = Double(w) / 2, cy = Double(h) / 2, r = Double(h) / 4
        for y in 0..<h {
            for x in 0..<w {
                let dx = Double(x) + 0.5 - cx, dy = Double(y) + 0.5 - cy
                let d = (dx * dx + dy * dy).squareRoot() - r
                plane[y * w + x] = Float(max(0, min(1, 0.5 - d)))
            }
        }
        return plane
    }

    // MARK: Timing

    /// Runs `k` until `minimumSeconds` of timed kernel work have passed (at least once) and
    /// returns the nanoseconds per pixel of that sample.
    static func sample(_ k: Kernel, minimumSeconds: Double) -> Double {
        let clock = ContinuousClock()
        var total = Duration.zero
        var calls = 0
        let minimum = Duration.nanoseconds(Int64(minimumSeconds * 1e9))
        repeat {
            k.prepare?()
            let start = clock.now
            k.body()
            total += start.duration(to: clock.now)
            calls += 1
        } while total < minimum
        return nanoseconds(total) / Double(calls) / Double(max(1, k.pixels))
    }

    static func nanoseconds(_ d: Duration) -> Double {
        let c = d.components
        return Double(c.seconds) * 1e9 + Double(c.attoseconds) * 1e-9
    }

    /// `x` with exactly `digits` decimals (no exponent notation).
    static func format(_ x: Double, digits: Int) -> String {
        x.isFinite && abs(x) < 1e12 ? fixed(x, digits) : "n/a"
    }
}
