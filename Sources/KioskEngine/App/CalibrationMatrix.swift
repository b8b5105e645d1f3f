/// A touch calibration matrix in libinput's form (the `LIBINPUT_CALIBRATION_MATRIX` udev
/// property and config `input.calibration`): the first two rows `[a, b, c, d, e, f]` of a 3×3
/// affine matrix that maps a position normalised to the device's axis ranges (0…1 on each
/// axis) to a position normalised to the output (0…1 across the screen as scanned out, before
/// the page's `--rotate`):
///
///     x' = a·x + b·y + c
///     y' = d·x + e·y + f
///
/// So `[1,0,0, 0,1,0]` is the identity, `[-1,0,1, 0,1,0]` mirrors X, `[0,1,0, -1,0,1]` turns
/// the panel a quarter clockwise (libinput's documented example for a 90° mount), and `c`/`f`
/// shift by a fraction of the screen. Pure: the host applies it to absolute devices.
public struct CalibrationMatrix: Sendable, Equatable {
    public var a, b, c, d, e, f: Double

    public init(_ a: Double, _ b: Double, _ c: Double, _ d: Double, _ e: Double, _ f: Double) {
        (self.a, self.b, self.c, self.d, self.e, self.f) = (a, b, c, d, e, f)
    }

    public static let identity = CalibrationMatrix(1, 0, 0, 0, 1, 0)

    /// The six values in order.
    public var values: [Double] { [a, b, c, d, e, f] }

    /// What a valid matrix looks like, for error messages.
    public static let expectation = "an array of 6 finite numbers [a, b, c, d, e, f] (libinput's calibration matrix) or null"

    /// Largest magnitude accepted for a value: a real calibration scales by a few and shifts by
    /// a fraction of the screen; values beyond this are typing mistakes.
    public static let limit = 100.0

    /// The matrix for six values, or why they are not one (a short phrase naming the index).
    public static func validated(_ values: [Double]) -> Result<CalibrationMatrix, CalibrationError> {
        guard values.count == 6 else { return .failure(.count(values.count)) }
        for (i, v) in values.enumerated() {
            guard v.isFinite else { return .failure(.notFinite(index: i)) }
            guard abs(v) <= limit else { return .failure(.tooLarge(index: i, value: v)) }
        }
        let m = CalibrationMatrix(values[0], values[1], values[2], values[3], values[4], values[5])
        // A singular matrix squeezes the whole panel onto a line or a point: every touch would land there.
        guard abs(m.determinant) >= 1e-6 else { return .failure(.singular) }
        return .success(m)
    }

    /// The values as written in a config file, e.g. "[1.1, 0, -0.05, 0, 1.1, -0.05]".
    public var text: String { "[" + values.map(Self.format).joined(separator: ", ") + "]" }

    /// A value as a person writes it: "0", not "0.0".
    public static func format(_ v: Double) -> String {
        v.isFinite && v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : "\(v)"
    }

    /// `a·e − b·d`: zero when the matrix cannot be inverted.
    public var determinant: Double { a * e - b * d }

    /// Maps a device-normalised position to an output-normalised one.
    public func apply(x: Double, y: Double) -> (x: Double, y: Double) {
        (a * x + b * y + c, d * x + e * y + f)
    }
}

/// Why six values are not a calibration matrix.
public enum CalibrationError: Error, Equatable, Sendable {
    case count(Int)
    case notFinite(index: Int)
    case tooLarge(index: Int, value: Double)
    case singular

    /// One phrase for a message that already names the key.
    public var description: String {
        switch self {
        case .count(let n): return "expected 6 numbers [a, b, c, d, e, f], found \(n)"
        case .notFinite(let i): return "item \(i) is not a finite number"
        case .tooLarge(let i, let v): return "item \(i) (\(CalibrationMatrix.format(v))) is outside -\(Int(CalibrationMatrix.limit))…\(Int(CalibrationMatrix.limit))"
        case .singular: return "the matrix is singular (a·e − b·d is 0): every touch would land on one line"
        }
    }
}
