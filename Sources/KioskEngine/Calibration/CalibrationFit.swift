/// The affine least-squares fit of a touch calibration: device-normalised samples (0…1 on each
/// axis, what libinput reports before any matrix) against the output-normalised positions of
/// the targets they were taken at (0…1 across the output as scanned out). Pure.
///
/// Each row of libinput's matrix is fitted on its own: `x' = a·x + b·y + c` minimises
/// Σ(a·xᵢ + b·yᵢ + c − x'ᵢ)² over the samples (the 3×3 normal equations, solved by Cramer's
/// rule), likewise `y' = d·x + e·y + f`. Four targets in the corners give two equations more than
/// unknowns per row, so one bad sample shows as a residual and a miss at the check point.
public enum CalibrationFit {
    /// One sample: where the device said (`device`) when the target at `target` was touched.
    public struct Pair: Sendable, Equatable {
        public var device: (x: Double, y: Double)
        public var target: (x: Double, y: Double)
        public init(device: (x: Double, y: Double), target: (x: Double, y: Double)) {
            self.device = device
            self.target = target
        }
        public static func == (l: Pair, r: Pair) -> Bool {
            l.device == r.device && l.target == r.target
        }
    }

    /// Why no matrix came out.
    public enum Refusal: Error, Equatable, Sendable {
        /// Fewer than three samples: an affine map has three unknowns per row.
        case tooFewSamples(Int)
        /// The samples lie on one line (or one point): the touches did not move apart, so the
        /// map across the other direction is unknown.
        case collinearSamples
        /// The fitted matrix is not a usable calibration (singular, or values out of range).
        case unusableMatrix(CalibrationError)

        public var description: String {
            switch self {
            case .tooFewSamples(let n): return "\(n) samples, at least 3 are needed"
            case .collinearSamples: return "the touches lie on one line (the same place touched for different targets?)"
            case .unusableMatrix(let e): return "the fitted matrix is unusable: \(e.description)"
            }
        }
    }

    /// The least-squares matrix for `pairs`, or why there is none.
    public static func fit(_ pairs: [Pair]) -> Result<CalibrationMatrix, Refusal> {
        guard pairs.count >= 3 else { return .failure(.tooFewSamples(pairs.count)) }
        // Centred sums: the normal equations of the centred problem are 2×2, better conditioned.
        let n = Double(pairs.count)
        let mx = pairs.map(\.device.x).reduce(0, +) / n, my = pairs.map(\.device.y).reduce(0, +) / n
        let tx = pairs.map(\.target.x).reduce(0, +) / n, ty = pairs.map(\.target.y).reduce(0, +) / n
        var sxx = 0.0, sxy = 0.0, syy = 0.0, sxu = 0.0, syu = 0.0, sxv = 0.0, syv = 0.0
        for p in pairs {
            let x = p.device.x - mx, y = p.device.y - my
            let u = p.target.x - tx, v = p.target.y - ty
            sxx += x * x; sxy += x * y; syy += y * y
            sxu += x * u; syu += y * u; sxv += x * v; syv += y * v
        }
        let det = sxx * syy - sxy * sxy
        // Scale-free test: det / (sxx·syy) is sin² of the angle the samples span (0 on a line).
        guard sxx > 1e-12, syy > 1e-12, det / (sxx * syy) > 1e-3 else { return .failure(.collinearSamples) }
        let a = (sxu * syy - syu * sxy) / det, b = (syu * sxx - sxu * sxy) / det
        let d = (sxv * syy - syv * sxy) / det, e = (syv * sxx - sxv * sxy) / det
        let c = tx - a * mx - b * my, f = ty - d * mx - e * my
        switch CalibrationMatrix.validated([a, b, c, d, e, f]) {
        case .success(let m): return .success(m)
        case .failure(let error): return .failure(.unusableMatrix(error))
        }
    }
}
