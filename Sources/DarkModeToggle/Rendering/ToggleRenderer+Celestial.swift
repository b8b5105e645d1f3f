import Raster

extension ToggleRenderer {
    /// Device x of the visible disc's left edge — the sun while `appearance` < 0.5, else the
    /// moon — exactly where this renderer draws it for a component whose top-left is at device
    /// `origin`: the whole-pixel placement plus its sub-pixel phase (within 1/16 px of the
    /// unquantised position).
    public func celestialLeftEdge(origin: (x: Int, y: Int), position: Double, appearance: Double) -> Double {
        let body = appearance < 0.5 ? ToggleArt.sun : ToggleArt.moon
        let r = body.shape.rect
        return celestialTransform(celestialOrigin(origin, position: position)).apply(Point(r.minX, r.minY)).x
    }
}
