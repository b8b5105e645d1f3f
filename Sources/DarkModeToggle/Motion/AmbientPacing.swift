/// How often the ambient loops need a frame when nothing else moves: on the display's frame grid
/// (frame `k` at `t0 + k·period`), the next frame shown is the latest one up to which, counted
/// from the last frame shown, no cloud has moved more than `maxCloudStep` device pixels and no
/// star's opacity (Original) or scale (Vivid) has changed by more than `maxStarStep` — at any grid
/// frame in between, so a cloud that turns round within the gap still counts. When even the next
/// grid frame is past a bound, it is the next frame (the display's full rate). Pure: the host asks
/// how many grid frames it may leave out.
public enum AmbientPacing {
    /// Largest cloud move between two frames shown, device pixels.
    public static let maxCloudStep = 0.25
    /// Largest star opacity (or Vivid star scale) step between two frames shown.
    public static let maxStarStep = 1.0 / 64
    /// At most this many grid frames are left out in a row (a loop at its turning point stands
    /// almost still; the frame after is computed again anyway).
    public static let maxSkip = 30

    /// What one toggle shows of the ambient loops: its style, its device pixels per track
    /// artboard unit, and which scenes show (at rest only the day or the night one).
    public struct Scene: Equatable, Sendable {
        public enum Style: Sendable { case original, vivid }
        public var style: Style
        public var trackUnit: Double
        public var showsClouds: Bool
        public var showsStars: Bool

        public init(style: Style, trackUnit: Double, showsClouds: Bool, showsStars: Bool) {
            self.style = style
            self.trackUnit = trackUnit
            self.showsClouds = showsClouds
            self.showsStars = showsStars
        }

        /// The scenes shown at `appearance` (0 light … 1 dark): clouds below 1, stars above 0.
        public init(style: Style, trackUnit: Double, appearance: Double) {
            self.init(style: style, trackUnit: trackUnit, showsClouds: appearance < 1, showsStars: appearance > 0)
        }
    }

    /// The moving values `scene` shows at ambient time `time`, each in units of its bound (a
    /// change of more than 1 is past the bound): cloud offsets in quarter pixels, star opacities
    /// and scales in 64ths.
    public static func values(_ scene: Scene, time: Double) -> [Double] {
        var v: [Double] = []
        switch scene.style {
        case .original:
            if scene.showsClouds {
                for g in Ambient.cloudDurations.indices {
                    v.append(Ambient.cloudOffsetY(group: g, time: time, reduceMotion: false) * scene.trackUnit / maxCloudStep)
                }
            }
            if scene.showsStars {
                for g in Ambient.starDurations.indices where Ambient.starDurations[g] != nil {
                    v.append(Ambient.starOpacity(group: g, time: time, reduceMotion: false) / maxStarStep)
                }
            }
        case .vivid:
            if scene.showsClouds {
                let unit = VividArt.sceneScale * scene.trackUnit / maxCloudStep
                for g in VividArt.cloudGroups.indices {
                    v.append(VividAmbient.cloudOffsetY(group: g, time: time, reduceMotion: false) * unit)
                }
            }
            if scene.showsStars {
                for g in 1...VividArt.starDurations.count {
                    v.append(VividAmbient.starScale(group: g, time: time, reduceMotion: false) / maxStarStep)
                }
            }
        }
        return v
    }

    /// How many grid frames after the frame at `now` may be left out (0: the next one is due),
    /// when the last frame shown was at `shown` (≤ `now`) and the scenes are `scenes`; frame `j`
    /// after `now` is at `now + j·period` (ambient time). The frame to draw is the last grid frame
    /// `k ≥ 1` such that every grid frame `1…k` is within the bounds of the frame shown; 1 when
    /// frame 1 already is not. At most `maxSkip`.
    public static func framesToSkip(shown: Double, now: Double, period: Double, scenes: [Scene]) -> Int {
        guard period > 0, period.isFinite, shown.isFinite, now.isFinite, shown <= now else { return 0 }
        let base = scenes.flatMap { values($0, time: shown) }
        guard !base.isEmpty else { return maxSkip }
        func within(_ j: Int) -> Bool {
            let t = now + Double(j) * period
            var i = 0
            for s in scenes {
                for x in values(s, time: t) {
                    if abs(x - base[i]) > 1 { return false }
                    i += 1
                }
            }
            return true
        }
        // Frames 1…k are within the bounds; frame 1 is drawn even when it is not.
        var k = 0
        while k < maxSkip + 1, within(k + 1) { k += 1 }
        return max(k, 1) - 1
    }
}
