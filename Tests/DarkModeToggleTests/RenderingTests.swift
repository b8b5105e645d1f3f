import Foundation
import Raster
import Testing
@testable import DarkModeToggle

/// Largest per-channel difference between two pixmaps of the same size.
func maxChannelDifference(_ a: Pixmap, _ b: Pixmap) -> (value: Int, x: Int, y: Int) {
    var worst = (value: 0, x: 0, y: 0)
    for y in 0..<a.height {
        for x in 0..<a.width {
            let p = a.color(x: x, y: y), q = b.color(x: x, y: y)
            let d = max(abs(Int(p.r) - Int(q.r)), abs(Int(p.g) - Int(q.g)), abs(Int(p.b) - Int(q.b)), abs(Int(p.a) - Int(q.a)))
            if d > worst.value { worst = (d, x, y) }
        }
    }
    return worst
}

func renderToggle(width: Double, scale: Double, frame: ToggleFrame, cached: Bool, pad: Int = 0,
                  renderer: ToggleRenderer? = nil) -> Pixmap {
    let r = renderer ?? ToggleRenderer(width: width, scale: scale)
    let w = Int((width * scale).rounded(.up)) + 2 * pad
    let h = Int((width * scale * 80 / 130).rounded(.up)) + 2 * pad
    let pix = Pixmap(width: w, height: h)
    let canvas = Canvas(pix)
    canvas.fill(deviceRect: pix.bounds, Color(r255: 205, g255: 231, b255: 255))
    r.draw(frame, on: canvas, origin: (pad, pad), cached: cached)
    return pix
}

@Suite struct RenderingTests {
    static let states: [(Double, Double, Double, Bool)] = [
        // appearance, position, ambient time, reduce motion
        (0, 0, 0, true), (0, 0, 1.2, false), (0.35, 0.35, 1.2, false), (0.5, 0.62, 2.7, false),
        (1, 1, 0.4, false), (1, 1.04, 3.3, false), (0.8, -0.02, 0, true),
    ]

    @Test(arguments: [(260.0, 1.0), (130.0, 2.0), (173.0, 1.5)])
    func cachedAndUncachedAgree(width: Double, scale: Double) {
        let renderer = ToggleRenderer(width: width, scale: scale)
        for (a, q, t, rm) in Self.states {
            let frame = ToggleFrame(appearance: a, position: q, ambient: Ambient.state(time: t, reduceMotion: rm))
            let fresh = renderToggle(width: width, scale: scale, frame: frame, cached: false, pad: 40)
            let cached = renderToggle(width: width, scale: scale, frame: frame, cached: true, pad: 40, renderer: renderer)
            let d = maxChannelDifference(fresh, cached)
            #expect(d.value <= 1, "state p=\(a) q=\(q) t=\(t): differs by \(d.value) at \(d.x),\(d.y)")
        }
    }

    /// The celestial origin is placed at its exact spec position to within half a sub-pixel step
    /// (1/16 px), at both ends, mid-travel, and at other scales and component origins.
    @Test(arguments: [(130.0, 1.0), (260, 1), (130, 2), (333.3, 1.5)])
    func celestialSitsAtItsExactPosition(width: Double, scale: Double) {
        let r = ToggleRenderer(width: width, scale: scale)
        let step = 1 / Double(ToggleRenderer.subpixelSteps)
        for origin in [(x: 0, y: 0), (x: 17, y: -5)] {
            for q in [0.0, 0.1234, 0.5, 0.77, 1.0] {
                let c = r.celestialOrigin(origin, position: q)
                #expect((0..<ToggleRenderer.subpixelSteps).contains(c.phaseX))
                #expect((0..<ToggleRenderer.subpixelSteps).contains(c.phaseY))
                let x = Double(c.x - origin.x) + Double(c.phaseX) * step
                let y = Double(c.y - origin.y) + Double(c.phaseY) * step
                #expect(abs(x - r.metrics.celestialOriginX(position: q) * scale) <= step / 2 + 1e-9, "q=\(q)")
                #expect(abs(y - r.metrics.celestialOriginY * scale) <= step / 2 + 1e-9)
            }
        }
        // At 130 pt, 1x: the spec's −90.17 and −22.54 are −91 + 7/8 and −23 + 4/8.
        let a = r.celestialOrigin((0, 0), position: 0), b = r.celestialOrigin((0, 0), position: 1)
        if width == 130 && scale == 1 {
            #expect(a == CelestialPlacement(x: -91, y: a.y, phaseX: 7, phaseY: a.phaseY))
            #expect(b == CelestialPlacement(x: -23, y: b.y, phaseX: 4, phaseY: b.phaseY))
        }
    }

