/// Clockwise rotation of the page on the display (config `rotate`, the host's presenter), in quarter turns.
public enum Rotation: Int, CaseIterable, Equatable, Sendable {
    case none = 0
    case clockwise90 = 90
    case upsideDown = 180
    case clockwise270 = 270

    /// `nil` unless `degrees` is 0, 90, 180 or 270.
    public init?(degrees: Int) { self.init(rawValue: degrees) }

    public var degrees: Int { rawValue }

    /// True when the page's width and height are the display's height and width.
    public var swapsAxes: Bool { self == .clockwise90 || self == .clockwise270 }

    /// What a valid rotation looks like, for error messages.
    public static let expectation = "one of 0, 90, 180, 270"
}
