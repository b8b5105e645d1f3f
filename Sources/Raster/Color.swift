/// A straight-alpha colour with components in 0…1 (sRGB, no linearisation: like Skia and
/// Core Graphics by default, all blending happens on the encoded values).
public struct Color: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var r: Double
    public var g: Double
    public var b: Double
    public var a: Double

    @inlinable public init(r: Double, g: Double, b: Double, a: Double = 1) {
        self.r = r; self.g = g; self.b = b; self.a = a
    }

    /// From 0–255 sRGB components and a 0–1 alpha, as the art spec writes colours.
    @inlinable public init(r255: Double, g255: Double, b255: Double, alpha: Double = 1) {
        self.init(r: r255 / 255, g: g255 / 255, b: b255 / 255, a: alpha)
    }

    public static let clear = Color(r: 0, g: 0, b: 0, a: 0)
    public static let black = Color(r: 0, g: 0, b: 0, a: 1)
    public static let white = Color(r: 1, g: 1, b: 1, a: 1)

    @inlinable public func withAlpha(_ alpha: Double) -> Color { Color(r: r, g: g, b: b, a: alpha) }
    @inlinable public func multipliedAlpha(_ k: Double) -> Color { Color(r: r, g: g, b: b, a: a * k) }

    /// Component-wise interpolation of straight values.
    @inlinable public func mix(_ o: Color, _ t: Double) -> Color {
        Color(r: r + (o.r - r) * t, g: g + (o.g - g) * t, b: b + (o.b - b) * t, a: a + (o.a - a) * t)
    }

    /// Rounded, clamped, premultiplied 8-bit form.
    @inlinable public var premultiplied8: PremultipliedRGBA8 {
        let aa = clamp(a, 0, 1)
        @inline(__always) func q(_ v: Double) -> UInt8 { UInt8(clamp(v, 0, 1) * 255 + 0.5) }
        return PremultipliedRGBA8(r: q(r * aa), g: q(g * aa), b: q(b * aa), a: q(aa))
    }

    public var description: String { "Color(\(r), \(g), \(b), \(a))" }
}

/// A premultiplied RGBA8 pixel value.
public struct PremultipliedRGBA8: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var r, g, b, a: UInt8

    @inlinable public init(r: UInt8, g: UInt8, b: UInt8, a: UInt8) { self.r = r; self.g = g; self.b = b; self.a = a }

    @inlinable public init(packed p: UInt32) {
        r = UInt8(truncatingIfNeeded: p)
        g = UInt8(truncatingIfNeeded: p >> 8)
        b = UInt8(truncatingIfNeeded: p >> 16)
        a = UInt8(truncatingIfNeeded: p >> 24)
    }

    /// Little-endian packing: R in the lowest byte.
    @inlinable public var packed: UInt32 {
        UInt32(r) | UInt32(g) << 8 | UInt32(b) << 16 | UInt32(a) << 24
    }

    /// Straight-alpha form (rounded division; fully transparent gives zeros).
    @inlinable public var unpremultiplied: StraightRGBA8 {
        guard a != 0 else { return StraightRGBA8(r: 0, g: 0, b: 0, a: 0) }
        let aa = UInt32(a)
        @inline(__always) func u(_ c: UInt8) -> UInt8 { UInt8(min(255, (UInt32(c) * 255 + aa / 2) / aa)) }
        return StraightRGBA8(r: u(r), g: u(g), b: u(b), a: a)
    }

    public var description: String { "rgba8p(\(r), \(g), \(b), \(a))" }
}

/// A straight-alpha RGBA8 value (what PNG files hold).
public struct StraightRGBA8: Equatable, Hashable, Sendable {
    public var r, g, b, a: UInt8

    @inlinable public init(r: UInt8, g: UInt8, b: UInt8, a: UInt8) { self.r = r; self.g = g; self.b = b; self.a = a }

    @inlinable public var premultiplied: PremultipliedRGBA8 {
        let aa = UInt32(a)
        @inline(__always) func m(_ c: UInt8) -> UInt8 { UInt8(div255(UInt32(c) * aa)) }
        return PremultipliedRGBA8(r: m(r), g: m(g), b: m(b), a: a)
    }
}
