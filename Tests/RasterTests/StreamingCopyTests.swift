import Testing
@testable import Raster

/// The presenters' streamed copy writes the bytes of a plain copy (or of the red-blue swap),
/// at every length and destination alignment, and nothing else.
@Suite struct StreamingCopyTests {
    static func swapped(_ p: UInt32) -> UInt32 { (p & 0xFF00_FF00) | ((p & 0xFF) << 16) | ((p >> 16) & 0xFF) }

    @Test(arguments: [false, true])
    func rowWritesEveryPixelAndNoMore(swappingRedBlue: Bool) {
        let src = (0..<80).map { UInt32(truncatingIfNeeded: $0 &* 0x9E37_79B9 &+ 0x0102_0304) }
        // Offsets 0-7 pixels put the destination at every 4-byte step of two 16-byte blocks;
        // lengths 0-70 cover no block, one, several, and every tail.
        for offset in 0..<8 {
            for count in 0...70 {
                var dst = [UInt32](repeating: 0xDEAD_BEEF, count: 96)
                src.withUnsafeBufferPointer { s in
                    dst.withUnsafeMutableBufferPointer { d in
                        StreamingCopy.row(d.baseAddress! + offset, from: s.baseAddress!, count: count, swappingRedBlue: swappingRedBlue)
                    }
                }
                StreamingCopy.fence()
                var expected = [UInt32](repeating: 0xDEAD_BEEF, count: 96)
                for i in 0..<count { expected[offset + i] = swappingRedBlue ? Self.swapped(src[i]) : src[i] }
                #expect(dst == expected, "offset \(offset), count \(count)")
                if dst != expected { return }
            }
        }
    }

    @Test func swappingExchangesRedAndBlueBytes() {
        let p = PremultipliedRGBA8(r: 1, g: 2, b: 3, a: 4).packed
        #expect(Self.swapped(p) == PremultipliedRGBA8(r: 3, g: 2, b: 1, a: 4).packed)
    }

    /// Small and large rectangles (below and above `StreamingCopy.minPixels`), anywhere in the
    /// frame: the same pixels as `copy`, nothing outside the rectangle touched.
    @Test func presentCopyEqualsCopy() {
        let w = 517, h = 301
        #expect(w * h >= StreamingCopy.minPixels)
        let src = Pixmap(width: w, height: h)
        for i in 0..<(h * src.stride) { src.pixels[i] = UInt32(truncatingIfNeeded: i &* 0x0101_0107 &+ 0x00FF_0000) }
        let rects = [src.bounds, IntRect(x: 3, y: 5, width: 511, height: 290), IntRect(x: 1, y: 1, width: 33, height: 17),
                     IntRect(x: 480, y: 280, width: 80, height: 80), IntRect(x: 0, y: 0, width: 0, height: 9)]
        for r in rects {
            let a = Pixmap(width: w, height: h), b = Pixmap(width: w, height: h)
            a.fill(a.bounds, with: 0x1234_5678)
            b.fill(b.bounds, with: 0x1234_5678)
            a.copy(r, from: src)
            b.presentCopy(r, from: src)
            var differ = 0
            for i in 0..<(h * a.stride) where a.pixels[i] != b.pixels[i] { differ += 1 }
            #expect(differ == 0, "\(r): \(differ) pixels differ")
        }
    }
}
