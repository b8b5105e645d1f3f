import Raster
import KioskEngine
import KioskSupport

/// A size in pixels written `WxH` (e.g. `1024x600`), both sides in 1…16384.
extension PixelSize {
    public static let maxDimension = 16384

    /// Parses `WxH` (an `x` or `X` between two decimal integers, nothing else); nil when the
    /// text is malformed or a side is outside 1…16384.
    public init?(parsing text: String) {
        let parts = text.split(separator: "x", maxSplits: 2, omittingEmptySubsequences: false)
            .flatMap { $0.split(separator: "X", omittingEmptySubsequences: false) }
        guard parts.count == 2,
              parts.allSatisfy({ !$0.isEmpty && $0.count <= 6 && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let w = Int(parts[0]), let h = Int(parts[1]),
              (1...Self.maxDimension).contains(w), (1...Self.maxDimension).contains(h) else { return nil }
        self.init(width: w, height: h)
    }

    /// What a valid size looks like, for error messages.
    public static let expectation = "a size WxH with both sides whole numbers in 1…16384 (e.g. 1024x600)"
}

/// A colour as the config file writes it: `[r, g, b]` or `[r, g, b, a]`, each 0–255 (sRGB,
/// straight alpha; alpha 255 when omitted).
public struct ConfigColor: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var r: Double
    public var g: Double
    public var b: Double
    public var a: Double

    public init(r: Double, g: Double, b: Double, a: Double = 255) {
        self.r = r; self.g = g; self.b = b; self.a = a
    }

    /// The rasterizer's colour (components 0…1).
    public var color: Color { Color(r255: r, g255: g, b255: b, alpha: a / 255) }

    public var description: String { a == 255 ? "[\(r), \(g), \(b)]" : "[\(r), \(g), \(b), \(a)]" }
}

/// Accepted ranges shared by the config file and the command line.
public enum SettingLimits {
    /// Pixels per point.
    public static let scale: ClosedRange<Double> = 0.25...16
    /// Most pixels one `render` image may have (4096 × 4096, 64 MiB of pixels): checked
    /// before anything is allocated.
    public static let renderPixels = 4096 * 4096
    /// Toggle width in points: 60 pt (37 pt tall, about the smallest touch target) to 1024 pt.
    public static let toggleWidth: ClosedRange<Double> = 60...1024
    /// `display.sleep.afterIdleSeconds`: 1 s to a week.
    public static let sleepAfterIdle: ClosedRange<Double> = 1...604_800
}
