/// A size in device pixels: a page, a window, a benchmark frame. The one size type the tools
/// (config, flags, replay, bench, soak) and the SDL host share; `WxH` parsing lives with the
/// config (`PixelSize(parsing:)` in KioskTools).
public struct PixelSize: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    public var description: String { "\(width)x\(height)" }
}
