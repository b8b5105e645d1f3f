import KioskEngine
import Raster
import Testing
@testable import KioskHost

/// The pointer's arrow in the DRM presenter's buffers: where its pixels go for a rotation and
/// a scale (`CursorPlacement`), what a move damages, and the sprite drawn into XRGB8888 and
/// RGB565 buffers (`CursorOverlay`); then the presenter's way with buffers over many moves:
/// every buffer drawn shows the page with the arrow where it is now, and nowhere else.
@Suite struct CursorOverlayTests {
    /// The sprite pixel an unrotated page shows at page pixel (px, py) for a pointer on page
    /// pixel `hot`, scaled by `scale`: the reference, in page pixels (no turning involved).
    static func pageSprite(_ px: Int, _ py: Int, hot: (x: Int, y: Int), scale: Int) -> (x: Int, y: Int)? {
        let dx = px - hot.x, dy = py - hot.y
        guard dx >= 0, dy >= 0, dx < CursorSprite.width * scale, dy < CursorSprite.height * scale else { return nil }
        return (dx / scale, dy / scale)
    }

    static let turns: [(Rotation, Double)] = [
        (.none, 1), (.clockwise90, 1), (.upsideDown, 1), (.clockwise270, 1),
        (.none, 2), (.clockwise90, 2), (.upsideDown, 3), (.clockwise270, 1.6),
    ]

