import Raster

/// The artwork of the "Vivid" style, encoded from the SwiftUI DarkModeToggle package's later
/// releases (`VividToggleArt`, `VividToggleTrack`, the `Vivid…Disc` views), whose look follows
/// "Day-night-toggle-button" by Xiumuzaidiao (ISC; see THIRD_PARTY_NOTICES.md).
///
/// It shares the original's geometry (`ToggleMetrics`: 173 × 69 track artboard, 173 × 84
/// celestial artboard, the same celestial travel). Three coordinate frames are used:
/// - track units: the track artboard (as `ToggleArt`);
/// - the *inner frame*: the 169 × 65 track-unit rectangle at (2, 2) that holds sky, halo and
///   scenes, is clipped to a capsule and carries the stroked border and the shadow;
/// - scene units: the clouds and stars are laid out on a 173-wide artboard stretched over the
///   169-wide inner frame (the scenes measure their own width), so one scene unit is
///   169/173 track units, with (0, 0) at the inner frame's top-left.
public enum VividArt {
    // MARK: Palette

    public enum Palette {
        public static let daySky = Color(r255: 70, g255: 133, b255: 192)
        public static let nightSky = Color(r255: 25, g255: 30, b255: 50)
        public static let sun = Color(r255: 255, g255: 195, b255: 35)
        public static let sunHighlight = Color(r255: 255, g255: 230, b255: 80)
        public static let moon = Color(r255: 195, g255: 200, b255: 210)
        public static let moonCrater = Color(r255: 150, g255: 160, b255: 180)
        public static let star = Color.white
        public static let cloud = Color.white
    }

    // MARK: Track

    /// The inner frame (track units).
    public static let innerFrame = Rect(x: 2, y: 2, width: 169, height: 65)
    /// Corner radius of the clip and border (track units), continuous corners.
    public static let cornerRadius = 32.5
    public static var clipShape: ToggleArt.Capsule { ToggleArt.Capsule(rect: innerFrame, radius: cornerRadius) }
    /// The border: a stroke inside the clip shape, top-to-bottom gradient.
    public static let borderWidth = 4.0
    public static let borderGradient = [Color(r: 0, g: 0, b: 0, a: 0.62), Color(r: 0, g: 0, b: 0, a: 0.18),
                                        Color(r: 1, g: 1, b: 1, a: 0.22)]
    /// The track's drop shadow (cast by the clipped content and the border).
    public static let trackShadow = ToggleArt.Shadow(color: Color(r: 0, g: 0, b: 0, a: 0.28), radius: 2.8, dx: 1.8, dy: 2.4)
    /// Scene units → track units.
    public static let sceneScale = 169.0 / 173.0

    // MARK: Halo

    public struct Halo: Sendable {
        /// Diameter in track units.
        public let diameter: Double
        public let opacity: Double
    }

    /// Three white discs, drawn largest first, sharing a centre that follows the appearance.
    public static let halos = [Halo(diameter: 156, opacity: 0.06), Halo(diameter: 132, opacity: 0.1),
                               Halo(diameter: 108, opacity: 0.18)]
    /// Halo centre (inner-frame track units) at appearance 0 and 1; y is fixed.
    public static let haloCenterXLight = 40.5
    public static let haloCenterXDark = 130.4
    public static let haloCenterY = 32.5

    /// Halo centre in track units for an appearance progress (clamped to 0…1).
    public static func haloCenter(appearance p: Double) -> Point {
        let q = clamp(p, 0, 1)
        return Point(innerFrame.minX + lerp(haloCenterXLight, haloCenterXDark, q), innerFrame.minY + haloCenterY)
    }

    // MARK: Scenes

    /// The day scene moves down by this many track units as the appearance goes 0 → 1.
    public static let daySceneDrop = 48.0
    /// The night scene starts this many track units higher at appearance 0 and arrives at 1.
    public static let nightSceneRise = 12.0

    public struct Circle: Sendable {
        public let center: Point
        public let radius: Double
    }

    public struct CloudGroup: Sendable {
        /// Scene units.
        public let circles: [Circle]
        public let opacity: Double
        /// Seconds of one leg of the float.
        public let duration: Double
    }

    public static let cloudGroups: [CloudGroup] = {
        func c(_ x: Double, _ y: Double, _ r: Double) -> Circle { Circle(center: Point(x, y), radius: r) }
        return [
            CloudGroup(circles: [c(96, 57, 18), c(116, 49, 19), c(137, 54, 22), c(157, 43, 23), c(177, 53, 25), c(194, 43, 22)],
                       opacity: 0.48, duration: 4.8),
            CloudGroup(circles: [c(73, 75, 25), c(98, 67, 23), c(122, 74, 28), c(148, 64, 26), c(174, 73, 30), c(198, 61, 27)],
                       opacity: 1, duration: 6.2),
        ]
    }()

    /// Cloud float (scene units, +y down): from +5 at time 0 to −3, ease-in-out, autoreversing.
    public static let cloudOffsetFrom = 5.0
    public static let cloudOffsetTo = -3.0

