import Testing
@testable import Raster

/// The framebuffer presenter's pixel formats, byte for byte: our pixels are R, G, B, A bytes;
/// XRGB8888 is B, G, R, X in memory and RGB565 a little-endian 16-bit word with red in its top
/// five bits, green in the middle six, blue in the low five (bits cut, not rounded).
@Suite struct ScanoutFormatTests {
    /// Our pixel from its bytes in memory order.
    static func ours(r: UInt8, g: UInt8, b: UInt8, a: UInt8 = 0xFF) -> UInt32 {
        UInt32(r) | UInt32(g) << 8 | UInt32(b) << 16 | UInt32(a) << 24
    }

    /// Written out by hand: each colour with the two bytes RGB565 stores for it.
    static let rgb565Bytes: [(pixel: UInt32, bytes: [UInt8])] = [
        (ours(r: 0, g: 0, b: 0), [0x00, 0x00]),
        (ours(r: 0xFF, g: 0xFF, b: 0xFF), [0xFF, 0xFF]),
        (ours(r: 0xFF, g: 0, b: 0), [0x00, 0xF8]),
        (ours(r: 0, g: 0xFF, b: 0), [0xE0, 0x07]),
        (ours(r: 0, g: 0, b: 0xFF), [0x1F, 0x00]),
        (ours(r: 0x07, g: 0x03, b: 0x07), [0x00, 0x00]),     // below one step of each: cut to 0
        (ours(r: 0x08, g: 0x04, b: 0x08), [0x21, 0x08]),     // one step of each: 0x0821
        (ours(r: 0xF2, g: 0xF2, b: 0xF7), [0x9E, 0xF7]),     // the light page colour: 30, 60, 30 → 0xF79E
        (ours(r: 0x1C, g: 0x1C, b: 0x1E, a: 0x00), [0xE3, 0x18]),  // the dark one (alpha ignored): 3, 7, 3 → 0x18E3
    ]

    @Test func rgb565PixelsAreTheExpectedBytes() {
        for (pixel, bytes) in Self.rgb565Bytes {
            let v = ScanoutFormat.rgb565.pixel(pixel)
            #expect([UInt8(v & 0xFF), UInt8(v >> 8)] == bytes, "pixel \(String(pixel, radix: 16))")
        }
    }

    @Test func xrgb8888PixelsAreBlueGreenRedX() {
        var src: [UInt32] = [Self.ours(r: 0x11, g: 0x22, b: 0x33, a: 0x44)]
        var dst = [UInt8](repeating: 0, count: 4)
        dst.withUnsafeMutableBytes { d in
            src.withUnsafeMutableBufferPointer { ScanoutFormat.xrgb8888.storeRow(d.baseAddress!, from: $0.baseAddress!, count: 1, streamed: false) }
        }
        #expect(dst == [0x33, 0x22, 0x11, 0x44])
    }

    /// The row kernels (eight-pixel vectors, streamed or not, with their heads and tails) write
    /// exactly the reference bytes at every length and destination alignment, and nothing
    /// outside the row.
    @Test(arguments: ScanoutFormat.allCases, [false, true])
    func rowKernelsMatchTheReferenceAtEveryLengthAndAlignment(format: ScanoutFormat, streamed: Bool) {
        let bpp = format.bytesPerPixel
        var seed: UInt32 = 0x9E37_79B9
        let src: [UInt32] = (0..<64).map { _ in
            seed = seed &* 1_664_525 &+ 1_013_904_223
            return seed
        } + Self.rgb565Bytes.map(\.pixel)
        for count in [0, 1, 7, 8, 9, 15, 16, 17, 31, 40, src.count] {
            for offset in 0..<8 {
                // An aligned allocation, written from `offset` pixels in; a guard byte pattern around.
                let bytes = (count + offset + 8) * bpp
                let raw = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
                defer { raw.deallocate() }
                raw.initializeMemory(as: UInt8.self, repeating: 0xA5, count: bytes)
                src.withUnsafeBufferPointer { format.storeRow(raw + offset * bpp, from: $0.baseAddress!, count: count, streamed: streamed) }
                if streamed { StreamingCopy.fence() }
                let out = UnsafeBufferPointer(start: raw.assumingMemoryBound(to: UInt8.self), count: bytes)
                var wrong = 0
                for i in 0..<(count + offset + 8) {
                    let inRow = i >= offset && i < offset + count
                    let want = inRow ? format.pixel(src[i - offset]) : 0xA5A5_A5A5
                    for k in 0..<bpp where out[i * bpp + k] != UInt8(truncatingIfNeeded: want >> (8 * UInt32(k))) { wrong += 1 }
                }
                #expect(wrong == 0, "\(format) count \(count) offset \(offset) streamed \(streamed): \(wrong) bytes differ")
            }
        }
    }

    /// `presentCopy(_:into:pitch:format:)` copies the rectangle (clipped to the page) at its
    /// place in a buffer with padded rows, and leaves the rest alone; large rectangles stream.
    @Test(arguments: ScanoutFormat.allCases)
    func presentCopyIntoABufferOfTheFormat(format: ScanoutFormat) {
        let page = Pixmap(width: 420, height: 300)
        for y in 0..<page.height {
            for x in 0..<page.width { page.pixels[y * page.stride + x] = UInt32(truncatingIfNeeded: x &* 2_654_435_761 ^ y &* 40_503) }
        }
        let bpp = format.bytesPerPixel, pitch = page.width * bpp + 24
        for rect in [IntRect(x: 5, y: 7, width: 33, height: 20), page.bounds, IntRect(x: 400, y: 290, width: 50, height: 50)] {
            var buffer = [UInt8](repeating: 0x5A, count: pitch * page.height)
            buffer.withUnsafeMutableBytes { page.presentCopy(rect, into: $0.baseAddress!, pitch: pitch, format: format) }
            let r = rect.intersection(page.bounds)
            var wrong = 0
            for y in 0..<page.height {
                for x in 0..<(pitch / bpp) {
                    let inside = x >= r.minX && x < r.maxX && y >= r.minY && y < r.maxY
                    let want = inside ? format.pixel(page.pixels[y * page.stride + x]) : 0x5A5A_5A5A
                    for k in 0..<bpp where buffer[y * pitch + x * bpp + k] != UInt8(truncatingIfNeeded: want >> (8 * UInt32(k))) { wrong += 1 }
                }
            }
            #expect(wrong == 0, "\(format) \(rect): \(wrong) bytes differ")
        }
        #expect(page.bounds.area >= StreamingCopy.minPixels, "the whole page streams")
    }
}
