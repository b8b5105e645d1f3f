import Foundation

/// Gaussian blur of single-channel float planes.
///
/// Small sigmas (< 2 px) use a true sampled Gaussian kernel (radius ⌈3σ⌉, normalised). Larger
/// ones use three box passes per axis whose widths are chosen so the total variance equals σ²
/// (boxes of widths w and w+2 mixed, as in Kovesi's "fast almost-Gaussian filtering"); the
/// result differs from the true Gaussian by well under 2/255 (measured in the tests).
public enum GaussianBlur {
    /// Blurs `plane` (row-major, `width × height`) in place. `scratch` is reused between calls.
    public static func blur(_ plane: UnsafeMutablePointer<Float>, width: Int, height: Int, sigma: Double,
                            scratch: inout [Float]) {
        guard sigma > 0, width > 0, height > 0 else { return }
        let n = max(width, height)
        if scratch.count < n * 2 { scratch = [Float](repeating: 0, count: n * 2) }
        scratch.withUnsafeMutableBufferPointer { buf in
            let tmp = buf.baseAddress!
            if sigma < 2 {
                let kernel = gaussianKernel(sigma)
                for y in 0..<height { convolve(plane + y * width, count: width, step: 1, kernel: kernel, tmp: tmp) }
                for x in 0..<width { convolve(plane + x, count: height, step: width, kernel: kernel, tmp: tmp) }
            } else {
                let boxes = boxWidths(sigma: sigma)
                for y in 0..<height {
                    for w in boxes { boxPass(plane + y * width, count: width, step: 1, box: w, tmp: tmp) }
                }
                for x in 0..<width {
                    for w in boxes { boxPass(plane + x, count: height, step: width, box: w, tmp: tmp) }
                }
            }
        }
    }

    /// How far (pixels) a blur of this sigma spreads: allocate this much margin around content.
    public static func extent(sigma: Double) -> Int {
        guard sigma > 0 else { return 0 }
        if sigma < 2 { return Int((3 * sigma).rounded(.up)) }
        return boxWidths(sigma: sigma).reduce(0) { $0 + ($1 - 1) / 2 }
    }

    /// Normalised sampled Gaussian, radius ⌈3σ⌉.
    static func gaussianKernel(_ sigma: Double) -> [Float] {
        let r = max(1, Int((3 * sigma).rounded(.up)))
        var k = (-r...r).map { i in exp(-Double(i * i) / (2 * sigma * sigma)) }
        let s = k.reduce(0, +)
        k = k.map { $0 / s }
        return k.map(Float.init)
    }

    /// Three odd box widths whose combined variance is σ².
    static func boxWidths(sigma: Double) -> [Int] {
        let n = 3.0
        let ideal = (12 * sigma * sigma / n + 1).squareRoot()
        var wl = Int(ideal.rounded(.down))
        if wl % 2 == 0 { wl -= 1 }
        let wu = wl + 2
        let mIdeal = (12 * sigma * sigma - n * Double(wl * wl) - 4 * n * Double(wl) - 3 * n) / (-4 * Double(wl) - 4)
        let m = Int(mIdeal.rounded())
        return (0..<3).map { $0 < m ? wl : wu }
    }

    private static func convolve(_ p: UnsafeMutablePointer<Float>, count: Int, step: Int, kernel: [Float],
                                 tmp: UnsafeMutablePointer<Float>) {
        let r = kernel.count / 2
        for i in 0..<count { tmp[i] = p[i * step] }
        kernel.withUnsafeBufferPointer { k in
            for i in 0..<count {
                var s: Float = 0
                let lo = max(-r, -i), hi = min(r, count - 1 - i)
                var j = lo
                while j <= hi { s += tmp[i + j] * k[j + r]; j += 1 }
                p[i * step] = s
            }
        }
    }

    /// One centred box pass of odd width `box` with zero outside the plane.
    private static func boxPass(_ p: UnsafeMutablePointer<Float>, count: Int, step: Int, box: Int,
                                tmp: UnsafeMutablePointer<Float>) {
        let r = box / 2
        for i in 0..<count { tmp[i] = p[i * step] }
        let inv = 1 / Float(box)
        var sum: Float = 0
        // Window for output i covers i-r ... i+r.
        for j in 0..<min(r, count) { sum += tmp[j] }
        for i in 0..<count {
            let add = i + r, sub = i - r - 1
            if add < count { sum += tmp[add] }
            if sub >= 0 { sum -= tmp[sub] }
            p[i * step] = sum * inv
        }
    }
}
