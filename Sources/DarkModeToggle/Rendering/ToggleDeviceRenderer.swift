import Raster

/// What both styles' renderers share: the component's metrics at a device scale, and the
/// artboard → device units and transforms derived from them.
public class ToggleDeviceRenderer {
    public let metrics: ToggleMetrics
    /// Device pixels per point.
    public let scale: Double

    public init(width: Double, scale: Double) {
        precondition(scale > 0 && scale.isFinite, "scale must be positive")
        metrics = ToggleMetrics(width: width)
        self.scale = scale
    }

    /// Device pixels per track artboard unit.
    var trackUnit: Double { metrics.trackScale * scale }
    /// Device pixels per celestial artboard unit.
    var celestialUnit: Double { metrics.celestialScale * scale }

    /// The track transform for a component whose top-left is at device `origin`.
    func trackTransform(_ origin: (x: Int, y: Int)) -> Transform {
        Transform.scale(trackUnit, trackUnit)
            .concatenating(.translation(Double(origin.x), Double(origin.y) + metrics.trackOriginY * scale))
    }
}
