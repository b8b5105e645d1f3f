import KioskEngine
import Raster
import Testing
import KioskSupport
@testable import KioskHost

/// The DRM framebuffer presenter without a display: its buffers' bookkeeping (`ScanoutChain`)
/// and its copy (`DrmPresenter.copy`), driven as the presenter drives them, into buffers in
/// plain memory of the output's format. Whenever the flips complete, the buffer the display
/// shows must be exactly the page as it was when that buffer was queued.
@Suite struct DrmPresenterTests {
    struct LCG {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
    }

    /// The bytes the display should scan out for the page in `frame` through `map`.
    static func expected(_ frame: Pixmap, _ map: RotationMap, ow: Int, oh: Int, format: ScanoutFormat, pitch: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: pitch * oh)
        let bpp = format.bytesPerPixel
        for y in 0..<oh {
            for x in 0..<ow {
                let p = map.pagePixel(x, y)
                let v = format.pixel(frame.pixels[p.y * frame.stride + p.x])
                for k in 0..<bpp { out[y * pitch + x * bpp + k] = UInt8(truncatingIfNeeded: v >> (8 * UInt32(k))) }
            }
        }
        return out
    }

    static let cases: [(Rotation, ScanoutFormat, Int, Bool)] = [
        (.none, .xrgb8888, 3, false), (.none, .rgb565, 3, false), (.clockwise90, .rgb565, 3, false),
        (.upsideDown, .xrgb8888, 2, false), (.clockwise270, .xrgb8888, 3, false),
        (.none, .rgb565, 1, true), (.clockwise90, .xrgb8888, 1, true),
    ]

    @Test(arguments: cases)
    func theShownBufferIsThePageItWasQueuedWith(rotation: Rotation, format: ScanoutFormat, count: Int, inPlace: Bool) {
        shownBuffersShowThePage(rotation: rotation, format: format, count: count, inPlace: inPlace, ow: 37, oh: 23, steps: 300)
    }

    /// Large enough that whole-page and large rectangles stream (`StreamingCopy.minPixels`).
    @Test(arguments: [(Rotation.none, ScanoutFormat.rgb565), (.clockwise90, .xrgb8888), (.upsideDown, .rgb565)])
    func largeRectanglesStreamTheSameBytes(rotation: Rotation, format: ScanoutFormat) {
        #expect(411 * 263 >= StreamingCopy.minPixels)
        shownBuffersShowThePage(rotation: rotation, format: format, count: 3, inPlace: false, ow: 411, oh: 263, steps: 20)
    }

    func shownBuffersShowThePage(rotation: Rotation, format: ScanoutFormat, count: Int, inPlace: Bool, ow: Int, oh: Int, steps: Int) {
        let viewport = Viewport(outputWidth: ow, outputHeight: oh, windowWidth: ow, windowHeight: oh, rotation: rotation, scale: 1)
        let frame = Pixmap(width: viewport.pagePixelWidth, height: viewport.pagePixelHeight)
        let map = RotationMap(rotation: rotation, outputWidth: ow, outputHeight: oh)
        let output = IntRect(x: 0, y: 0, width: ow, height: oh)
        // Rows padded as dumb buffers' pitches are.
        let pitch = ow * format.bytesPerPixel + 12
        var rng = LCG(state: 7)
        var chain = ScanoutChain(count: count, frontBuffer: inPlace, bounds: output)
        var buffers = [[UInt8]](repeating: [UInt8](repeating: 0xEE, count: pitch * oh), count: chain.count)
        var queuedPage: [UInt8]?
        var rows = OutputRows()
        var copied = 0, fullPixels = 0, waits = 0, flipsSeen = 0
        for step in 0..<steps {
            var dirty: [IntRect] = []
            if step == 0 {
                frame.fill(frame.bounds, with: 0xFF10_2030)
                dirty = [frame.bounds]
            } else {
                for _ in 0...rng.next(3) {
                    let x = rng.next(frame.width), y = rng.next(frame.height)
                    let r = IntRect(x: x, y: y, width: 1 + rng.next(frame.width - x), height: 1 + rng.next(frame.height - y))
                    frame.fill(r, with: 0xFF00_0000 | UInt32(truncatingIfNeeded: rng.next(0xFF_FFFF)))
                    dirty.append(r)
                }
            }
            // The vblank comes when it comes: the queued flip may complete before this frame.
            if chain.queued != nil, rng.next(2) == 0 {
                chain.flipped()
                flipsSeen += 1
                let shown = chain.shown!
                #expect(buffers[shown] == queuedPage, "step \(step): buffer \(shown) is not the page it was queued with")
            }
            chain.changed(dirty.map { map.outputRect($0.intersection(frame.bounds)).intersection(output) }.filter { !$0.isEmpty },
                          bounds: output)
            // No free buffer (two buffers, one shown and one queued): wait for the flip, as
            // `DrmPresenter.upload` does.
            if chain.drawing == nil, chain.free == nil {
                waits += 1
                chain.flipped()
                #expect(buffers[chain.shown!] == queuedPage)
            }
            guard let (index, missing) = chain.beginDrawing() else {
                Issue.record("step \(step): no buffer to draw")
                return
            }
            #expect(inPlace || (index != chain.shown && index != chain.queued), "never drawn into a buffer the display reads")
            for o in missing {
                copied += o.area
                buffers[index].withUnsafeMutableBytes {
                    DrmPresenter.copy(o, map: map, from: frame, into: $0.baseAddress!, pitch: pitch, format: format, rows: &rows)
                }
            }
            fullPixels += ow * oh
            let page = Self.expected(frame, map, ow: ow, oh: oh, format: format, pitch: pitch)
            // Padding bytes are never written: compare the pixels only.
            var drawn = buffers[index]
            for y in 0..<oh { for k in (ow * format.bytesPerPixel)..<pitch { drawn[y * pitch + k] = 0 } }
            #expect(drawn == page, "step \(step): buffer \(index) differs from the page")
            if drawn != page { return }
            buffers[index] = drawn
            // Present: a queued flip must have completed first (the presenter waits for it).
            if chain.queued != nil {
                chain.flipped()
                #expect(buffers[chain.shown!] == queuedPage)
            }
            #expect(chain.finishDrawing() == index)
            if inPlace { #expect(chain.shown == index) } else { #expect(chain.queued == index) }
            queuedPage = page
        }
        #expect(copied < fullPixels, "only rectangles were copied (\(copied) of \(fullPixels) pixels)")
        if count == 2, !inPlace { #expect(waits > 0, "two buffers sometimes wait for the flip") }
        if !inPlace { #expect(flipsSeen > 0) }
    }

    @Test func aLostDisplayMakesEveryBufferMissEverything() {
        let output = IntRect(x: 0, y: 0, width: 10, height: 10)
        var chain = ScanoutChain(count: 3, frontBuffer: false, bounds: output)
        for _ in 0..<3 {
            _ = chain.beginDrawing()
            _ = chain.finishDrawing()
            chain.flipped()
        }
        let small = IntRect(x: 1, y: 1, width: 2, height: 2)
        chain.changed([small], bounds: output)
        #expect(chain.beginDrawing()?.rects == [small])
        _ = chain.finishDrawing()
        chain.invalidate(bounds: output)
        #expect(chain.queued == nil && chain.drawing == nil)
        let next = chain.beginDrawing()
        #expect(next?.rects.contains(output) == true, "after a loss the next buffer copies the whole page")
    }

    @Test func routeToOurOwnPresenter() {
        // Asked by name: tried and required.
        #expect(DrmRules.route(present: .drm, videoDriver: "x11", hasDisplay: true, hasWayland: false, hasCard: true) == (true, true))
        // SDL's kmsdrm asked for, or a bare console with a card: ours, falling back to SDL's.
        #expect(DrmRules.route(present: nil, videoDriver: "KMSDRM", hasDisplay: false, hasWayland: false, hasCard: true) == (true, false))
        #expect(DrmRules.route(present: nil, videoDriver: nil, hasDisplay: false, hasWayland: false, hasCard: true) == (true, false))
        // The GL texture presenter asked for: SDL's kmsdrm stays.
        #expect(DrmRules.route(present: .texture, videoDriver: "kmsdrm", hasDisplay: false, hasWayland: false, hasCard: true) == (false, false))
        // A desktop or no card: SDL's display.
        #expect(DrmRules.route(present: nil, videoDriver: nil, hasDisplay: true, hasWayland: false, hasCard: true) == (false, false))
        #expect(DrmRules.route(present: nil, videoDriver: nil, hasDisplay: false, hasWayland: true, hasCard: true) == (false, false))
        #expect(DrmRules.route(present: nil, videoDriver: nil, hasDisplay: false, hasWayland: false, hasCard: false) == (false, false))
        #expect(DrmRules.route(present: nil, videoDriver: "x11", hasDisplay: false, hasWayland: false, hasCard: true) == (false, false))
    }

    /// (A request's spelling and a bad value, "yuv" or "sideways": HostEnvironmentTests.)
    @Test func modeFormatAndFlipChoices() {
        #expect(DrmRules.pickMode([]) == nil)
        #expect(DrmRules.pickMode([(1920, 1080, 60, false), (1024, 768, 75, true)]) == 1, "the preferred mode")
        #expect(DrmRules.pickMode([(800, 600, 60, false), (1280, 800, 60, false), (1280, 800, 75, false)]) == 2, "else the largest, fastest")

        #expect(DrmRules.pickFormat(request: nil, planeFormats: nil) == (.xrgb8888, nil))
        #expect(DrmRules.pickFormat(request: nil, planeFormats: [.rgb565]).format == .rgb565, "a panel that takes only RGB565")
        #expect(DrmRules.pickFormat(request: .rgb565, planeFormats: [.xrgb8888, .rgb565]) == (.rgb565, nil))
        let refused = DrmRules.pickFormat(request: .rgb565, planeFormats: [.xrgb8888])
        #expect(refused.format == .xrgb8888 && refused.warning?.contains("does not take RGB565") == true)
        #expect(DrmRules.pickFormat(request: nil, planeFormats: []).format == nil)

        #expect(DrmRules.flipOrder(request: nil, atomicAvailable: true) == [.atomic, .legacy, .dirty])
        #expect(DrmRules.flipOrder(request: nil, atomicAvailable: false) == [.legacy, .dirty])
        #expect(DrmRules.flipOrder(request: .legacy, atomicAvailable: true) == [.legacy, .dirty])
        #expect(DrmRules.flipOrder(request: .dirty, atomicAvailable: false) == [.dirty])
        #expect(DrmRules.flipOrder(request: .atomic, atomicAvailable: false) == [.legacy, .dirty], "atomic needs the capability")
        #expect(DrmRules.flipOrder(request: nil, atomicAvailable: true, hasVBlank: false) == [.dirty], "no vblank: drawn in place")
        #expect(DrmRules.flipOrder(request: .atomic, atomicAvailable: true, hasVBlank: false) == [.atomic, .legacy, .dirty],
                "a flip asked for by name is tried without vblank too")

        #expect(DrmRules.dpi(pixels: 1920, millimetres: 0) == nil)
        #expect(DrmRules.dpi(pixels: 800, millimetres: 154).map { ($0 * 10).rounded() / 10 } == 131.9)
    }
}
