import Foundation
import Testing
@testable import Raster

@Suite struct PaintTests {
    /// Float reference: interpolate straight colour, then premultiply, then quantise.
    static func reference(_ stops: [Color], _ t: Double) -> (Double, Double, Double, Double) {
        let seg = Double(stops.count - 1)
        let u = clamp(t, 0, 1) * seg
        let i = min(Int(u), stops.count - 2)
        let c = stops[i].mix(stops[i + 1], u - Double(i))
        return (c.r * c.a * 255, c.g * c.a * 255, c.b * c.a * 255, c.a * 255)
    }

    static let stops = [Color(r255: 255, g255: 255, b255: 255, alpha: 0.2), Color(r255: 0, g255: 0, b255: 0, alpha: 0),
                        Color(r255: 114, g255: 187, b255: 255, alpha: 0.58)]

    @Test(arguments: [false, true])
    func gradientAtAndBetweenStops(vertical: Bool) {
        let n = 201
        let pix = Pixmap(width: vertical ? 3 : n, height: vertical ? n : 3)
        let canvas = Canvas(pix)
        let g = LinearGradient(start: .zero, end: vertical ? Point(0, Double(n)) : Point(Double(n), 0), colors: Self.stops)
        canvas.fill(Path.rect(Rect(x: 0, y: 0, width: Double(pix.width), height: Double(pix.height))), .linearGradient(g))
        for i in 0..<n {
            let t = (Double(i) + 0.5) / Double(n)
            let c = vertical ? pix.color(x: 1, y: i) : pix.color(x: i, y: 1)
            let ref = Self.reference(Self.stops, t)
            #expect(abs(Double(c.r) - ref.0) <= 1 && abs(Double(c.g) - ref.1) <= 1 &&
                    abs(Double(c.b) - ref.2) <= 1 && abs(Double(c.a) - ref.3) <= 1, "t=\(t) got \(c) want \(ref)")
        }
        // Exactly at the middle stop the colour is the stop's own (transparent black).
        let mid = LinearGradient(start: .zero, end: Point(1, 0), colors: Self.stops).color(at: 0.5)
        #expect(mid == Self.stops[1])
        // Between the first two stops the straight colour stays white: interpolation is unpremultiplied.
        let q = LinearGradient(start: .zero, end: Point(1, 0), colors: Self.stops).color(at: 0.25)
        #expect(q.r == 0.5 && abs(q.a - 0.1) < 1e-12)
    }

    @Test func premultipliedInterpolationMatchesReference() {
        // Core Graphics' rule: blend premultiplied components. A transparent stop adds no colour.
        let n = 101
        let pix = Pixmap(width: n, height: 1)
        let g = LinearGradient(start: .zero, end: Point(Double(n), 0), colors: Self.stops, interpolation: .premultiplied)
        Canvas(pix).fill(Path.rect(Rect(x: 0, y: 0, width: Double(n), height: 1)), .linearGradient(g))
        for i in 0..<n {
            let t = (Double(i) + 0.5) / Double(n)
            let u = t * 2, k = min(Int(u), 1), f = u - Double(k)
            let a = Self.stops[k], b = Self.stops[k + 1]
            let ref = [(a.r * a.a * (1 - f) + b.r * b.a * f), (a.g * a.a * (1 - f) + b.g * b.a * f),
                       (a.b * a.a * (1 - f) + b.b * b.a * f), (a.a * (1 - f) + b.a * f)].map { $0 * 255 }
            let c = pix.color(x: i, y: 0)
            #expect(abs(Double(c.r) - ref[0]) <= 1 && abs(Double(c.g) - ref[1]) <= 1 &&
                    abs(Double(c.b) - ref[2]) <= 1 && abs(Double(c.a) - ref[3]) <= 1, "t=\(t) got \(c)")
        }
        // Halfway from white (α 0.2) to transparent black the colour is still white.
        let mid = g.color(at: 0.25)
        #expect(abs(mid.r - 1) < 1e-12 && abs(mid.a - 0.1) < 1e-12)
    }

    @Test func diagonalGradientMatchesReference() {
        let pix = Pixmap(width: 64, height: 64)
        let canvas = Canvas(pix)
        let a = Color(r255: 255, g255: 0, b255: 0, alpha: 1), b = Color(r255: 0, g255: 0, b255: 255, alpha: 0.5)
        let g = LinearGradient(start: Point(8, 4), end: Point(56, 60), colors: [a, b])
        canvas.fill(Path.rect(Rect(x: 0, y: 0, width: 64, height: 64)), .linearGradient(g))
        let d = Point(48, 56)
        for y in stride(from: 0, to: 64, by: 3) {
            for x in stride(from: 0, to: 64, by: 3) {
                let t = (Point(Double(x) + 0.5, Double(y) + 0.5) - Point(8, 4)).dot(d) / d.dot(d)
                let ref = Self.reference([a, b], t), c = pix.color(x: x, y: y)
                #expect(abs(Double(c.r) - ref.0) <= 1 && abs(Double(c.b) - ref.2) <= 1 && abs(Double(c.a) - ref.3) <= 1)
            }
        }
    }

    @Test func srcOverMatchesFloatReference() {
        var rng = SeededRandom(seed: 3)
        for _ in 0..<200_000 {
            let sa = UInt8(rng.next() % 256), da = UInt8(rng.next() % 256)
            func ch(_ a: UInt8) -> UInt8 { UInt8(rng.next() % (UInt64(a) + 1)) }
            let s = PremultipliedRGBA8(r: ch(sa), g: ch(sa), b: ch(sa), a: sa)
            let d = PremultipliedRGBA8(r: ch(da), g: ch(da), b: ch(da), a: da)
            let cov = UInt8(rng.next() % 256)
            var out = d.packed
            withUnsafePointer(to: cov) { c in
                Blend.solidSpan(&out, count: 1, color: s.packed, coverage: c)
            }
            let o = PremultipliedRGBA8(packed: out)
            let k = Double(cov) / 255
            func ref(_ sc: UInt8, _ dc: UInt8) -> Double { Double(sc) * k + Double(dc) * (1 - Double(sa) * k / 255) }
            #expect(abs(Double(o.r) - ref(s.r, d.r)) <= 1)
            #expect(abs(Double(o.g) - ref(s.g, d.g)) <= 1)
            #expect(abs(Double(o.a) - ref(s.a, d.a)) <= 1)
            #expect(o.r <= o.a && o.g <= o.a && o.b <= o.a)
        }
    }

    @Test func scaleIsExactRoundedDivision() {
        for p in stride(from: 0, through: 255, by: 1) {
            for k in stride(from: 0, through: 255, by: 5) {
                let packed = UInt32(p) * 0x0101_0101
                let out = PremultipliedRGBA8(packed: Blend.scale(packed, UInt32(k)))
                let want = UInt8((Double(p * k) / 255).rounded())
                #expect(out.r == want && out.g == want && out.b == want && out.a == want)
            }
        }
    }
}