    /// The arrow on the output is the arrow an unrotated page would show at the pointer, turned
    /// with the page (`RotationMap`, what the page's pixels go through): same pixels, so it
    /// points to the page's top-left as the viewer sees it, tip on the pointer's pixel.
    @Test(arguments: turns)
    func theArrowTurnsAndScalesWithThePage(rotation: Rotation, scale: Double) {
        let ow = 97, oh = 71
        let viewport = Viewport(outputWidth: ow, outputHeight: oh, windowWidth: ow, windowHeight: oh, rotation: rotation, scale: scale)
        let map = RotationMap(rotation: rotation, outputWidth: ow, outputHeight: oh)
        let s = Int(max(1, scale.rounded()))
        for hot in [(x: 20, y: 15), (x: 3, y: 60), (x: viewport.pagePixelWidth - 2, y: viewport.pagePixelHeight - 1)] {
            // The pointer at its page pixel's centre, as the input mapper keeps it.
            let pointer = Point(Double(hot.x) + 0.5, Double(hot.y) + 0.5)
            let placement = CursorPlacement(hotSpot: viewport.outputPixel(fromPage: pointer), viewport: viewport)
            #expect(placement.scale == s)
            let tip = map.outputRect(IntRect(x: hot.x, y: hot.y, width: 1, height: 1))
            #expect((placement.hotX, placement.hotY) == (tip.x, tip.y), "the tip is on the pointer's pixel")
            var covered = 0
            for oy in -5..<(oh + 5) {
                for ox in -5..<(ow + 5) {
                    let got = placement.spritePixel(ox, oy)
                    if got != nil {
                        covered += 1
                        #expect(placement.rect.intersection(IntRect(x: ox, y: oy, width: 1, height: 1)).area == 1,
                                "(\(ox), \(oy)) is outside the arrow's rectangle \(placement.rect)")
                    }
                    guard ox >= 0, oy >= 0, ox < ow, oy < oh else { continue }
                    let p = map.pagePixel(ox, oy)
                    let want = Self.pageSprite(p.x, p.y, hot: hot, scale: s)
                    #expect(got?.x == want?.x && got?.y == want?.y,
                            "\(rotation) ×\(s) hot \(hot): output (\(ox), \(oy)) shows sprite \(String(describing: got)), expected \(String(describing: want))")
                }
            }
            // The rectangle is exactly the arrow's extent (where it is not clipped).
            let inside = placement.rect.intersection(IntRect(x: -5, y: -5, width: ow + 10, height: oh + 10))
            #expect(covered == inside.area)
            // `outputPixel(dx:dy:)` is the inverse of `spritePixel`.
            for dy in 0..<(CursorSprite.height * s) {
                for dx in 0..<(CursorSprite.width * s) {
                    let o = placement.outputPixel(dx: dx, dy: dy)
                    let back = placement.spritePixel(o.x, o.y)
                    #expect(back?.x == dx / s && back?.y == dy / s)
                }
            }
        }
    }

    @Test func aMoveDamagesTheOldAndTheNewArrowOnly() {
        let bounds = IntRect(x: 0, y: 0, width: 200, height: 100)
        let a = CursorPlacement(hotX: 10, hotY: 10, scale: 1, rotation: .none)
        let b = CursorPlacement(hotX: 50, hotY: 40, scale: 1, rotation: .none)
        #expect(CursorPlacement.damage(from: a, to: b, bounds: bounds) == [a.rect, b.rect])
        #expect(CursorPlacement.damage(from: a, to: a, bounds: bounds).isEmpty, "no move, no damage")
        #expect(CursorPlacement.damage(from: nil, to: nil, bounds: bounds).isEmpty)
        #expect(CursorPlacement.damage(from: nil, to: b, bounds: bounds) == [b.rect], "shown: the new arrow")
        #expect(CursorPlacement.damage(from: a, to: nil, bounds: bounds) == [a.rect], "hidden: the page back under it")
        // Turned or rescaled in place is a change too.
        let here = CursorPlacement(hotX: 30, hotY: 10, scale: 1, rotation: .none)
        let turned = CursorPlacement(hotX: 30, hotY: 10, scale: 1, rotation: .clockwise90)
        let bigger = CursorPlacement(hotX: 30, hotY: 10, scale: 2, rotation: .none)
        #expect(CursorPlacement.damage(from: here, to: turned, bounds: bounds) == [here.rect, turned.rect])
        #expect(CursorPlacement.damage(from: here, to: bigger, bounds: bounds) == [here.rect, bigger.rect])
        // At the output's edge the rectangles are clipped to it; off it, nothing.
        let edge = CursorPlacement(hotX: 195, hotY: 90, scale: 2, rotation: .none)
        #expect(CursorPlacement.damage(from: nil, to: edge, bounds: bounds) == [IntRect(x: 195, y: 90, width: 5, height: 10)])
        let off = CursorPlacement(hotX: -40, hotY: 10, scale: 1, rotation: .none)
        #expect(CursorPlacement.damage(from: off, to: nil, bounds: bounds).isEmpty)
        // A turned arrow's rectangle lies left of / above its tip.
        #expect(CursorPlacement(hotX: 50, hotY: 40, scale: 2, rotation: .clockwise90).rect
                == IntRect(x: 50 - 2 * CursorSprite.height + 1, y: 40, width: 2 * CursorSprite.height, height: 2 * CursorSprite.width))
        #expect(CursorPlacement(hotX: 50, hotY: 40, scale: 1, rotation: .upsideDown).rect
                == IntRect(x: 50 - CursorSprite.width + 1, y: 40 - CursorSprite.height + 1, width: CursorSprite.width, height: CursorSprite.height))
    }

    @Test func theSpriteIsOpaqueOrTransparentPixelByPixel() {
        // Drawing a pixel twice must give the same bytes (overlapping clips).
        #expect(CursorOverlay.pixels.count == CursorSprite.width * CursorSprite.height)
        #expect(CursorOverlay.pixels.allSatisfy { $0 >> 24 == 0 || $0 >> 24 == 0xFF })
        #expect(CursorOverlay.pixels[0] == 0xFF00_0000, "the tip is black")
        #expect(CursorOverlay.pixels.contains(0xFFFF_FFFF), "white inside")
    }

    /// The arrow drawn into a page in each format: black outline and white fill in the
    /// format's bytes, transparent pixels and everything outside the clip left as they were,
    /// the rows' padding untouched.
    @Test(arguments: [(ScanoutFormat.xrgb8888, Rotation.none, 1), (.rgb565, .none, 2), (.rgb565, .clockwise90, 1),
                      (.xrgb8888, .clockwise270, 2), (.xrgb8888, .upsideDown, 1)])
    func theArrowIsDrawnInTheOutputsFormat(format: ScanoutFormat, rotation: Rotation, scale: Int) {
        let ow = 60, oh = 50, bpp = format.bytesPerPixel, pitch = ow * bpp + 8
        let pageColour: UInt32 = 0xFF40_8020
        let pageBytes = format.pixel(pageColour)
        var buffer = [UInt8](repeating: 0xEE, count: pitch * oh)
        for y in 0..<oh { for x in 0..<ow { for k in 0..<bpp { buffer[y * pitch + x * bpp + k] = UInt8(truncatingIfNeeded: pageBytes >> (8 * UInt32(k))) } } }
        let before = buffer
        let bounds = IntRect(x: 0, y: 0, width: ow, height: oh)
        let placement = CursorPlacement(hotX: 30, hotY: 25, scale: scale, rotation: rotation)
        // A clip that cuts the arrow: only its part inside is drawn.
        let clip = IntRect(x: 0, y: 0, width: ow, height: 31)
        buffer.withUnsafeMutableBytes {
            CursorOverlay.draw(placement, over: [clip, clip], bounds: bounds, into: $0.baseAddress!, pitch: pitch, format: format)
        }
        func value(_ x: Int, _ y: Int) -> UInt32 {
            (0..<bpp).reduce(0) { $0 | UInt32(buffer[y * pitch + x * bpp + $1]) << (8 * UInt32($1)) }
        }
        var black = 0, white = 0
        for y in 0..<oh {
            for x in 0..<ow {
                let sprite = placement.spritePixel(x, y).map { CursorSprite.rows[$0.y][String.Index(utf16Offset: $0.x, in: CursorSprite.rows[$0.y])] }
                let drawn = y < clip.maxY && (sprite == "#" || sprite == "o")
                let want = !drawn ? pageBytes : (sprite == "#" ? format.pixel(0xFF00_0000) : format.pixel(0xFFFF_FFFF))
                #expect(value(x, y) == want, "\(format) \(rotation) ×\(scale): (\(x), \(y)) is \(value(x, y)), expected \(want)")
                if drawn, sprite == "#" { black += 1 }
                if drawn, sprite == "o" { white += 1 }
            }
            for k in (ow * bpp)..<pitch { #expect(buffer[y * pitch + k] == before[y * pitch + k], "padding written") }
        }
        #expect(black > 0 && white > 0, "part of the arrow is inside the clip")
        #expect(value(30, 25) == format.pixel(0xFF00_0000), "the tip is black, on the hot pixel")
        // In the format's own numbers: black is 0 and white every colour bit (XRGB8888's
        // X byte is not a colour).
        let colourBits: UInt32 = format == .rgb565 ? 0xFFFF : 0xFF_FFFF
        #expect(format.pixel(0xFF00_0000) & colourBits == 0)
        #expect(format.pixel(0xFFFF_FFFF) & colourBits == colourBits)
    }

    /// The DRM presenter's buffers over a run of page changes and pointer moves (shown, moved,
    /// still, hidden, shown again), with flips completing whenever: each buffer drawn is the
    /// page with the arrow at the pointer's current place and nowhere else; a move alone makes
    /// the buffer copy both the old and the new arrow's rectangles (its damage clips).
    /// Count 1: one buffer drawn in place (panels without vblank, `DIRTYFB`).
    @Test(arguments: [(Rotation.none, ScanoutFormat.xrgb8888, 1.0, 3), (.clockwise90, .rgb565, 2.0, 3),
                      (.upsideDown, .xrgb8888, 1.0, 2), (.clockwise270, .rgb565, 1.0, 3), (.clockwise90, .xrgb8888, 1.0, 1)])
    func everyBufferLosesTheOldArrowAndGetsTheNewOne(rotation: Rotation, format: ScanoutFormat, scale: Double, count: Int) {
        let ow = 83, oh = 61
        let viewport = Viewport(outputWidth: ow, outputHeight: oh, windowWidth: ow, windowHeight: oh, rotation: rotation, scale: scale)
        let frame = Pixmap(width: viewport.pagePixelWidth, height: viewport.pagePixelHeight)
        let map = RotationMap(rotation: rotation, outputWidth: ow, outputHeight: oh)
        let output = IntRect(x: 0, y: 0, width: ow, height: oh)
        let bpp = format.bytesPerPixel, pitch = ow * bpp + 4
        var rng = DrmPresenterTests.LCG(state: 11)
        var chain = ScanoutChain(count: count, frontBuffer: count == 1, bounds: output)
        var buffers = [[UInt8]](repeating: [UInt8](repeating: 0xEE, count: pitch * oh), count: chain.count)
        var rows = OutputRows()
        var cursor: CursorPlacement?
        var pointer: (x: Int, y: Int)?
        var moveOnlyFrames = 0
        let s = Int(max(1, scale.rounded()))
        for step in 0..<160 {
            var dirty: [IntRect] = []
            if step == 0 {
                frame.fill(frame.bounds, with: 0xFF30_6090)
                dirty = [frame.bounds]
            } else if rng.next(3) == 0 {
                let x = rng.next(frame.width), y = rng.next(frame.height)
                let r = IntRect(x: x, y: y, width: 1 + rng.next(min(20, frame.width - x)), height: 1 + rng.next(min(20, frame.height - y)))
                frame.fill(r, with: 0xFF00_0000 | UInt32(truncatingIfNeeded: rng.next(0xFF_FFFF)))
                dirty.append(r)
            }
            // The pointer: hidden for a while (a touch), else moved somewhere or kept still.
            switch (step / 40, rng.next(4)) {
            case (2, _): pointer = nil
            case (_, 0): break
            default: pointer = (rng.next(frame.width), rng.next(frame.height))
            }
            let next = pointer.map {
                CursorPlacement(hotSpot: viewport.outputPixel(fromPage: Point(Double($0.x) + 0.5, Double($0.y) + 0.5)), viewport: viewport)
            }
            // What `DrmPresenter.upload` does: the page's rectangles, then the arrow's move.
            let changed = dirty.map { map.outputRect($0).intersection(output) }.filter { !$0.isEmpty }
            chain.changed(changed, bounds: output)
            let moved = CursorPlacement.damage(from: cursor, to: next, bounds: output)
            chain.changed(moved, bounds: output)
            cursor = next
            if changed.isEmpty, moved.isEmpty { continue }
            if chain.queued != nil, rng.next(2) == 0 { chain.flipped() }
            if chain.free == nil { chain.flipped() }
            guard let (index, missing) = chain.beginDrawing() else {
                Issue.record("step \(step): no buffer to draw")
                return
            }
            if changed.isEmpty {
                moveOnlyFrames += 1
                for r in moved {
                    for y in r.minY..<r.maxY {
                        for x in r.minX..<r.maxX {
                            #expect(missing.contains { $0.intersection(IntRect(x: x, y: y, width: 1, height: 1)).area == 1 },
                                    "step \(step): the move's pixel (\(x), \(y)) is not among the buffer's clips")
                        }
                    }
                }
            }
            buffers[index].withUnsafeMutableBytes {
                for o in missing {
                    DrmPresenter.copy(o, map: map, from: frame, into: $0.baseAddress!, pitch: pitch, format: format, rows: &rows)
                }
                CursorOverlay.draw(cursor, over: missing, bounds: output, into: $0.baseAddress!, pitch: pitch, format: format)
            }
            // The page, with the arrow an unrotated page would show at the pointer, turned.
            var wrong = 0
            for y in 0..<oh {
                for x in 0..<ow {
                    let p = map.pagePixel(x, y)
                    var want = format.pixel(frame.pixels[p.y * frame.stride + p.x])
                    if let pointer, let sp = Self.pageSprite(p.x, p.y, hot: pointer, scale: s) {
                        let c = CursorOverlay.pixels[sp.y * CursorSprite.width + sp.x]
                        if c >> 24 != 0 { want = format.pixel(c) }
                    }
                    let got = (0..<bpp).reduce(UInt32(0)) { $0 | UInt32(buffers[index][y * pitch + x * bpp + $1]) << (8 * UInt32($1)) }
                    if got != want { wrong += 1 }
                }
            }
            #expect(wrong == 0, "step \(step): buffer \(index) has \(wrong) pixels that are not the page with the arrow at \(String(describing: pointer))")
            if wrong != 0 { return }
            if chain.queued != nil { chain.flipped() }
            _ = chain.finishDrawing()
        }
        #expect(moveOnlyFrames > 10, "moves without a page change were exercised (\(moveOnlyFrames))")
    }
}
