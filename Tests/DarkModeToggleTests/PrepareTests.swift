import Testing
import Raster
@testable import DarkModeToggle

/// `ToggleDeviceRenderer.prepare` makes every piece a frame needs, so that drawing the frame
/// afterwards, in any clip (the page's bands, on several threads at once), only reads kept
/// pieces and makes none.
@Suite struct PrepareTests {
    @Test(arguments: [ToggleStyle.original, .vivid])
    func drawingAPreparedFrameInBandsMakesNoPiece(style: ToggleStyle) throws {
        let renderer = try #require(style.makeRenderer(width: 260, scale: 2) as? ToggleDeviceRenderer)
        let pool = LayerPool()
        let pix = Pixmap(width: 600, height: 400)
        let canvas = Canvas(pix, pool: pool)
        for (i, p) in [0.0, 0.004, 0.3, 0.5, 0.77, 0.996, 1.0].enumerated() {
            for t in [0.4, 1.9, 3.1] {
                let frame = ToggleFrame(appearance: p, position: p, ambient: Ambient.state(time: t + Double(i), reduceMotion: false))
                renderer.prepare(frame, pool: pool)
                let maker = renderer.keptComposition(pool: pool).maker
                let made = maker.made
                for y in stride(from: 0, to: pix.height, by: 64) {
                    canvas.clip = IntRect(x: 0, y: y, width: pix.width, height: 64)
                    renderer.draw(frame, on: canvas, origin: (40, 40), cached: true)
                }
                #expect(maker.made == made, "\(style) p=\(p) t=\(t): \(maker.made - made) pieces made while drawing")
            }
        }
    }

    /// From scratch in parts: the parts make every piece the frame needs (joining them makes
    /// none), and the frame drawn from them equals the frame drawn from one part's pieces.
    @Test(arguments: [ToggleStyle.original, .vivid])
    func partsMakeEveryPieceAndDrawAsOne(style: ToggleStyle) throws {
        let split = try #require(style.makeRenderer(width: 260, scale: 2) as? ToggleDeviceRenderer)
        let whole = try #require(style.makeRenderer(width: 260, scale: 2) as? ToggleDeviceRenderer)
        #expect(split.fromScratchParts >= 2)
        let pools = (0..<split.fromScratchParts).map { _ in LayerPool() }, pool = LayerPool()
        for (i, p) in [0.0, 0.3, 0.5, 0.996, 1.0].enumerated() {
            let frame = ToggleFrame(appearance: p, position: p, ambient: Ambient.state(time: 0.9 * Double(i), reduceMotion: false))
            split.beginFromScratch(pools: pools)
            for part in pools.indices { split.makeFromScratch(frame, part: part) }
            let first = split.oneFrameParts[0].maker, made = first.made
            split.joinFromScratch(frame)
            #expect(first.made == made, "\(style) p=\(p): joining made \(first.made - made) pieces")
            whole.prepareFromScratch(frame, pool: pool)
            let a = Pixmap(width: 600, height: 400), b = Pixmap(width: 600, height: 400)
            split.draw(frame, on: Canvas(a), origin: (40, 40), cached: false)
            whole.draw(frame, on: Canvas(b), origin: (40, 40), cached: false)
            #expect(Array(UnsafeBufferPointer(start: a.pixels, count: 600 * 400))
                    == Array(UnsafeBufferPointer(start: b.pixels, count: 600 * 400)), "\(style) p=\(p)")
            split.endFromScratch()
            whole.endFromScratch()
        }
    }
}
