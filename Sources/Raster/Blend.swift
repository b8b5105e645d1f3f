/// Span kernels on premultiplied RGBA8 rows. Two 8-bit channels travel in each 16-bit half of a
/// 32-bit word (`& 0x00FF00FF`), so one multiply scales two channels, and division by 255 is the
/// exact rounded `(x + 128 + ((x + 128) >> 8)) >> 8`. Wrapping operators keep overflow traps out
/// of the loops (no lane can overflow: 255·255 + 255 + 128 < 2¹⁶).
public enum Blend {
    /// Scales all four channels of a packed pixel by k/255 (rounded).
    @inlinable @inline(__always)
    public static func scale(_ p: UInt32, _ k: UInt32) -> UInt32 {
        var rb = (p & 0x00FF_00FF) &* k &+ 0x0080_0080
        rb = ((rb &+ ((rb &>> 8) & 0x00FF_00FF)) &>> 8) & 0x00FF_00FF
        var ag = ((p &>> 8) & 0x00FF_00FF) &* k &+ 0x0080_0080
        ag = (ag &+ ((ag &>> 8) & 0x00FF_00FF)) & 0xFF00_FF00
        return rb | ag
    }

    /// Premultiplied src-over: `src + dst·(1 − src.a)`.
    @inlinable @inline(__always)
    public static func over(_ src: UInt32, _ dst: UInt32) -> UInt32 {
        let inv = 255 &- (src &>> 24)
        return src &+ scale(dst, inv)
    }

    /// `src·k/255 over dst` with a single rounding per channel (exact to half a level), used
    /// where coverage or opacity is partial: scaling first and blending after would round twice.
    @inlinable @inline(__always)
    public static func overScaled(_ src: UInt32, _ k: UInt32, _ dst: UInt32) -> UInt32 {
        let inv = 65025 &- (src &>> 24) &* k          // 255² · (1 − src.a·k/255²)
        var out: UInt32 = 0
        var shift: UInt32 = 0
        while shift < 32 {
            let s = (src &>> shift) & 0xFF, d = (dst &>> shift) & 0xFF
            let v = s &* k &* 255 &+ d &* inv
            out |= ((v &+ 32512) / 65025) &<< shift
            shift &+= 8
        }
        return out
    }

    /// `dst = color·coverage over dst` for a row; `coverage == nil` means full coverage.
    @inlinable
    public static func solidSpan(_ dst: UnsafeMutablePointer<UInt32>, count: Int, color: UInt32,
                                 coverage: UnsafePointer<UInt8>?) {
        let opaque = color &>> 24 == 255
        if let coverage {
            for i in 0..<count {
                let c = UInt32(coverage[i])
                if c == 0 { continue }
                if c == 255 {
                    dst[i] = opaque ? color : over(color, dst[i])
                } else {
                    dst[i] = overScaled(color, c, dst[i])
                }
            }
        } else if opaque {
            dst.update(repeating: color, count: count)
        } else {
            let inv = 255 &- (color &>> 24)
            for i in 0..<count { dst[i] = color &+ scale(dst[i], inv) }
        }
    }

    /// `dst = src·coverage over dst` with a per-pixel source row.
    @inlinable
    public static func sourceSpan(_ dst: UnsafeMutablePointer<UInt32>, count: Int, source: UnsafePointer<UInt32>,
                                  coverage: UnsafePointer<UInt8>?) {
        if let coverage {
            for i in 0..<count {
                let c = UInt32(coverage[i])
                if c == 0 { continue }
                dst[i] = c == 255 ? over(source[i], dst[i]) : overScaled(source[i], c, dst[i])
            }
        } else {
            for i in 0..<count { dst[i] = over(source[i], dst[i]) }
        }
    }

    /// Composites a layer row onto a destination row: `dst = src·opacity·mask over dst`
    /// (opacity 0…255; mask optional).
    @inlinable
    public static func layerSpan(_ dst: UnsafeMutablePointer<UInt32>, source: UnsafePointer<UInt32>, count: Int,
                                 opacity: UInt32, mask: UnsafePointer<UInt8>?) {
        if let mask {
            for i in 0..<count {
                let s = source[i]
                if s == 0 { continue }
                let k = opacity == 255 ? UInt32(mask[i]) : div255(UInt32(mask[i]) &* opacity)
                if k == 0 { continue }
                dst[i] = k == 255 ? over(s, dst[i]) : overScaled(s, k, dst[i])
            }
        } else if opacity == 255 {
            for i in 0..<count {
                let s = source[i]
                if s == 0 { continue }
                dst[i] = s &>> 24 == 255 ? s : over(s, dst[i])
            }
        } else {
            for i in 0..<count {
                let s = source[i]
                if s == 0 { continue }
                dst[i] = overScaled(s, opacity, dst[i])
            }
        }
    }

    /// Multiplies a row in place by a mask (destination-in): `dst = dst·mask`.
    @inlinable
    public static func maskSpan(_ dst: UnsafeMutablePointer<UInt32>, count: Int, mask: UnsafePointer<UInt8>) {
        for i in 0..<count {
            let m = UInt32(mask[i])
            if m == 255 { continue }
            dst[i] = m == 0 ? 0 : scale(dst[i], m)
        }
    }
}
