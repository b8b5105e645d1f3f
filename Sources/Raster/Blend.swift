/// Span kernels on premultiplied RGBA8 rows. Two 8-bit channels travel in each 16-bit half of a
/// 32-bit word (`& 0x00FF00FF`), so one multiply scales two channels, and division by 255 is the
/// exact rounded `(x + 128 + ((x + 128) >> 8)) >> 8`. Wrapping operators keep overflow traps out
/// of the loops (no lane can overflow: 255·255 + 255 + 128 < 2¹⁶).
///
/// Coverage and mask rows are read eight bytes at a time: a word of all 255 starts a run that is
/// blended without per-pixel tests (the same arithmetic as full coverage), a word of zeros is
/// skipped, and only mixed words go pixel by pixel. Inner loops have no branches, so the
/// compiler can vectorise them.
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
    /// With `src == 0` the result is `dst` exactly.
    @inlinable @inline(__always)
    public static func overScaled(_ src: UInt32, _ k: UInt32, _ dst: UInt32) -> UInt32 {
        let inv = 65025 &- (src &>> 24) &* k          // 255² · (1 − src.a·k/255²)
        let sk = k &* 255
        @inline(__always) func channel(_ shift: UInt32) -> UInt32 {
            let s = (src &>> shift) & 0xFF, d = (dst &>> shift) & 0xFF
            return ((s &* sk &+ d &* inv &+ 32512) / 65025) &<< shift
        }
        return channel(0) | channel(8) | channel(16) | channel(24)
    }

    /// Eight coverage bytes from `p + i` as one word (unaligned load).
    @inlinable @inline(__always)
    static func word(_ p: UnsafePointer<UInt8>, _ i: Int) -> UInt64 {
        UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self)
    }

    /// The end of the run of 8-byte words equal to `value` starting at `i` (a multiple of 8 past
    /// `i`, never beyond `count`).
    @inlinable @inline(__always)
    static func runEnd(_ p: UnsafePointer<UInt8>, from i: Int, count: Int, equalTo value: UInt64) -> Int {
        var j = i
        while j &+ 8 <= count && word(p, j) == value { j &+= 8 }
        return j
    }

    /// Walks a coverage (or mask) row 8 bytes at a time: runs of 255 go to `full` as one span
    /// (start, count), runs of 0 are skipped, and every other pixel goes to `partial`.
    @inlinable @inline(__always)
    static func walkCoverage(_ coverage: UnsafePointer<UInt8>, count: Int,
                             full: (_ start: Int, _ count: Int) -> Void, partial: (_ index: Int) -> Void) {
        var i = 0
        while i < count {
            if i &+ 8 <= count {
                let w = word(coverage, i)
                if w == ~0 {
                    let end = runEnd(coverage, from: i &+ 8, count: count, equalTo: ~0)
                    full(i, end &- i)
                    i = end
                    continue
                }
                if w == 0 { i = runEnd(coverage, from: i &+ 8, count: count, equalTo: 0); continue }
                for j in i..<(i &+ 8) { partial(j) }
                i &+= 8
            } else {
                partial(i)
                i &+= 1
            }
        }
    }

    /// `dst[i] = table[keys[i]]` for a row (`table` holds 256 entries); a run of eight equal
    /// keys and the words of the same key after it are written as one repeated value.
    @inlinable
    public static func lookUpSpan(_ dst: UnsafeMutablePointer<UInt32>, keys: UnsafePointer<UInt8>, count: Int,
                                  table: UnsafePointer<UInt32>) {
        var i = 0
        while i < count {
            if i &+ 8 <= count {
                let w = word(keys, i)
                let same = UInt64(keys[i]) &* 0x0101_0101_0101_0101
                if w == same {
                    let end = runEnd(keys, from: i &+ 8, count: count, equalTo: same)
                    (dst + i).update(repeating: table[Int(keys[i])], count: end &- i)
                    i = end
                    continue
                }
                for j in i..<(i &+ 8) { dst[j] = table[Int(keys[j])] }
                i &+= 8
            } else {
                dst[i] = table[Int(keys[i])]
                i &+= 1
            }
        }
    }

    /// `dst = dst over src` for a row: the source goes behind what is there (a shadow under its
    /// content), four pixels at a time in lanes (`over4`), the rest one by one.
    @inlinable
    public static func behindSpan(_ dst: UnsafeMutablePointer<UInt32>, source: UnsafePointer<UInt32>, count: Int) {
        let n4 = count & ~3
        var i = 0
        while i < n4 {
            let d = UnsafeRawPointer(dst + i).loadUnaligned(as: SIMD4<UInt32>.self)
            let s = UnsafeRawPointer(source + i).loadUnaligned(as: SIMD4<UInt32>.self)
            UnsafeMutableRawPointer(dst + i).storeBytes(of: over4(d, s), as: SIMD4<UInt32>.self)
            i &+= 4
        }
        while i < count { dst[i] = over(dst[i], source[i]); i &+= 1 }
    }

    /// `levels[i] = v·255` rounded, for `v = values[i]` clamped to 0…1 (a blurred coverage plane
    /// as 8-bit levels; a loop that vectorises).
    @inlinable
    public static func quantize(_ values: UnsafePointer<Float>, count: Int, into levels: UnsafeMutablePointer<UInt8>) {
        for i in 0..<count { levels[i] = UInt8(min(max(values[i], 0), 1) * 255 + 0.5) }
    }

    /// `dst = color·coverage over dst` for a row; `coverage == nil` means full coverage.
    @inlinable
    public static func solidSpan(_ dst: UnsafeMutablePointer<UInt32>, count: Int, color: UInt32,
                                 coverage: UnsafePointer<UInt8>?) {
        guard let coverage else {
            fullSolid(dst, count: count, color: color)
            return
        }
        walkCoverage(coverage, count: count,
                     full: { fullSolid(dst + $0, count: $1, color: color) },
                     partial: { partialSolid(dst + $0, color: color, coverage: UInt32(coverage[$0])) })
    }

    /// Full-coverage solid run: a store for opaque colours, src-over otherwise.
    @inlinable @inline(__always)
    static func fullSolid(_ dst: UnsafeMutablePointer<UInt32>, count: Int, color: UInt32) {
        if color &>> 24 == 255 {
            dst.update(repeating: color, count: count)
        } else {
            // `over(color, d)`, four pixels at a time in lanes (`overLanes4`), the rest one by one.
            let c = lanes4(SIMD4<UInt32>(repeating: color))
            let n4 = count & ~3
            var i = 0
            while i < n4 {
                let d = UnsafeRawPointer(dst + i).loadUnaligned(as: SIMD4<UInt32>.self)
                UnsafeMutableRawPointer(dst + i).storeBytes(of: overLanes4(rb: c.rb, ag: c.ag, d), as: SIMD4<UInt32>.self)
                i &+= 4
            }
            while i < count { dst[i] = over(color, dst[i]); i &+= 1 }
        }
    }

    @inlinable @inline(__always)
    static func partialSolid(_ dst: UnsafeMutablePointer<UInt32>, color: UInt32, coverage c: UInt32) {
        if c == 0 { return }
        if c == 255 {
            dst.pointee = color &>> 24 == 255 ? color : over(color, dst.pointee)
        } else {
            dst.pointee = overScaled(color, c, dst.pointee)
        }
    }

    /// `dst = src·coverage over dst` with a per-pixel source row.
    @inlinable
    public static func sourceSpan(_ dst: UnsafeMutablePointer<UInt32>, count: Int, source: UnsafePointer<UInt32>,
                                  coverage: UnsafePointer<UInt8>?) {
        guard let coverage else {
            fullSource(dst, count: count, source: source)
            return
        }
        walkCoverage(coverage, count: count,
                     full: { fullSource(dst + $0, count: $1, source: source + $0) },
                     partial: { partialSource(dst + $0, source[$0], coverage: UInt32(coverage[$0])) })
    }

    @inlinable @inline(__always)
    static func fullSource(_ dst: UnsafeMutablePointer<UInt32>, count: Int, source: UnsafePointer<UInt32>) {
        fullLayer(dst, source: source, count: count, opacity: 255)
    }

    @inlinable @inline(__always)
    static func partialSource(_ dst: UnsafeMutablePointer<UInt32>, _ s: UInt32, coverage c: UInt32) {
        if c == 0 { return }
        dst.pointee = c == 255 ? over(s, dst.pointee) : overScaled(s, c, dst.pointee)
    }

    /// Composites a layer row onto a destination row: `dst = src·opacity·mask over dst`
    /// (opacity 0…255; mask optional).
    @inlinable
    public static func layerSpan(_ dst: UnsafeMutablePointer<UInt32>, source: UnsafePointer<UInt32>, count: Int,
                                 opacity: UInt32, mask: UnsafePointer<UInt8>?) {
        guard let mask else {
            fullLayer(dst, source: source, count: count, opacity: opacity)
            return
        }
        walkCoverage(mask, count: count,
                     full: { fullLayer(dst + $0, source: source + $0, count: $1, opacity: opacity) },
                     partial: { partialLayer(dst + $0, source[$0], opacity: opacity, mask: UInt32(mask[$0])) })
    }

    /// `dst = over(scale(b, kb), over(scale(a, ka), dst))` for a row: two layers composited one
    /// after the other (`layerSpan` twice, no mask), in one pass. The scale is skipped at 255.
    @inlinable
    public static func layerPairSpan(_ dst: UnsafeMutablePointer<UInt32>, _ a: UnsafePointer<UInt32>, opacity ka: UInt32,
                                     _ b: UnsafePointer<UInt32>, opacity kb: UInt32, count: Int) {
        let fa = SIMD8<UInt16>(repeating: UInt16(ka)), fb = SIMD8<UInt16>(repeating: UInt16(kb))
        let n4 = count & ~3
        var i = 0
        while i < n4 {
            let sa = UnsafeRawPointer(a + i).loadUnaligned(as: SIMD4<UInt32>.self)
            let sb = UnsafeRawPointer(b + i).loadUnaligned(as: SIMD4<UInt32>.self)
            var d = UnsafeRawPointer(dst + i).loadUnaligned(as: SIMD4<UInt32>.self)
            d = ka == 255 ? over4(sa, d) : scaledOver4(sa, fa, d)
            d = kb == 255 ? over4(sb, d) : scaledOver4(sb, fb, d)
            UnsafeMutableRawPointer(dst + i).storeBytes(of: d, as: SIMD4<UInt32>.self)
            i &+= 4
        }
        while i < count {
            let d = over(ka == 255 ? a[i] : scale(a[i], ka), dst[i])
            dst[i] = over(kb == 255 ? b[i] : scale(b[i], kb), d)
            i &+= 1
        }
    }

    /// `dst = scale(src, opacity)`: `layerSpan` without a mask onto transparent pixels
    /// (`over(x, 0) == x`), which are not read. A copy at opacity 255.
    @inlinable
    public static func storeSpan(_ dst: UnsafeMutablePointer<UInt32>, source: UnsafePointer<UInt32>, count: Int,
                                 opacity: UInt32) {
        if opacity == 255 {
            dst.update(from: source, count: count)
            return
        }
        let k = SIMD8<UInt16>(repeating: UInt16(opacity))
        let n4 = count & ~3
        var i = 0
        while i < n4 {
            let l = lanes4(UnsafeRawPointer(source + i).loadUnaligned(as: SIMD4<UInt32>.self))
            UnsafeMutableRawPointer(dst + i).storeBytes(of: pack4(rb: mulDiv255(l.rb, k), ag: mulDiv255(l.ag, k)),
                                                        as: SIMD4<UInt32>.self)
            i &+= 4
        }
        while i < count { dst[i] = scale(source[i], opacity); i &+= 1 }
    }

    /// `layerSpan` with a mask, except that where the mask is 255 the layer goes over the
    /// premultiplied colour `backdrop`, not over `dst` (which is then not read): `dst =
    /// over(scale(src, opacity), backdrop)` there, `layerSpan`'s result elsewhere.
    @inlinable
    public static func layerSpan(_ dst: UnsafeMutablePointer<UInt32>, source: UnsafePointer<UInt32>, count: Int,
                                 opacity: UInt32, mask: UnsafePointer<UInt8>, backdrop: UInt32) {
        walkCoverage(mask, count: count,
                     full: { fullLayer(dst + $0, source: source + $0, count: $1, opacity: opacity, backdrop: backdrop) },
                     partial: {
                         let m = UInt32(mask[$0])
                         if m == 255 {
                             let s = opacity == 255 ? source[$0] : scale(source[$0], opacity)
                             dst[$0] = over(s, backdrop)
                         } else {
                             partialLayer(dst + $0, source[$0], opacity: opacity, mask: m)
                         }
                     })
    }

    /// `dst = over(scale(src, opacity), backdrop)` for a run (the scale skipped at 255).
    @inlinable @inline(__always)
    static func fullLayer(_ dst: UnsafeMutablePointer<UInt32>, source: UnsafePointer<UInt32>, count: Int,
                          opacity: UInt32, backdrop: UInt32) {
        let n4 = count & ~3
        var i = 0
        let b = SIMD4<UInt32>(repeating: backdrop)
        let k = SIMD8<UInt16>(repeating: UInt16(opacity))
        while i < n4 {
            let s = UnsafeRawPointer(source + i).loadUnaligned(as: SIMD4<UInt32>.self)
            let out = opacity == 255 ? over4(s, b) : scaledOver4(s, k, b)
            UnsafeMutableRawPointer(dst + i).storeBytes(of: out, as: SIMD4<UInt32>.self)
            i &+= 4
        }
        while i < count {
            dst[i] = over(opacity == 255 ? source[i] : scale(source[i], opacity), backdrop)
            i &+= 1
        }
    }

    /// A layer run under full mask. Skipping transparent source pixels and storing opaque ones
    /// is what src-over gives too (`over(0, d) = d`, `overScaled(0, k, d) = d`), so the loops
    /// need no per-pixel tests, except the opaque-store shortcut at full opacity.
    @inlinable @inline(__always)
    static func fullLayer(_ dst: UnsafeMutablePointer<UInt32>, source: UnsafePointer<UInt32>, count: Int,
                          opacity: UInt32) {
        // Four pixels at a time in 16-bit lanes (`over4`, `scaledOver4`: the same integer
        // arithmetic per channel as `over`/`scale`), the rest one by one.
        let n4 = count & ~3
        var i = 0
        if opacity == 255 {
            while i < n4 {
                let s = UnsafeRawPointer(source + i).loadUnaligned(as: SIMD4<UInt32>.self)
                let d = UnsafeRawPointer(dst + i).loadUnaligned(as: SIMD4<UInt32>.self)
                UnsafeMutableRawPointer(dst + i).storeBytes(of: over4(s, d), as: SIMD4<UInt32>.self)
                i &+= 4
            }
            while i < count { dst[i] = over(source[i], dst[i]); i &+= 1 }
        } else {
            // Whole-layer opacity: scale, then blend (two roundings, each exact to half a level,
            // so within one level of the exact result; tested against direct drawing).
            let k = SIMD8<UInt16>(repeating: UInt16(opacity))
            while i < n4 {
                let s = UnsafeRawPointer(source + i).loadUnaligned(as: SIMD4<UInt32>.self)
                let d = UnsafeRawPointer(dst + i).loadUnaligned(as: SIMD4<UInt32>.self)
                UnsafeMutableRawPointer(dst + i).storeBytes(of: scaledOver4(s, k, d), as: SIMD4<UInt32>.self)
                i &+= 4
            }
            while i < count { dst[i] = over(scale(source[i], opacity), dst[i]); i &+= 1 }
        }
    }

    // MARK: Four pixels in 16-bit lanes
    //
    // A pixel's channels are split into two pairs, red and blue (`rb`) and green and alpha
    // (`ag`), each channel in the low byte of a 16-bit lane, so one 16-bit multiply scales one
    // channel of a pixel and eight lanes hold four pixels' pairs.

    /// The `rb` and `ag` lanes of four pixels.
    @inlinable @inline(__always)
    static func lanes4(_ p: SIMD4<UInt32>) -> (rb: SIMD8<UInt16>, ag: SIMD8<UInt16>) {
        let low = SIMD4<UInt32>(repeating: 0x00FF_00FF)
        return (unsafeBitCast(p & low, to: SIMD8<UInt16>.self), unsafeBitCast((p &>> 8) & low, to: SIMD8<UInt16>.self))
    }

    /// Four pixels from their lanes: the two pairs added at their places in the word, so the
    /// result is the word sum the scalar kernels compute (`src &+ scale(dst, inv)`) even when a
    /// lane exceeds 255.
    @inlinable @inline(__always)
    static func pack4(rb: SIMD8<UInt16>, ag: SIMD8<UInt16>) -> SIMD4<UInt32> {
        unsafeBitCast(rb, to: SIMD4<UInt32>.self) &+ (unsafeBitCast(ag, to: SIMD4<UInt32>.self) &<< 8)
    }

    /// `c·k/255` rounded, per lane (c, k ≤ 255), with `scale`'s rounding: `t = c·k + 128`, then
    /// `(t·257) >> 16`, which equals `scale`'s `(t + t >> 8) >> 8` for every t < 2¹⁶ (t + ⌊t/256⌋
    /// is a whole number, so the dropped fraction t mod 256 / 256 cannot carry it over a multiple
    /// of 256). The high half of a 16-bit multiply: one instruction on SSE2 (`pmulhuw`), a
    /// widening multiply and a narrowing shift on NEON.
    @inlinable @inline(__always)
    static func mulDiv255(_ c: SIMD8<UInt16>, _ k: SIMD8<UInt16>) -> SIMD8<UInt16> {
        let t = SIMD8<UInt32>(truncatingIfNeeded: c &* k &+ 128) &* 257
        return SIMD8<UInt16>(truncatingIfNeeded: t &>> 16)
    }

    /// `255 − alpha` of four pixels given their `ag` lanes, in both lanes of each pixel (the
    /// factor `mulDiv255` scales a destination's pairs by).
    @inlinable @inline(__always)
    static func inverseAlpha4(_ ag: SIMD8<UInt16>) -> SIMD8<UInt16> {
        let inv = SIMD4<UInt32>(repeating: 255) &- (unsafeBitCast(ag, to: SIMD4<UInt32>.self) &>> 16)
        return unsafeBitCast(inv | (inv &<< 16), to: SIMD8<UInt16>.self)
    }

    /// `over` of four sources given as lanes onto four destination pixels.
    @inlinable @inline(__always)
    static func overLanes4(rb: SIMD8<UInt16>, ag: SIMD8<UInt16>, _ d: SIMD4<UInt32>) -> SIMD4<UInt32> {
        let f = inverseAlpha4(ag)
        let dst = lanes4(d)
        return pack4(rb: rb &+ mulDiv255(dst.rb, f), ag: ag &+ mulDiv255(dst.ag, f))
    }

    /// `over` of four pixels: `src + scale(dst, 255 − src.a)` with the same word additions.
    @inlinable @inline(__always)
    static func over4(_ s: SIMD4<UInt32>, _ d: SIMD4<UInt32>) -> SIMD4<UInt32> {
        let l = lanes4(s)
        return overLanes4(rb: l.rb, ag: l.ag, d)
    }

    /// `over(scale(s, k), d)` of four pixels, the scaled source kept in lanes between the two
    /// steps (the same two roundings as the scalar pair).
    @inlinable @inline(__always)
    static func scaledOver4(_ s: SIMD4<UInt32>, _ k: SIMD8<UInt16>, _ d: SIMD4<UInt32>) -> SIMD4<UInt32> {
        let l = lanes4(s)
        return overLanes4(rb: mulDiv255(l.rb, k), ag: mulDiv255(l.ag, k), d)
    }

    /// `dst = src over color` for a row: a layer composited onto a solid fill in one write per
    /// pixel, without reading `dst` (same bytes as filling with `color`, then `layerSpan` at
    /// opacity 255 without mask).
    @inlinable
    public static func overColorSpan(_ dst: UnsafeMutablePointer<UInt32>, source: UnsafePointer<UInt32>, count: Int,
                                     color: UInt32) {
        // A composed control is mostly transparent (outside the capsule) or opaque (inside):
        // those runs are a fill and a copy, found two pixels at a time; the few partial pixels
        // (edges, shadows) take `s + color·(255 − s.a)/255` from a table of the 256 tints.
        let lut = UnsafeMutablePointer<UInt32>.allocate(capacity: 256)
        defer { lut.deallocate() }
        for k in 0..<256 { lut[k] = scale(color, UInt32(k)) }
        let raw = UnsafeRawPointer(source)
        let opaque2: UInt64 = 0xFF00_0000_FF00_0000
        var i = 0
        while i < count {
            let s = source[i]
            var j = i &+ 1
            if s == 0 {
                while j &+ 2 <= count && raw.loadUnaligned(fromByteOffset: j &* 4, as: UInt64.self) == 0 { j &+= 2 }
                while j < count && source[j] == 0 { j &+= 1 }
                (dst + i).update(repeating: color, count: j &- i)
            } else if s >= 0xFF00_0000 {
                while j &+ 2 <= count && raw.loadUnaligned(fromByteOffset: j &* 4, as: UInt64.self) & opaque2 == opaque2 { j &+= 2 }
                while j < count && source[j] >= 0xFF00_0000 { j &+= 1 }
                (dst + i).update(from: source + i, count: j &- i)
            } else {
                dst[i] = s &+ lut[Int(255 &- (s &>> 24))]
            }
            i = j
        }
    }

    /// `dst = a + (b − a)·weight/256` per channel, for a row (weight 0…256): the cross-fade of
    /// two premultiplied rows. Weight 0 gives `a` exactly, 256 gives `b` exactly; two channels
    /// per multiply, no lane can overflow (255·256 < 2¹⁶), and a valid premultiplied pair gives
    /// a valid premultiplied result (the same weights on colour and alpha, rounded down alike).
    @inlinable
    public static func lerpSpan(_ dst: UnsafeMutablePointer<UInt32>, _ a: UnsafePointer<UInt32>, _ b: UnsafePointer<UInt32>,
                                count: Int, weight: UInt32) {
        let wb = min(weight, 256), wa = 256 &- wb
        for i in 0..<count {
            let x = a[i], y = b[i]
            let rb = ((x & 0x00FF_00FF) &* wa &+ (y & 0x00FF_00FF) &* wb) &>> 8
            let ga = (((x &>> 8) & 0x00FF_00FF) &* wa &+ ((y &>> 8) & 0x00FF_00FF) &* wb) &>> 8
            dst[i] = (rb & 0x00FF_00FF) | ((ga & 0x00FF_00FF) &<< 8)
        }
    }

    @inlinable @inline(__always)
    static func partialLayer(_ dst: UnsafeMutablePointer<UInt32>, _ s: UInt32, opacity: UInt32, mask m: UInt32) {
        if s == 0 { return }
        let k = opacity == 255 ? m : div255(m &* opacity)
        if k == 0 { return }
        dst.pointee = k == 255 ? over(s, dst.pointee) : over(scale(s, k), dst.pointee)
    }
}