    @Test(arguments: [0.0, 0.0624, 0.0626, 0.5, 0.99, 1.0, -0.0624, -0.0626, -0.5, -1.01, -7.3])
    func subpixelSplitRoundsToTheNearestStep(v: Double) {
        let s = ToggleRenderer.split(v)
        let n = Double(ToggleRenderer.subpixelSteps)
        #expect((0..<ToggleRenderer.subpixelSteps).contains(s.phase))
        #expect(abs(Double(s.whole) + Double(s.phase) / n - v) <= 0.5 / n + 1e-12)
    }

    /// A slow motion moves the drawn sun by fractions of a pixel: consecutive positions 1/8 px
    /// apart give different pixels (the old whole-pixel snap drew them identically), and an
    /// eighth-pixel step changes the image far less than a whole-pixel step.
    @Test func slowMotionIsDrawnBetweenPixels() {
        let r = ToggleRenderer(width: 130, scale: 1)
        let travel = r.metrics.translationTravel
        let ambient = Ambient.state(time: 0, reduceMotion: true)
        func image(_ dxPixels: Double) -> Pixmap {
            renderToggle(width: 130, scale: 1, frame: ToggleFrame(appearance: 0, position: 0.3 + dxPixels / travel, ambient: ambient), cached: true)
        }
        let base = image(0), eighth = image(0.125), whole = image(1)
        let small = maxChannelDifference(base, eighth).value, big = maxChannelDifference(base, whole).value
        #expect(small > 0, "an eighth of a pixel must show")
        #expect(small * 3 < big, "an eighth of a pixel moves edges a little: \(small) vs \(big)")
    }

    @Test func lightAndDarkLookRight() {
        // Sample colours that must hold: day sky right of the sun, night sky at the left, the
        // sun's body, the moon's lit crescent.
        let light = renderToggle(width: 260, scale: 1, frame: ToggleFrame(appearance: 0, position: 0, ambient: Ambient.state(time: 0, reduceMotion: true)), cached: false)
        let dark = renderToggle(width: 260, scale: 1, frame: ToggleFrame(appearance: 1, position: 1, ambient: Ambient.state(time: 0, reduceMotion: true)), cached: false)
        func close(_ c: PremultipliedRGBA8, _ want: Color, _ tol: Int) -> Bool {
            let w = want.premultiplied8
            return abs(Int(c.r) - Int(w.r)) <= tol && abs(Int(c.g) - Int(w.g)) <= tol && abs(Int(c.b) - Int(w.b)) <= tol
        }
        // Day sky above the clouds, right half.
        #expect(close(light.color(x: 150, y: 45), ToggleArt.Palette.daySky, 3))
        // Sun centre: sun fill over the sky (0.96 opacity).
        let sunCenterX = Int(ToggleMetrics(width: 260).celestialOriginX(position: 0) + (111.5537 + 22.72) * ToggleMetrics(width: 260).celestialScale)
        #expect(close(light.color(x: sunCenterX, y: 80), Color(r255: 255, g255: 193, b255: 135), 6))
        // Night sky at the left, away from stars.
        #expect(close(dark.color(x: 30, y: 100), ToggleArt.Palette.nightSky, 4))
    }
}

/// The composed control (one sprite per control, re-composed only where the frame changed):
/// after any sequence of frames, its sprite equals a sprite composed from scratch at the last
/// frame, for both styles; an unchanged frame changes nothing.
@Suite struct ComposedToggleTests {
    static func bytes(_ s: Sprite) -> [UInt32] {
        Array(UnsafeBufferPointer(start: s.pixmap.pixels, count: s.pixmap.width * s.pixmap.height))
    }

    @Test(arguments: ToggleStyle.allCases)
    func incrementalCompositionEqualsFromScratch(style: ToggleStyle) {
        let live = ComposedToggle(renderer: style.makeRenderer(width: 130, scale: 1))
        let states: [(Double, Double, Double)] = [(0, 0, 0), (0, 0, 0.4), (0.3, 0.25, 0.5), (0.3, 0.25, 0.5),
                                                  (0.8, 0.9, 1.3), (1, 1, 2.0), (1, 1, 2.7), (0, 0.1, 3.1)]
        for (a, q, t) in states {
            let frame = ToggleFrame(appearance: a, position: q, ambient: Ambient.state(time: t, reduceMotion: false))
            let before = Self.bytes(live.composed(at: (0, 0)))
            let changed = live.update(frame)
            if changed.isEmpty { #expect(Self.bytes(live.composed(at: (0, 0))) == before) }
            let fresh = ComposedToggle(renderer: style.makeRenderer(width: 130, scale: 1))
            fresh.update(frame, cached: false)
            let d = maxChannelDifference(live.composed(at: (0, 0)).pixmap, fresh.composed(at: (0, 0)).pixmap)
            #expect(d.value <= 1, "\(style) p=\(a) q=\(q) t=\(t): differs by \(d.value) at \(d.x),\(d.y)")
        }
        // The same frame again: nothing to do.
        let last = ToggleFrame(appearance: 0, position: 0.1, ambient: Ambient.state(time: 3.1, reduceMotion: false))
        #expect(live.update(last).isEmpty)
    }
}
