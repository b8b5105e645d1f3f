#if !RASTER_AVX2
import RasterAVX2
#endif

/// Exact rounded division by 255 for 0…65025 (here, beside the kernels, so that their
/// second copy, RasterAVX2, has it too).
@inlinable @inline(__always) public func div255(_ x: UInt32) -> UInt32 {
    let t = x &+ 128
    return (t &+ (t &>> 8)) &>> 8
}

/// Span kernels on premultiplied RGBA8 rows. Two 8-bit channels travel in each 16-bit half of a
/// 32-bit word (`& 0x00FF00FF`), so one multiply scales two channels, and division by 255 is the
/// exact rounded `(x + 128 + ((x + 128) >> 8)) >> 8`. Wrapping operators keep overflow traps out
/// of the loops (no lane can overflow: 255·255 + 255 + 128 < 2¹⁶).
///
/// Coverage and mask rows are read eight bytes at a time: a word of all 255 starts a run that is
/// blended without per-pixel tests (the same arithmetic as full coverage), a word of zeros is
/// skipped, and only mixed words go pixel by pixel. Inner loops have no branches, so the
/// compiler can vectorise them.
///
/// This file is compiled twice: here, for the package's CPU, and as the module `RasterAVX2`
/// (a link to this file) for x86-64-v3, with `RASTER_AVX2` defined. Each public span begins by
/// handing the row to that copy while `Kernels` has chosen it; in the copy itself the spans are
/// `@inline(never)`, so their AVX2 bodies are never inlined into code built for the baseline.
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
        walkCoverage(coverage, count: count, full: full,
                     mixed: { for j in $0..<($0 &+ 8) { partial(j) } }, partial: partial)
    }

    /// `walkCoverage`, with each word of eight bytes that mixes values going to `mixed` (its
    /// start) as a whole; `partial` takes only the row's last pixels after the whole words.
    @inlinable @inline(__always)
    static func walkCoverage(_ coverage: UnsafePointer<UInt8>, count: Int,
                             full: (_ start: Int, _ count: Int) -> Void, mixed: (_ start: Int) -> Void,
                             partial: (_ index: Int) -> Void) {
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
                mixed(i)
                i &+= 8
            } else {
                partial(i)
                i &+= 1
            }
        }
    }

    /// `dst[i] = table[keys[i]]` for a row (`table` holds 256 entries); a run of eight equal
    /// keys and the words of the same key after it are written as one repeated value.
    #if RASTER_AVX2
    @inline(never)
    #else
    @inlinable
    #endif
    public static func lookUpSpan(_ dst: UnsafeMutablePointer<UInt32>, keys: UnsafePointer<UInt8>, count: Int,
                                  table: UnsafePointer<UInt32>) {
        #if !RASTER_AVX2
        if Kernels.useAVX2 { RasterAVX2.Blend.lookUpSpan(dst, keys: keys, count: count, table: table); return }
        #endif
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
    /// content), a block at a time in lanes (`overBlock`), the rest one by one.
    #if RASTER_AVX2
    @inline(never)
    #else
    @inlinable
    #endif
    public static func behindSpan(_ dst: UnsafeMutablePointer<UInt32>, source: UnsafePointer<UInt32>, count: Int) {
        #if !RASTER_AVX2
        if Kernels.useAVX2 { RasterAVX2.Blend.behindSpan(dst, source: source, count: count); return }
        #endif
        let nb = count & ~(blockWidth &- 1)
        var i = 0
        while i < nb {
            let d = UnsafeRawPointer(dst + i).loadUnaligned(as: Pixels.self)
            let s = UnsafeRawPointer(source + i).loadUnaligned(as: Pixels.self)
            UnsafeMutableRawPointer(dst + i).storeBytes(of: overBlock(d, s), as: Pixels.self)
            i &+= blockWidth
        }
        while i < count { dst[i] = over(dst[i], source[i]); i &+= 1 }
    }

    /// `levels[i] = v·255` rounded, for `v = values[i]` clamped to 0…1 (a blurred coverage plane
    /// as 8-bit levels; a loop that vectorises).
    #if RASTER_AVX2
    @inline(never)
    #else
    @inlinable
    #endif
    public static func quantize(_ values: UnsafePointer<Float>, count: Int, into levels: UnsafeMutablePointer<UInt8>) {
        #if !RASTER_AVX2
        if Kernels.useAVX2 { RasterAVX2.Blend.quantize(values, count: count, into: levels); return }
        #endif
        for i in 0..<count { levels[i] = UInt8(min(max(values[i], 0), 1) * 255 + 0.5) }
    }

    /// `dst = color·coverage over dst` for a row; `coverage == nil` means full coverage.
    #if RASTER_AVX2
    @inline(never)
    #else
    @inlinable
    #endif
    public static func solidSpan(_ dst: UnsafeMutablePointer<UInt32>, count: Int, color: UInt32,
                                 coverage: UnsafePointer<UInt8>?) {
        #if !RASTER_AVX2
        if Kernels.useAVX2 { RasterAVX2.Blend.solidSpan(dst, count: count, color: color, coverage: coverage); return }
        #endif
        guard let coverage else {
            fullSolid(dst, count: count, color: color)
            return
        }
        guard color &>> 24 == 255 else {
            walkCoverage(coverage, count: count,
                         full: { fullSolid(dst + $0, count: $1, color: color) },
                         partial: { partialSolid(dst + $0, color: color, coverage: UInt32(coverage[$0])) })
            return
        }
        let c = lanes(Pixels(repeating: color))
        walkCoverage(coverage, count: count,
                     full: { fullSolid(dst + $0, count: $1, color: color) },
                     mixed: { opaqueSolidBlock(dst + $0, color: c, coverage: coverage + $0) },
                     partial: { partialSolid(dst + $0, color: color, coverage: UInt32(coverage[$0])) })
    }

    /// `partialSolid` of a block (eight pixels: one word of coverage bytes) for an opaque
    /// colour. With the colour's alpha at 255, `overScaled`'s single rounding
    /// `(s·255k + d·(65025 − 255k) + 32512) / 65025` is `⌊(y + 127) / 255⌋` for
    /// `y = s·k + d·(255 − k)` (the numerator is `255·(y + 127) + 127`, and 127 < 255), and
    /// y + 127 ≤ 255² + 127 fits a 16-bit lane. At k = 0 that gives d, at k = 255 the colour:
    /// `partialSolid` pixel for pixel (tested for every channel value, coverage and backdrop).
    @inlinable @inline(__always)
    static func opaqueSolidBlock(_ dst: UnsafeMutablePointer<UInt32>, color c: (rb: Lanes, ag: Lanes),
                                 coverage: UnsafePointer<UInt8>) {
        let k = coverageLanes(coverage)
        let inv = Lanes(repeating: 255) &- k
        let d = lanes(UnsafeRawPointer(dst).loadUnaligned(as: Pixels.self))
        UnsafeMutableRawPointer(dst).storeBytes(of: pack(rb: floorDiv255(c.rb &* k &+ d.rb &* inv &+ 127),
                                                         ag: floorDiv255(c.ag &* k &+ d.ag &* inv &+ 127)),
                                                as: Pixels.self)
    }

    /// A word of eight coverage (or mask) bytes as the factor of each pixel's two lanes.
    @inlinable @inline(__always)
    static func coverageLanes(_ p: UnsafePointer<UInt8>) -> Lanes {
        let m = Pixels(truncatingIfNeeded: UnsafeRawPointer(p).loadUnaligned(as: SIMD8<UInt8>.self))
        return unsafeBitCast(m | (m &<< 16), to: Lanes.self)
    }

    /// `⌊t / 255⌋` per lane, for t ≤ 65152 (so the sum stays below 2¹⁶): `(t + t >> 8 + 1) >> 8`
    /// (every t in range checked).
    @inlinable @inline(__always)
    static func floorDiv255(_ t: Lanes) -> Lanes {
        (t &+ (t &>> 8) &+ 1) &>> 8
    }

    /// Full-coverage solid run: a store for opaque colours, src-over otherwise.
    @inlinable @inline(__always)
    static func fullSolid(_ dst: UnsafeMutablePointer<UInt32>, count: Int, color: UInt32) {
        if color &>> 24 == 255 {
            dst.update(repeating: color, count: count)
        } else {
            // `over(color, d)`, a block at a time in lanes (`overLanes`), the rest one by one.
            let c = lanes(Pixels(repeating: color))
            let nb = count & ~(blockWidth &- 1)
            var i = 0
            while i < nb {
                let d = UnsafeRawPointer(dst + i).loadUnaligned(as: Pixels.self)
                UnsafeMutableRawPointer(dst + i).storeBytes(of: overLanes(rb: c.rb, ag: c.ag, d), as: Pixels.self)
                i &+= blockWidth
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
    #if RASTER_AVX2
    @inline(never)
    #else
    @inlinable
    #endif
    public static func sourceSpan(_ dst: UnsafeMutablePointer<UInt32>, count: Int, source: UnsafePointer<UInt32>,
                                  coverage: UnsafePointer<UInt8>?) {
        #if !RASTER_AVX2
        if Kernels.useAVX2 { RasterAVX2.Blend.sourceSpan(dst, count: count, source: source, coverage: coverage); return }
        #endif
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
    #if RASTER_AVX2
    @inline(never)
    #else
    @inlinable
    #endif
    public static func layerSpan(_ dst: UnsafeMutablePointer<UInt32>, source: UnsafePointer<UInt32>, count: Int,
                                 opacity: UInt32, mask: UnsafePointer<UInt8>?) {
        #if !RASTER_AVX2
        if Kernels.useAVX2 { RasterAVX2.Blend.layerSpan(dst, source: source, count: count, opacity: opacity, mask: mask); return }
        #endif
        guard let mask else {
            fullLayer(dst, source: source, count: count, opacity: opacity)
            return
        }
        walkCoverage(mask, count: count,
                     full: { fullLayer(dst + $0, source: source + $0, count: $1, opacity: opacity) },
                     mixed: { maskedLayerBlock(dst + $0, source: source + $0, opacity: opacity, mask: mask + $0) },
                     partial: { partialLayer(dst + $0, source[$0], opacity: opacity, mask: UInt32(mask[$0])) })
    }

    /// `partialLayer` of a block (eight pixels: one word of mask bytes): each source scaled by
    /// its `k = mask·opacity/255` (the same `div255` rounding, in lanes), then over. With k = 255
    /// the scale gives the source itself and with k = 0 or a transparent source `dst` stays, so
    /// this is `partialLayer` pixel for pixel without its tests.
    @inlinable @inline(__always)
    static func maskedLayerBlock(_ dst: UnsafeMutablePointer<UInt32>, source: UnsafePointer<UInt32>, opacity: UInt32,
                                 mask: UnsafePointer<UInt8>) {
        var k = coverageLanes(mask)
        if opacity != 255 { k = mulDiv255(k, Lanes(repeating: UInt16(opacity))) }
        let s = UnsafeRawPointer(source).loadUnaligned(as: Pixels.self)
        let d = UnsafeRawPointer(dst).loadUnaligned(as: Pixels.self)
        UnsafeMutableRawPointer(dst).storeBytes(of: scaledOverBlock(s, k, d), as: Pixels.self)
    }

    /// `dst = over(scale(b, kb), over(scale(a, ka), dst))` for a row: two layers composited one
    /// after the other (`layerSpan` twice, no mask), in one pass. The scale is skipped at 255.
    #if RASTER_AVX2
    @inline(never)
    #else
    @inlinable
    #endif
    public static func layerPairSpan(_ dst: UnsafeMutablePointer<UInt32>, _ a: UnsafePointer<UInt32>, opacity ka: UInt32,
                                     _ b: UnsafePointer<UInt32>, opacity kb: UInt32, count: Int) {
        #if !RASTER_AVX2
        if Kernels.useAVX2 { RasterAVX2.Blend.layerPairSpan(dst, a, opacity: ka, b, opacity: kb, count: count); return }
        #endif
        let fa = Lanes(repeating: UInt16(ka)), fb = Lanes(repeating: UInt16(kb))
        let nb = count & ~(blockWidth &- 1)
        var i = 0
        while i < nb {
            let sa = UnsafeRawPointer(a + i).loadUnaligned(as: Pixels.self)
            let sb = UnsafeRawPointer(b + i).loadUnaligned(as: Pixels.self)
            var d = UnsafeRawPointer(dst + i).loadUnaligned(as: Pixels.self)
            d = ka == 255 ? overBlock(sa, d) : scaledOverBlock(sa, fa, d)
            d = kb == 255 ? overBlock(sb, d) : scaledOverBlock(sb, fb, d)
            UnsafeMutableRawPointer(dst + i).storeBytes(of: d, as: Pixels.self)
            i &+= blockWidth
        }
        while i < count {
            let d = over(ka == 255 ? a[i] : scale(a[i], ka), dst[i])
            dst[i] = over(kb == 255 ? b[i] : scale(b[i], kb), d)
            i &+= 1
        }
    }

    /// `dst = scale(src, opacity)`: `layerSpan` without a mask onto transparent pixels
    /// (`over(x, 0) == x`), which are not read. A copy at opacity 255.
    #if RASTER_AVX2
    @inline(never)
    #else
    @inlinable
    #endif
    public static func storeSpan(_ dst: UnsafeMutablePointer<UInt32>, source: UnsafePointer<UInt32>, count: Int,
                                 opacity: UInt32) {
        #if !RASTER_AVX2
        if Kernels.useAVX2 { RasterAVX2.Blend.storeSpan(dst, source: source, count: count, opacity: opacity); return }
        #endif
        if opacity == 255 {
            dst.update(from: source, count: count)
            return
        }
        let k = Lanes(repeating: UInt16(opacity))
        let nb = count & ~(blockWidth &- 1)
        var i = 0
        while i < nb {
            let l = lanes(UnsafeRawPointer(source + i).loadUnaligned(as: Pixels.self))
            UnsafeMutableRawPointer(dst + i).storeBytes(of: pack(rb: mulDiv255(l.rb, k), ag: mulDiv255(l.ag, k)),
                                                        as: Pixels.self)
            i &+= blockWidth
        }
        while i < count { dst[i] = scale(source[i], opacity); i &+= 1 }
    }

    /// `layerSpan` with a mask, except that where the mask is 255 the layer goes over the
    /// premultiplied colour `backdrop`, not over `dst` (which is then not read): `dst =
    /// over(scale(src, opacity), backdrop)` there, `layerSpan`'s result elsewhere.
    #if RASTER_AVX2
    @inline(never)
    #else
    @inlinable
    #endif
    public static func layerSpan(_ dst: UnsafeMutablePointer<UInt32>, source: UnsafePointer<UInt32>, count: Int,
                                 opacity: UInt32, mask: UnsafePointer<UInt8>, backdrop: UInt32) {
        #if !RASTER_AVX2
        if Kernels.useAVX2 { RasterAVX2.Blend.layerSpan(dst, source: source, count: count, opacity: opacity, mask: mask, backdrop: backdrop); return }
        #endif
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
        let nb = count & ~(blockWidth &- 1)
        var i = 0
        let b = Pixels(repeating: backdrop)
        let k = Lanes(repeating: UInt16(opacity))
        while i < nb {
            let s = UnsafeRawPointer(source + i).loadUnaligned(as: Pixels.self)
            let out = opacity == 255 ? overBlock(s, b) : scaledOverBlock(s, k, b)
            UnsafeMutableRawPointer(dst + i).storeBytes(of: out, as: Pixels.self)
            i &+= blockWidth
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
        // A block at a time in 16-bit lanes (`overBlock`, `scaledOverBlock`: the same integer
        // arithmetic per channel as `over`/`scale`), the rest one by one.
        let nb = count & ~(blockWidth &- 1)
        var i = 0
        if opacity == 255 {
            while i < nb {
                let s = UnsafeRawPointer(source + i).loadUnaligned(as: Pixels.self)
                let d = UnsafeRawPointer(dst + i).loadUnaligned(as: Pixels.self)
                UnsafeMutableRawPointer(dst + i).storeBytes(of: overBlock(s, d), as: Pixels.self)
                i &+= blockWidth
            }
            while i < count { dst[i] = over(source[i], dst[i]); i &+= 1 }
        } else {
            // Whole-layer opacity: scale, then blend (two roundings, each exact to half a level,
            // so within one level of the exact result; tested against direct drawing).
            let k = Lanes(repeating: UInt16(opacity))
            while i < nb {
                let s = UnsafeRawPointer(source + i).loadUnaligned(as: Pixels.self)
                let d = UnsafeRawPointer(dst + i).loadUnaligned(as: Pixels.self)
                UnsafeMutableRawPointer(dst + i).storeBytes(of: scaledOverBlock(s, k, d), as: Pixels.self)
                i &+= blockWidth
            }
            while i < count { dst[i] = over(scale(source[i], opacity), dst[i]); i &+= 1 }
        }
    }

    // MARK: Blocks of pixels in 16-bit lanes
    //
    // A pixel's channels are split into two pairs, red and blue (`rb`) and green and alpha
    // (`ag`), each channel in the low byte of a 16-bit lane, so one 16-bit multiply scales one
    // channel of a pixel and sixteen lanes hold a block's pairs.

    /// A block of the vector kernels: eight pixels, one 256-bit register where the build targets
    /// AVX2 (Package.swift), two 128-bit registers with SSE2 or NEON. The loops take whole
    /// blocks and the rest of a row one pixel at a time.
    public typealias Pixels = SIMD8<UInt32>
    /// A block's `rb` or `ag` lanes.
    public typealias Lanes = SIMD16<UInt16>
    /// Pixels per block (a constant where inlined: a stored `static let` is reached through
    /// its once-initialised accessor).
    @inlinable public static var blockWidth: Int { Pixels.scalarCount }

    /// The `rb` and `ag` lanes of a block.
    @inlinable @inline(__always)
    static func lanes(_ p: Pixels) -> (rb: Lanes, ag: Lanes) {
        let low = Pixels(repeating: 0x00FF_00FF)
        return (unsafeBitCast(p & low, to: Lanes.self), unsafeBitCast((p &>> 8) & low, to: Lanes.self))
    }

    /// A block of pixels from its lanes: the two pairs added at their places in the word, so the
    /// result is the word sum the scalar kernels compute (`src &+ scale(dst, inv)`) even when a
    /// lane exceeds 255.
    @inlinable @inline(__always)
    static func pack(rb: Lanes, ag: Lanes) -> Pixels {
        unsafeBitCast(rb, to: Pixels.self) &+ (unsafeBitCast(ag, to: Pixels.self) &<< 8)
    }

    /// `c·k/255` rounded, per lane (c, k ≤ 255): `scale`'s own rounding, `t = c·k + 128`, then
    /// `(t + t >> 8) >> 8`, in the 16-bit lane (no overflow: t ≤ 255·255 + 128 = 65153, so
    /// t + t >> 8 ≤ 65407). Shifts and adds on whole registers; the form through the high
    /// half of a widening multiply (`pmulhuw`) takes fewer instructions with SSE2 alone, but
    /// with AVX2 the compiler splits it into 128-bit halves and takes more.
    @inlinable @inline(__always)
    static func mulDiv255(_ c: Lanes, _ k: Lanes) -> Lanes {
        let t = c &* k &+ 128
        return (t &+ (t &>> 8)) &>> 8
    }

    /// `255 − alpha` of a block given its `ag` lanes, in both lanes of each pixel (the
    /// factor `mulDiv255` scales a destination's pairs by): `0x00FF00FF − (a | a << 16)`, no
    /// borrow since a ≤ 255 (a form the compiler keeps in a shift, an or and a subtract).
    @inlinable @inline(__always)
    static func inverseAlpha(_ ag: Lanes) -> Lanes {
        let a = unsafeBitCast(ag, to: Pixels.self) &>> 16
        return unsafeBitCast(Pixels(repeating: 0x00FF_00FF) &- (a | (a &<< 16)), to: Lanes.self)
    }

    /// `over` of a block of sources given as lanes onto a block of destination pixels.
    @inlinable @inline(__always)
    static func overLanes(rb: Lanes, ag: Lanes, _ d: Pixels) -> Pixels {
        let f = inverseAlpha(ag)
        let dst = lanes(d)
        return pack(rb: rb &+ mulDiv255(dst.rb, f), ag: ag &+ mulDiv255(dst.ag, f))
    }

    /// `over` of a block: `src + scale(dst, 255 − src.a)` with the same word additions.
    @inlinable @inline(__always)
    static func overBlock(_ s: Pixels, _ d: Pixels) -> Pixels {
        let l = lanes(s)
        return overLanes(rb: l.rb, ag: l.ag, d)
    }

    /// `over(scale(s, k), d)` of a block, the scaled source kept in lanes between the two
    /// steps (the same two roundings as the scalar pair).
    @inlinable @inline(__always)
    static func scaledOverBlock(_ s: Pixels, _ k: Lanes, _ d: Pixels) -> Pixels {
        let l = lanes(s)
        return overLanes(rb: mulDiv255(l.rb, k), ag: mulDiv255(l.ag, k), d)
    }

    /// `dst = src over color` for a row: a layer composited onto a solid fill in one write per
    /// pixel, without reading `dst` (same bytes as filling with `color`, then `layerSpan` at
    /// opacity 255 without mask).
    #if RASTER_AVX2
    @inline(never)
    #else
    @inlinable
    #endif
    public static func overColorSpan(_ dst: UnsafeMutablePointer<UInt32>, source: UnsafePointer<UInt32>, count: Int,
                                     color: UInt32) {
        #if !RASTER_AVX2
        if Kernels.useAVX2 { RasterAVX2.Blend.overColorSpan(dst, source: source, count: count, color: color); return }
        #endif
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
    #if RASTER_AVX2
    @inline(never)
    #else
    @inlinable
    #endif
    public static func lerpSpan(_ dst: UnsafeMutablePointer<UInt32>, _ a: UnsafePointer<UInt32>, _ b: UnsafePointer<UInt32>,
                                count: Int, weight: UInt32) {
        #if !RASTER_AVX2
        if Kernels.useAVX2 { RasterAVX2.Blend.lerpSpan(dst, a, b, count: count, weight: weight); return }
        #endif
        let wb = min(weight, 256), wa = 256 &- wb
        for i in 0..<count {
            let x = a[i], y = b[i]
            let rb = ((x & 0x00FF_00FF) &* wa &+ (y & 0x00FF_00FF) &* wb) &>> 8
            let ga = (((x &>> 8) & 0x00FF_00FF) &* wa &+ ((y &>> 8) & 0x00FF_00FF) &* wb) &>> 8
            dst[i] = (rb & 0x00FF_00FF) | ((ga & 0x00FF_00FF) &<< 8)
        }
    }

    /// `dst = layerSpan(transparent, source: dst, opacity: 255, mask: mask)` in place: the row's
    /// pixels as compositing them through the mask onto transparent pixels leaves them (the
    /// same kernels: a run of 255 keeps them, a run of 0 clears them, a mixed word scales them
    /// in lanes, the last pixels one by one).
    #if RASTER_AVX2
    @inline(never)
    #else
    @inlinable
    #endif
    public static func maskSpan(_ dst: UnsafeMutablePointer<UInt32>, mask: UnsafePointer<UInt8>, count: Int) {
        #if !RASTER_AVX2
        if Kernels.useAVX2 { RasterAVX2.Blend.maskSpan(dst, mask: mask, count: count); return }
        #endif
        let clear = Pixels(repeating: 0)
        var i = 0
        while i < count {
            if i &+ 8 <= count {
                let w = word(mask, i)
                if w == ~0 { i = runEnd(mask, from: i &+ 8, count: count, equalTo: ~0); continue }
                if w == 0 {
                    let end = runEnd(mask, from: i &+ 8, count: count, equalTo: 0)
                    (dst + i).update(repeating: 0, count: end &- i)
                    i = end
                    continue
                }
                let s = UnsafeRawPointer(dst + i).loadUnaligned(as: Pixels.self)
                UnsafeMutableRawPointer(dst + i).storeBytes(of: scaledOverBlock(s, coverageLanes(mask + i), clear), as: Pixels.self)
                i &+= 8
            } else {
                let s = dst[i]
                dst[i] = 0
                partialLayer(dst + i, s, opacity: 255, mask: UInt32(mask[i]))
                i &+= 1
            }
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
