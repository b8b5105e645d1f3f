import CSDL2
import KioskEngine
import Raster
import Testing
import KioskSupport
@testable import KioskHost

/// The Wayland shared-memory presenter without a compositor: its bookkeeping of what each
/// buffer misses (`BufferDamage`) and its row copy (`ShmPresenter.copy`), driven as the
/// presenter drives them, against buffers in plain memory. Whatever order the compositor
/// releases buffers in, the buffer committed must show exactly the current page.
@Suite struct ShmPresenterTests {
    /// A small deterministic generator (the test must not depend on the run).
    struct LCG {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
    }

    /// Output pixel (x, y) as the compositor should see it: the page pixel the rotation puts
    /// there, in XBGR8888 (our R, G, B, A bytes) or XRGB8888 (red and blue swapped).
    static func expected(_ frame: Pixmap, _ map: RotationMap, _ x: Int, _ y: Int, swapsRedBlue: Bool) -> UInt32 {
        let p = map.pagePixel(x, y)
        let v = frame.pixels[p.y * frame.stride + p.x]
        return swapsRedBlue ? (v & 0xFF00_FF00) | ((v & 0xFF) << 16) | ((v >> 16) & 0xFF) : v
    }

    static let cases: [(Rotation, Bool)] = [(.none, false), (.none, true), (.clockwise90, false), (.upsideDown, true), (.clockwise270, false)]

    @Test(arguments: cases)
    func everyCommittedBufferShowsTheCurrentPage(rotation: Rotation, swapsRedBlue: Bool) {
        committedBuffersShowThePage(rotation: rotation, swapsRedBlue: swapsRedBlue, ow: 37, oh: 23, steps: 300)
    }

    /// The same on a page large enough that whole-page and large rectangles stream
    /// (`StreamingCopy.minPixels`), with buffers whose rows start at every alignment.
    @Test(arguments: cases)
    func largeRectanglesStreamTheSamePixels(rotation: Rotation, swapsRedBlue: Bool) {
        #expect(411 * 263 >= StreamingCopy.minPixels)
        committedBuffersShowThePage(rotation: rotation, swapsRedBlue: swapsRedBlue, ow: 411, oh: 263, steps: 24)
    }

    func committedBuffersShowThePage(rotation: Rotation, swapsRedBlue: Bool, ow: Int, oh: Int, steps: Int) {
        let viewport = Viewport(outputWidth: ow, outputHeight: oh, windowWidth: ow, windowHeight: oh, rotation: rotation, scale: 1)
        let frame = Pixmap(width: viewport.pagePixelWidth, height: viewport.pagePixelHeight)
        let map = RotationMap(rotation: rotation, outputWidth: ow, outputHeight: oh)
        let output = IntRect(x: 0, y: 0, width: ow, height: oh)
        var rng = LCG(state: 42)
        var damage = BufferDamage()
        var buffers: [[UInt32]] = []
        var busy: [Bool] = []
        var rows = OutputRows()
        var lastCommitted: Int?
        var copied = 0, fullPixels = 0
        for step in 0..<steps {
            // The app changes one to three rectangles (the first frame: the whole page).
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
            let changed = dirty.map { map.outputRect($0.intersection(frame.bounds)).intersection(output) }.filter { !$0.isEmpty }
            damage.changed(changed, bounds: output)
            // The compositor releases buffers in its own order; it always holds the one it shows.
            for i in busy.indices where i != lastCommitted && rng.next(3) != 0 { busy[i] = false }
            var index = busy.firstIndex(of: false)
            if index == nil || (buffers.count < ShmPresenter.maxBuffers && rng.next(4) == 0) {
                guard buffers.count < ShmPresenter.maxBuffers else { continue }  // all held: the frame waits
                buffers.append([UInt32](repeating: 0xDEAD_BEEF, count: ow * oh))
                busy.append(false)
                index = damage.addBuffer(bounds: output)
                #expect(index == buffers.count - 1)
            }
            guard let i = index else { continue }
            for o in damage.take(i) {
                copied += o.width * o.height
                buffers[i].withUnsafeMutableBufferPointer { buf in
                    ShmPresenter.copy(o, map: map, from: frame, into: buf.baseAddress!, pitch: ow, swapsRedBlue: swapsRedBlue, rows: &rows)
                }
            }
            fullPixels += ow * oh
            var wrong = 0
            for y in 0..<oh {
                for x in 0..<ow where buffers[i][y * ow + x] != Self.expected(frame, map, x, y, swapsRedBlue: swapsRedBlue) { wrong += 1 }
            }
            #expect(wrong == 0, "step \(step): buffer \(i) differs from the page in \(wrong) pixels")
            if wrong != 0 { return }
            busy[i] = true
            lastCommitted = i
        }
        #expect(buffers.count == ShmPresenter.maxBuffers, "the release pattern made all buffers")
        #expect(copied < fullPixels, "only rectangles were copied (\(copied) of \(fullPixels) pixels)")
    }

