import Testing
import Raster
@testable import DarkModeToggle

/// Cross-fading frames of the kept composition, which skips the skies under the scenes and
/// composites the scenes over the skies' blend there, against the one-frame composition, which
/// draws every layer everywhere: the same bytes.
@Suite struct CrossFadeTests {
    @Test(arguments: [(260.0, 1.0), (130.0, 2.0), (173.0, 1.5), (260.0, 2.0)])
    func crossFadingFramesEqualEveryLayerDrawn(width: Double, scale: Double) {
        let renderer = ToggleRenderer(width: width, scale: scale)
        #expect(renderer.keptCompositionSkipsInteriorSkies)
        for (i, p) in [0.001, 0.003, 0.05, 0.25, 0.5, 0.62, 0.9, 0.997, 0.999].enumerated() {
            let frame = ToggleFrame(appearance: p, position: p, ambient: Ambient.state(time: 0.7 * Double(i), reduceMotion: false))
            let fresh = renderToggle(width: width, scale: scale, frame: frame, cached: false, pad: 40)
            let kept = renderToggle(width: width, scale: scale, frame: frame, cached: true, pad: 40, renderer: renderer)
            let d = maxChannelDifference(fresh, kept)
            #expect(d.value == 0, "p=\(p): differs by \(d.value) at \(d.x),\(d.y)")
        }
    }

    /// The same in bands (as the page draws, one clip per band): the rectangles around clouds
    /// and stars and the plain sky between them meet without seams or double blending.
    @Test(arguments: [(260.0, 2.0), (173.0, 1.5)])
    func crossFadingFramesInBandsEqualEveryLayerDrawn(width: Double, scale: Double) {
        let renderer = ToggleRenderer(width: width, scale: scale)
        for (i, p) in [0.004, 0.3, 0.5, 0.77, 0.996].enumerated() {
            let frame = ToggleFrame(appearance: p, position: p, ambient: Ambient.state(time: 1.3 * Double(i), reduceMotion: false))
            let fresh = renderToggle(width: width, scale: scale, frame: frame, cached: false, pad: 40)
            let banded = Self.drawnInBands(frame, by: renderer, like: fresh)
            let d = maxChannelDifference(fresh, banded)
            #expect(d.value == 0, "p=\(p): differs by \(d.value) at \(d.x),\(d.y)")
        }
    }

    /// Frames at rest, whose scene the kept composition draws straight onto the canvas where
    /// the scene mask is 255 (`sceneCore`), against the one-frame composition, which composites
    /// the scene layer everywhere: the same bytes, drawn whole and in 23-row bands.
    @Test(arguments: [(260.0, 1.0), (130.0, 2.0), (173.0, 1.5), (260.0, 2.0)])
    func restingFramesEqualTheSceneLayerComposited(width: Double, scale: Double) {
        let renderer = ToggleRenderer(width: width, scale: scale)
        for (i, p) in [0.0, 1.0, 0.0, 1.0].enumerated() {
            let frame = ToggleFrame(appearance: p, position: p, ambient: Ambient.state(time: 1.1 * Double(i), reduceMotion: false))
            let fresh = renderToggle(width: width, scale: scale, frame: frame, cached: false, pad: 40)
            let kept = renderToggle(width: width, scale: scale, frame: frame, cached: true, pad: 40, renderer: renderer)
            let banded = Self.drawnInBands(frame, by: renderer, like: fresh)
            for (name, pix) in [("whole", kept), ("banded", banded)] {
                let d = maxChannelDifference(fresh, pix)
                #expect(d.value == 0, "p=\(p) \(name): differs by \(d.value) at \(d.x),\(d.y)")
            }
        }
    }

    /// `frame` drawn by the kept composition in 23-row clips (as the page draws in bands) on the
    /// page colour of `renderToggle`, into a pixmap of `reference`'s size.
    static func drawnInBands(_ frame: ToggleFrame, by renderer: ToggleRenderer, like reference: Pixmap) -> Pixmap {
        let banded = Pixmap(width: reference.width, height: reference.height)
        let canvas = Canvas(banded)
        canvas.fill(deviceRect: banded.bounds, Color(r255: 205, g255: 231, b255: 255))
        for y in stride(from: 0, to: banded.height, by: 23) {
            canvas.clip = IntRect(x: 0, y: y, width: banded.width, height: min(23, banded.height - y))
            renderer.draw(frame, on: canvas, origin: (40, 40), cached: true)
        }
        return banded
    }
}
