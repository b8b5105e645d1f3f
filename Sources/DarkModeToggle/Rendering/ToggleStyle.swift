import Raster

/// The look of the component. Both styles share the metrics, the interaction engine and the
/// motion (`ToggleFrame`); only the drawing differs.
public enum ToggleStyle: String, CaseIterable, Sendable {
    /// The first release's soft art (LightDarkModeAnimated).
    case original
    /// The later release's saturated art: deeper sky, cloud banks, halos, large stars.
    case vivid

    /// A renderer of this style for a component `width` points wide at `scale` pixels per point.
    public func makeRenderer(width: Double, scale: Double) -> any ToggleStyleRenderer {
        switch self {
        case .original: return ToggleRenderer(width: width, scale: scale)
        case .vivid: return VividRenderer(width: width, scale: scale)
        }
    }
}

/// What a page needs from a component renderer of any style.
public protocol ToggleStyleRenderer: AnyObject {
    var metrics: ToggleMetrics { get }
    /// Device pixels per point.
    var scale: Double { get }
    /// Draws the component with its top-left at device `origin`; `cached` keeps the rendered
    /// pieces between frames (same pixels as `cached: false`).
    func draw(_ frame: ToggleFrame, on canvas: Canvas, origin: (x: Int, y: Int), cached: Bool)
    /// Makes the kept pieces `frame` needs, so that drawing it with `cached: true` only reads
    /// them (from several threads at once, each with its own canvas).
    func prepare(_ frame: ToggleFrame, pool: LayerPool)
    /// Rasterizes the pieces of `frame` anew for one from-scratch frame (`draw(cached: false)`
    /// then only reads them) until `endFromScratch()`.
    func prepareFromScratch(_ frame: ToggleFrame, pool: LayerPool)
    /// The same in parts that lanes make at once: `beginFromScratch` with one pool per part
    /// (at most `fromScratchParts`), `makeFromScratch` for each part on any thread, then
    /// `joinFromScratch`.
    var fromScratchParts: Int { get }
    func beginFromScratch(pools: [LayerPool])
    func makeFromScratch(_ frame: ToggleFrame, part: Int)
    func joinFromScratch(_ frame: ToggleFrame)
    func endFromScratch()
    /// The device rectangle the component can touch, for any state.
    func bounds(origin: (x: Int, y: Int)) -> IntRect
    /// A device rectangle the component covers opaquely when its kept composition draws
    /// `frame`: its pixels there depend on `frame` alone, not on what lies under it (so a page
    /// whose colour changes need not redraw them). Nil when the style knows none for this frame,
    /// or the kept composition has not drawn yet.
    func opaqueCore(_ frame: ToggleFrame, origin: (x: Int, y: Int)) -> IntRect?
    /// The device rectangle that changes between two frames (empty when they are equal).
    func dirtyBounds(from old: ToggleFrame?, to new: ToggleFrame, origin: (x: Int, y: Int)) -> IntRect
    /// The device rectangles that change between two frames (none when they draw the same);
    /// their union is `dirtyBounds`, they may overlap.
    func dirtyRects(from old: ToggleFrame?, to new: ToggleFrame, origin: (x: Int, y: Int)) -> [IntRect]
}

extension ToggleRenderer: ToggleStyleRenderer {}
extension VividRenderer: ToggleStyleRenderer {}
