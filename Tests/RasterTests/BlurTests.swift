import Foundation
import Testing
@testable import Raster

@Suite struct BlurTests {
    /// True Gaussian convolution in double precision (the oracle).
    static func trueGaussian(_ src: [Double], width w: Int, height h: Int, sigma: Double) -> [Double] {
        let r = Int((4 * sigma).rounded(.up))
        let k = (-r...r).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let s = k.reduce(0, +)
        let kn = k.map { $0 / s }
        var tmp = [Double](repeating: 0, count: w * h), out = tmp
        for y in 0..<h { for x in 0..<w { var a = 0.0; for j in -r...r where x + j >= 0 && x + j < w { a += src[y * w + x + j] * kn[j + r] }; tmp[y * w + x] = a } }
        for y in 0..<h { for x in 0..<w { var a = 0.0; for j in -r...r where y + j >= 0 && y + j < h { a += tmp[(y + j) * w + x] * kn[j + r] }; out[y * w + x] = a } }
        return out
    }

    @Test(arguments: [0.39, 1.3, 2.5, 3.9, 5.85, 8.1, 12.0, 21.06, 35.1])
    func shapeBlurIsWithinTwoLevelsOfTrueGaussian(sigma: Double) {
        // A disc of full alpha, like a sun casting its glow.
        let m = Int((4 * sigma).rounded(.up)) + 2
        let size = 2 * m + 40
        var src = [Double](repeating: 0, count: size * size)
        let grid = coverageGrid(Path.circle(center: Point(Double(size) / 2, Double(size) / 2), radius: 18.3), width: size, height: size)
        for i in 0..<src.count { src[i] = Double(grid[i]) / 255 }
        var plane = src.map(Float.init)
        var scratch: [Float] = []
        plane.withUnsafeMutableBufferPointer { GaussianBlur.blur($0.baseAddress!, width: size, height: size, sigma: sigma, scratch: &scratch) }
        let ref = Self.trueGaussian(src, width: size, height: size, sigma: sigma)
        var worst = 0.0
        for i in 0..<src.count { worst = max(worst, abs(Double(plane[i]) - ref[i]) * 255) }
        print("blur sigma \(sigma): max error \(worst)/255 against the true Gaussian")
        #expect(worst <= 2.0, "sigma \(sigma): max error \(worst)/255")
    }

    @Test(arguments: [0.8, 3.0, 9.5])
    func impulseResponseIsTheGaussianKernel(sigma: Double) {
        let size = 2 * Int((5 * sigma).rounded(.up)) + 1, c = size / 2
        var plane = [Float](repeating: 0, count: size * size)
        plane[c * size + c] = 1
        var scratch: [Float] = []
        plane.withUnsafeMutableBufferPointer { GaussianBlur.blur($0.baseAddress!, width: size, height: size, sigma: sigma, scratch: &scratch) }
        // Mass is kept and the spread (variance per axis) is σ².
        let total = plane.reduce(0, +)
        #expect(abs(total - 1) < 1e-4)
        var variance = 0.0
        for y in 0..<size { for x in 0..<size { variance += Double(plane[y * size + x]) * Double((x - c) * (x - c)) } }
        #expect(abs(variance - sigma * sigma) / (sigma * sigma) < 0.03, "variance \(variance) vs \(sigma * sigma)")
        // Peak close to the sampled Gaussian's 1/(2πσ²).
        let peak = Double(plane[c * size + c]), want = 1 / (2 * Double.pi * sigma * sigma)
        #expect(abs(peak - want) / want < 0.12, "peak \(peak) vs \(want)")
    }

    @Test func dropShadowsStack() {
        func render(glow: Bool) -> Pixmap {
            let pix = Pixmap(width: 80, height: 80)
            let c = Canvas(pix)
            c.beginLayer(deviceBounds: pix.bounds)
            c.fill(Path.circle(center: Point(40, 40), radius: 12), .solid(.white))
            if glow { c.applyDropShadow(color: Color(r: 1, g: 0, b: 0, a: 1), sigma: 8, dx: 0, dy: 0) }
            c.applyDropShadow(color: Color(r: 0, g: 0, b: 1, a: 0.5), sigma: 2, dx: -6, dy: 8)
            c.endLayer()
            return pix
        }
        let stacked = render(glow: true), single = render(glow: false)
        // Content stays on top of both shadows.
        #expect(stacked.color(x: 40, y: 40) == PremultipliedRGBA8(r: 255, g: 255, b: 255, a: 255))
        #expect(stacked.color(x: 58, y: 30).r > 0)
        // (14, 48) is 20 px from the shifted disc's centre: beyond the reach of the disc's own
        // shadow (12 + 3.5·2), within that of the shadow cast by disc + glow.
        #expect(single.color(x: 14, y: 48).b == 0)
        #expect(stacked.color(x: 14, y: 48).b > 0)
    }
}
