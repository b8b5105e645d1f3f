/// The ambient loops of the scenes as pure functions of the ambient clock (seconds since the
/// scene first appeared): floating clouds by day, twinkling stars by night. Reduce Motion
/// stops them at their rest values.
public enum Ambient {
    /// Cloud float: offset (artboard units, +y down) from `cloudOffsetFrom` to `cloudOffsetTo`.
    public static let cloudOffsetFrom = 5.0
    public static let cloudOffsetTo = -10.0
    /// Seconds of one leg of each cloud group's float (groups 0…3).
    public static let cloudDurations: [Double] = [3.5, 4.5, 2.5, 5.5]
    /// Seconds of one leg of each star group's twinkle; group 0 is static (nil).
    public static let starDurations: [Double?] = [nil, 3, 2, 1, 5]

    /// True when the ambient loops move (Reduce Motion off): the renderer must keep drawing
    /// frames while a scene with clouds or stars is visible.
    public static func isActive(reduceMotion: Bool) -> Bool { !reduceMotion }

    /// Vertical offset (artboard units) of cloud group `group` (0…3) at `time`: +5 at time 0,
    /// −10 after the group's duration along the cloud curve, back to +5 along the same curve
    /// reversed, for ever. Reduce Motion: 0.
    public static func cloudOffsetY(group: Int, time: Double, reduceMotion: Bool) -> Double {
        precondition(cloudDurations.indices.contains(group), "Ambient.cloudOffsetY: group must be 0...3, got \(group)")
        if reduceMotion { return 0 }
        let p = autoreversingProgress(time: time, duration: cloudDurations[group], curve: .cloud)
        return cloudOffsetFrom + (cloudOffsetTo - cloudOffsetFrom) * p
    }

    /// Opacity of star group `group` (0…4) at `time`: group 0 is always 1; groups 1…4 go
    /// 0 → 1 ease-in-out over their duration and back, for ever. Reduce Motion: 1.
    public static func starOpacity(group: Int, time: Double, reduceMotion: Bool) -> Double {
        precondition(starDurations.indices.contains(group), "Ambient.starOpacity: group must be 0...4, got \(group)")
        guard !reduceMotion, let duration = starDurations[group] else { return 1 }
        return autoreversingProgress(time: time, duration: duration, curve: .easeInOut)
    }

    /// All ambient values at once, for a renderer.
    public static func state(time: Double, reduceMotion: Bool) -> AmbientState {
        AmbientState(
            cloudOffsetsY: cloudDurations.indices.map { cloudOffsetY(group: $0, time: time, reduceMotion: reduceMotion) },
            starOpacities: starDurations.indices.map { starOpacity(group: $0, time: time, reduceMotion: reduceMotion) },
            vividCloudOffsetsY: VividAmbient.cloudOffsets(time: time, reduceMotion: reduceMotion),
            vividStarScales: VividAmbient.starScales(time: time, reduceMotion: reduceMotion))
    }

    /// An autoreversing loop: curve(u/d) on the way out, curve((2d − u)/d) on the way back,
    /// where u is the time modulo 2d (so the return leg is the forward leg played backwards).
    /// Times before 0 continue the loop backwards; a non-finite time gives the start.
    public static func autoreversingProgress(time: Double, duration: Double, curve: CubicBezier) -> Double {
        guard time.isFinite, duration > 0 else { return 0 }
        let period = 2 * duration
        var u = time.truncatingRemainder(dividingBy: period)
        if u < 0 { u += period }
        let leg = u <= duration ? u : period - u
        return curve.value(at: leg / duration)
    }
}

/// The ambient values for one frame: cloud offsets (groups 0…3, artboard units) and star
/// opacities (groups 0…4); for the Vivid style, its cloud offsets (groups 0…1, scene units)
/// and star scales (groups 1…6, at indices 0…5).
public struct AmbientState: Equatable, Sendable {
    public var cloudOffsetsY: [Double]
    public var starOpacities: [Double]
    public var vividCloudOffsetsY: [Double]
    public var vividStarScales: [Double]
}
