import Testing
@testable import Raster

@Suite struct PixmapTests {
    @Test func packedByteOrderIsRGBAInMemory() {
        let p = Pixmap(width: 1, height: 1)
        p[0, 0] = PremultipliedRGBA8(r: 1, g: 2, b: 3, a: 4).packed
        let bytes = UnsafeRawPointer(p.pixels).assumingMemoryBound(to: UInt8.self)
        #expect([bytes[0], bytes[1], bytes[2], bytes[3]] == [1, 2, 3, 4])
    }

    @Test func straightRoundTrip() {
        for a in stride(from: 0, through: 255, by: 15) {
            for c in stride(from: 0, through: 255, by: 17) {
                let s = StraightRGBA8(r: UInt8(c), g: UInt8(c), b: UInt8(c), a: UInt8(a))
                let back = s.premultiplied.unpremultiplied
                // Premultiplying loses precision below alpha 255; the round trip is within 255/(2a)+1.
                if a == 0 { #expect(back.a == 0); continue }
                #expect(abs(Int(back.r) - c) <= 255 / (2 * a) + 1)
            }
        }
    }
}
