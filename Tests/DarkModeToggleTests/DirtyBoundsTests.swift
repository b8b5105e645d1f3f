import Raster
import Testing
@testable import DarkModeToggle

/// `dirtyBounds` promises that every pixel a change of frame touches lies inside it, at any
/// scale and any whole-pixel origin: the page redraws only that rectangle, so a pixel outside
/// it would stay stale on screen. Odd scales and far origins matter: bounds measured at the
/// origin itself once came out a column narrower than the sprites (placed from origin 0) at
/// 200 pt × 1.5 with the origin x = 518.
@Suite struct DirtyBoundsTests {
    static func frame(_ appearance: Double, _ position: Double, time: Double) -> ToggleFrame {
        ToggleFrame(appearance: appearance, position: position, ambient: Ambient.state(time: time, reduceMotion: false))
    }

    /// The component drawn onto a light page, in a pixmap covering `area` (device pixels).
    static func render(_ r: any ToggleStyleRenderer, _ f: ToggleFrame, origin: (x: Int, y: Int), area: IntRect) -> Pixmap {
        let pix = Pixmap(width: area.width, height: area.height)
        pix.fill(pix.bounds, with: 0xFFF2_F2F7)
        let c = Canvas(pix)
        c.retarget(pix, origin: (area.x, area.y))
        r.draw(f, on: c, origin: origin, cached: true)
        return pix
    }

    static let transitions: [(ToggleFrame, ToggleFrame)] = {
        var pairs: [(ToggleFrame, ToggleFrame)] = [
            (frame(0, 0, time: 7.0 / 60), frame(0.3194541111111106, 0.3194541111111106, time: 8.0 / 60)),
            (frame(0, 0, time: 0.5), frame(0, 0, time: 2.9)),               // ambient only, day
            (frame(1, 1, time: 0.5), frame(1, 1, time: 1.7)),               // ambient only, night
            (frame(0, 0, time: 1), frame(0.02, 0, time: 1)),                // appearance only
            (frame(0.5, 0.5, time: 1), frame(0.5, 0.53, time: 1)),          // position only
            (frame(0.6, 1.0, time: 1), frame(1, 1.04, time: 1.1)),
            (frame(0.5, 0.5, time: 2.2), frame(0.5, 0.5, time: 2.3)),      // ambient only, both scenes
        ]
        // Consecutive frames of the ambient loops alone, and with the sun or moon sliding.
        for t in [0.3, 1.1, 2.6, 4.05] {
            let next = t + 1.0 / 60
            pairs.append((frame(0, 0, time: t), frame(0, 0, time: next)))
            pairs.append((frame(1, 1, time: t), frame(1, 1, time: next)))
            pairs.append((frame(0, 0.2, time: t), frame(0, 0.23, time: next)))
            pairs.append((frame(1, 0.7, time: t), frame(1, 0.66, time: next)))
        }
        // The sun or moon alone, stepping through sub-pixel phases (the dirty box of a body is
        // its measured content at phase 0 widened by a pixel).
        for k in 0..<9 {
            let q = 0.37 + Double(k) * 0.0031
            pairs.append((frame(0, q, time: 1), frame(0, q + 0.0031, time: 1)))
            pairs.append((frame(1, 1 - q, time: 1), frame(1, 1 - q - 0.0031, time: 1)))
        }
        return pairs
    }()

    @Test(arguments: ToggleStyle.allCases)
    func changedPixelsLieInsideTheDirtyBounds(style: ToggleStyle) {
        for (width, scale) in [(200.0, 1.5), (260.0, 2.0), (173.0, 1.25), (80.0, 1.0)] {
            let r = style.makeRenderer(width: width, scale: scale)
            for origin in [(x: 518, y: 183), (x: 40, y: 41), (x: 7, y: 311)] {
                let area = r.bounds(origin: origin).insetBy(dx: -8, dy: -8)
                for (a, b) in Self.transitions {
                    let pa = Self.render(r, a, origin: origin, area: area), pb = Self.render(r, b, origin: origin, area: area)
                    let d = r.dirtyBounds(from: a, to: b, origin: origin)
                    let rects = r.dirtyRects(from: a, to: b, origin: origin)
                    #expect(rects.reduce(IntRect.zero) { $0.union($1) } == d)
                    var outside: [String] = []
                    for y in 0..<pa.height {
                        for x in 0..<pa.width where pa[x, y] != pb[x, y] {
                            let p = (x: x + area.x, y: y + area.y)
                            if !rects.contains(where: { p.x >= $0.minX && p.x < $0.maxX && p.y >= $0.minY && p.y < $0.maxY }) {
                                outside.append("(\(p.x), \(p.y))")
                            }
                        }
                    }
                    #expect(outside.isEmpty, "\(style) \(width)pt × \(scale) at \(origin), \(a.appearance)/\(a.position) → \(b.appearance)/\(b.position): \(outside.count) changed pixels outside \(rects), e.g. \(outside.prefix(3))")
                }
            }
        }
    }

    /// A frame's dirty rectangles depend on the two frames alone, not on what the renderer drew
    /// before (which sub-pixel phases of the sun and moon its cache made first): an app that
    /// has run for days redraws exactly what a fresh one redraws. Renderers that first drew the
    /// bodies at different phases agree on every transition.
    @Test(arguments: ToggleStyle.allCases)
    func dirtyRectsDoNotDependOnWhatWasDrawnBefore(style: ToggleStyle) {
        let origin = (x: 518, y: 183)
        var seen: [[IntRect]]? = nil
        for k in 0..<8 {
            let r = style.makeRenderer(width: 200, scale: 1.5)
            let area = r.bounds(origin: origin)
            let q = 0.41 + Double(k) * 0.0029
            for f in [Self.frame(0, q, time: 1), Self.frame(1, 1 - q, time: 1)] { _ = Self.render(r, f, origin: origin, area: area) }
            let rects = Self.transitions.map { r.dirtyRects(from: $0.0, to: $0.1, origin: origin) }
            if let seen { #expect(rects == seen, "\(style): the renderer that first drew at position \(q) redraws other rectangles") }
            seen = rects
        }
    }
}