    @Test func aBufferTakesItsListOnceAndPastSixteenRectanglesTheirBoundingBox() {
        let bounds = IntRect(x: 0, y: 0, width: 100, height: 100)
        var damage = BufferDamage()
        #expect(damage.addBuffer(bounds: bounds) == 0)
        #expect(damage.take(0) == [bounds], "a new buffer lacks everything")
        #expect(damage.take(0).isEmpty)
        let small = (0..<5).map { IntRect(x: $0 * 10, y: 1, width: 2, height: 3) }
        damage.changed(small, bounds: bounds)
        #expect(damage.addBuffer(bounds: bounds) == 1)
        #expect(damage.take(0) == small)
        #expect(damage.take(1) == [bounds])
        let many = (0..<17).map { IntRect(x: $0 * 5, y: $0, width: 2, height: 2) }
        damage.changed(many, bounds: bounds)
        #expect(damage.take(0) == [IntRect(x: 0, y: 0, width: 82, height: 18)])
        #expect(BufferDamage.merged(Array(many.prefix(16)), bounds: bounds) == Array(many.prefix(16)))
    }

    @Test func overlappingDamageOfSuccessiveFramesIsOneRectangle() {
        let bounds = IntRect(x: 0, y: 0, width: 1280, height: 800)
        var damage = BufferDamage()
        _ = damage.addBuffer(bounds: bounds)
        _ = damage.take(0)
        // Three frames of the ambient clouds (the rectangles the page reported, one a frame).
        let frames = [IntRect(x: 400, y: 159, width: 242, height: 87), IntRect(x: 400, y: 158, width: 242, height: 88),
                      IntRect(x: 434, y: 158, width: 208, height: 88)]
        for f in frames { damage.changed([f], bounds: bounds) }
        #expect(damage.take(0) == [IntRect(x: 400, y: 158, width: 242, height: 88)], "one rectangle, each pixel copied once")
        // Apart, or overlapping in a corner only (their bounding box is mostly neither): kept apart.
        let apart = [IntRect(x: 0, y: 0, width: 10, height: 10), IntRect(x: 20, y: 0, width: 10, height: 10)]
        #expect(apart.reduce([], BufferDamage.adding) == apart)
        let corner = [IntRect(x: 0, y: 0, width: 10, height: 10), IntRect(x: 9, y: 9, width: 10, height: 10)]
        #expect(corner.reduce([], BufferDamage.adding) == corner)
        // Folding can chain: the third bridges the first two into one.
        let chain = [IntRect(x: 0, y: 0, width: 10, height: 10), IntRect(x: 12, y: 0, width: 10, height: 10),
                     IntRect(x: 5, y: 0, width: 12, height: 10)]
        #expect(chain.reduce([], BufferDamage.adding) == [IntRect(x: 0, y: 0, width: 22, height: 10)])
        #expect([IntRect(x: 3, y: 3, width: 0, height: 5)].reduce([], BufferDamage.adding).isEmpty, "an empty rectangle adds nothing")
    }

    @Test func foldedDamageCoversEveryPixelAndCopiesNoMoreThanTheRectanglesApart() {
        var state: UInt64 = 34
        func next() -> UInt64 {  // a fixed linear congruential sequence: the same cases every run
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state >> 33
        }
        for _ in 0..<300 {
            let rects = (0..<Int(next() % 8 + 1)).map { _ in
                IntRect(x: Int(next() % 40), y: Int(next() % 40), width: Int(next() % 15 + 1), height: Int(next() % 15 + 1))
            }
            let folded = rects.reduce([], BufferDamage.adding)
            #expect(folded.reduce(0) { $0 + $1.area } <= rects.reduce(0) { $0 + $1.area }, "\(rects) folded into \(folded)")
            for r in rects {
                for y in r.minY..<r.maxY {
                    for x in r.minX..<r.maxX where !folded.contains(where: { $0.minX <= x && x < $0.maxX && $0.minY <= y && y < $0.maxY }) {
                        Issue.record("pixel (\(x), \(y)) of \(r) lost: \(rects) folded into \(folded)")
                        return
                    }
                }
            }
        }
    }

    @Test func presenterChoice() {
        // (The request's spelling, "auto" and a bad value: HostEnvironmentTests.)
        #expect(PresenterKind.order(request: nil, driver: "wayland") == [.shm, .surface, .texture])
        #expect(PresenterKind.order(request: nil, driver: "x11") == [.surface, .texture])
        #expect(PresenterKind.order(request: nil, driver: "kmsdrm") == [.surface, .texture])
        #expect(PresenterKind.order(request: .texture, driver: "wayland") == [.texture])
        #expect(PresenterKind.order(request: .surface, driver: "wayland") == [.surface])
        #expect(PresenterKind.order(request: .shm, driver: "x11") == [.shm], "asked for by name: tried even off Wayland (and fails there)")
    }

    /// The window surface's own copy (streamed, `StreamingCopy`) takes the formats whose bytes
    /// are ours or ours with red and blue exchanged; SDL converts every other.
    @Test func surfaceFormatsCopiedWithoutSDL() {
        #expect(SurfacePresenter.streamedLayout(CSDL2_PIXELFORMAT_RGBA32) == false)
        #expect(SurfacePresenter.streamedLayout(SDL_PIXELFORMAT_XBGR8888.rawValue) == false)
        #expect(SurfacePresenter.streamedLayout(SDL_PIXELFORMAT_ARGB8888.rawValue) == true)
        #expect(SurfacePresenter.streamedLayout(SDL_PIXELFORMAT_RGB888.rawValue) == true, "RGB888 is XRGB8888 (X11's usual)")
        for other in [SDL_PIXELFORMAT_RGB565, SDL_PIXELFORMAT_BGRA8888, SDL_PIXELFORMAT_RGBA8888, SDL_PIXELFORMAT_RGB24] {
            #expect(SurfacePresenter.streamedLayout(other.rawValue) == nil, "\(other.rawValue)")
        }
    }
}