    public struct Star: Sendable {
        /// Twinkle group (1…6): the index into `starDurations` is group − 1.
        public let group: Int
        /// Scene units.
        public let center: Point
        public let radius: Double
    }

    public static let stars: [Star] = [
        Star(group: 1, center: Point(27, 18), radius: 7.5), Star(group: 2, center: Point(83, 45), radius: 7.5),
        Star(group: 3, center: Point(15, 38), radius: 5), Star(group: 4, center: Point(61, 35), radius: 5),
        Star(group: 5, center: Point(72, 18), radius: 3), Star(group: 6, center: Point(38, 52), radius: 3),
    ]
    /// Seconds of one leg of each star group's twinkle (groups 1…6).
    public static let starDurations: [Double] = [3.5, 4.1, 4.9, 5.3, 3, 2.2]
    /// Star scale: from 0.2 at time 0 to 1, linear, autoreversing.
    public static let starScaleFrom = 0.2
    public static let starScaleTo = 1.0

    // MARK: Celestial (celestial artboard units)

    public struct Crater: Sendable {
        /// Offset of the crater's frame from the disc frame's top-left, and its diameter.
        public let x: Double
        public let y: Double
        public let diameter: Double
    }

    public struct Body: Sendable {
        /// The disc's square frame.
        public let frame: Rect
        public let fill: Color
        public let strokeWidth: Double
        /// Stroke gradient from the frame's top-left to its bottom-right corner.
        public let strokeGradient: [Color]
        public let shadows: [ToggleArt.Shadow]
        public let craters: [Crater]
        public var center: Point { frame.center }
        public var radius: Double { frame.width / 2 }
    }

    static let discFrame = Rect(x: 111.5537, y: 20.365, width: 45.4463, height: 45.4463)

    public static let sun = Body(
        frame: discFrame, fill: Palette.sun, strokeWidth: 2.1,
        strokeGradient: [Color(r: 1, g: 1, b: 1, a: 0.48), Palette.sunHighlight.withAlpha(0.8), Color(r: 0, g: 0, b: 0, a: 0.18)],
        shadows: [ToggleArt.Shadow(color: Palette.sun.withAlpha(0.54), radius: 4.5, dx: 0, dy: 0),
                  ToggleArt.Shadow(color: Color(r: 0, g: 0, b: 0, a: 0.42), radius: 3.2, dx: 2.4, dy: 3.2)],
        craters: [])

    public static let moon = Body(
        frame: discFrame, fill: Palette.moon, strokeWidth: 2.1,
        strokeGradient: [Color(r: 1, g: 1, b: 1, a: 0.86), Color(r: 1, g: 1, b: 1, a: 0.18), Color(r: 0, g: 0, b: 0, a: 0.28)],
        shadows: [ToggleArt.Shadow(color: Color(r: 1, g: 1, b: 1, a: 0.36), radius: 5, dx: 0, dy: 0),
                  ToggleArt.Shadow(color: Color(r: 0, g: 0, b: 0, a: 0.46), radius: 3.2, dx: 2.4, dy: 3.2)],
        craters: [Crater(x: 25, y: 6.5, diameter: 9.5), Crater(x: 7, y: 18, diameter: 15), Crater(x: 30, y: 30, diameter: 9.5)])

    /// Each crater's centred stroke.
    public static let craterStroke = (color: Color(r: 0, g: 0, b: 0, a: 0.22), width: 1.2)
}

/// The Vivid style's ambient loops, as pure functions of the same ambient clock as `Ambient`.
public enum VividAmbient {
    /// Cloud group `group` (0…1) offset in scene units at `time`; Reduce Motion: 0.
    public static func cloudOffsetY(group: Int, time: Double, reduceMotion: Bool) -> Double {
        precondition(VividArt.cloudGroups.indices.contains(group), "VividAmbient.cloudOffsetY: group must be 0...1, got \(group)")
        if reduceMotion { return 0 }
        let p = Ambient.autoreversingProgress(time: time, duration: VividArt.cloudGroups[group].duration, curve: .easeInOut)
        return lerp(VividArt.cloudOffsetFrom, VividArt.cloudOffsetTo, p)
    }

    /// Scale of star group `group` (1…6) at `time`; Reduce Motion: 1.
    public static func starScale(group: Int, time: Double, reduceMotion: Bool) -> Double {
        precondition((1...VividArt.starDurations.count).contains(group), "VividAmbient.starScale: group must be 1...6, got \(group)")
        if reduceMotion { return 1 }
        let p = Ambient.autoreversingProgress(time: time, duration: VividArt.starDurations[group - 1], curve: .linear)
        return lerp(VividArt.starScaleFrom, VividArt.starScaleTo, p)
    }

    static func cloudOffsets(time: Double, reduceMotion: Bool) -> [Double] {
        VividArt.cloudGroups.indices.map { cloudOffsetY(group: $0, time: time, reduceMotion: reduceMotion) }
    }

    static func starScales(time: Double, reduceMotion: Bool) -> [Double] {
        (1...VividArt.starDurations.count).map { starScale(group: $0, time: time, reduceMotion: reduceMotion) }
    }
}
