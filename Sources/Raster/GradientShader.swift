/// Evaluates a linear gradient at device pixel centres.
///
/// A gradient that is vertical on the device (every row one colour, like all of the toggle's
/// top-to-bottom gradients) is evaluated exactly once per row. Otherwise a 1024-entry table of
/// premultiplied colours is stepped across the row (t changes by a constant per pixel); the
/// table's step is 1/1023 of the gradient, so the error stays under half a level per channel
/// for gradients whose colour change end to end is below 4×255 levels.
struct GradientShader {
    private let gradient: LinearGradient
    private let opacity: Double
    private let sx, sy: Double      // device start
    private let gx, gy: Double      // device direction divided by its squared length
    private let vertical: Bool
    private var table: [UInt32] = []

    static let tableSize = 1024

    init(_ g: LinearGradient, transform: Transform, opacity: Double) {
        gradient = g
        self.opacity = opacity
        let s = transform.apply(g.start), e = transform.apply(g.end)
        let d = e - s
        let len2 = d.dot(d)
        sx = s.x; sy = s.y
        gx = len2 > 0 ? d.x / len2 : 0
        gy = len2 > 0 ? d.y / len2 : 0
        vertical = abs(gx) < 1e-12
        if !vertical {
            let n = Self.tableSize
            table = (0..<n).map { i in
                g.color(at: Double(i) / Double(n - 1)).multipliedAlpha(opacity).premultiplied8.packed
            }
        }
    }

    /// The parameter t at a device point.
    @inline(__always) func parameter(_ x: Double, _ y: Double) -> Double { (x - sx) * gx + (y - sy) * gy }

    /// The packed colour of row `y` when the gradient does not vary along rows.
    func rowConstant(y: Int) -> UInt32? {
        guard vertical else { return nil }
        return gradient.color(at: parameter(0, Double(y) + 0.5)).multipliedAlpha(opacity).premultiplied8.packed
    }

    /// Writes `count` packed colours of row `y` starting at device x.
    func shade(y: Int, x: Int, count: Int, into out: UnsafeMutablePointer<UInt32>) {
        let scale = Double(Self.tableSize - 1)
        var t = parameter(Double(x) + 0.5, Double(y) + 0.5) * scale
        let dt = gx * scale
        table.withUnsafeBufferPointer { lut in
            let last = Double(Self.tableSize - 1)
            for i in 0..<count {
                let idx = Int(clamp(t, 0, last) + 0.5)
                out[i] = lut[idx]
                t += dt
            }
        }
    }
}
