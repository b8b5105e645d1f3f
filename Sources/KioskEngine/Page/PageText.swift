import Raster

/// A shaped label: what layout measures and drawing draws. Sizes are device pixels at the
/// pixel size it was shaped with. `payload` is the typesetter's own shaped line.
public final class TypesetLabel {
    public let text: String
    public let pixelSize: Double
    public let tracking: Double
    /// Advance width, and distances from the baseline up / down (positive), in pixels.
    public let width: Double
    public let ascent: Double
    public let descent: Double
    public let payload: AnyObject?

    public init(text: String, pixelSize: Double, tracking: Double, width: Double, ascent: Double, descent: Double,
                payload: AnyObject? = nil) {
        self.text = text
        self.pixelSize = pixelSize
        self.tracking = tracking
        self.width = width
        self.ascent = ascent
        self.descent = descent
        self.payload = payload
    }
}

/// Text for the page, from outside the engine (the tools implement it with HarfBuzz/FreeType;
/// tests use a fake). The engine shapes only when a label's text or size changes.
public protocol LabelTypesetter: AnyObject {
    /// Shapes `text` at `pixelSize` device pixels with letter spacing `tracking` (em).
    func shape(_ text: String, pixelSize: Double, tracking: Double) -> TypesetLabel
    /// Draws a label with its baseline's left end at `baselineOrigin` (device pixels).
    func draw(_ label: TypesetLabel, on canvas: Canvas, baselineOrigin: Point, color: Color)
}

/// A typesetter without fonts: widths estimated from the character count (0.56 em per
/// character, 1 em for CJK), Inter-like ascent/descent. With `drawsBoxes` it paints each label's
/// box (tests see labels in the pixels); otherwise it draws nothing.
public final class EstimatingTypesetter: LabelTypesetter {
    public let drawsBoxes: Bool
    public private(set) var shapeCount = 0

    public init(drawsBoxes: Bool = false) { self.drawsBoxes = drawsBoxes }

    public func shape(_ text: String, pixelSize: Double, tracking: Double) -> TypesetLabel {
        shapeCount += 1
        let ems = text.unicodeScalars.reduce(0.0) { $0 + ($1.value >= 0x2E80 ? 1.0 : 0.56) + tracking }
        return TypesetLabel(text: text, pixelSize: pixelSize, tracking: tracking, width: ems * pixelSize,
                            ascent: 0.97 * pixelSize, descent: 0.24 * pixelSize)
    }

    public func draw(_ label: TypesetLabel, on canvas: Canvas, baselineOrigin o: Point, color: Color) {
        guard drawsBoxes else { return }
        let r = Rect(x: o.x, y: o.y - label.ascent * 0.7, width: label.width, height: label.ascent * 0.7)
        canvas.fill(Path.rect(r), .solid(color))
    }
}

/// The page's words, in the chosen language (the tools fill it from their string tables).
public struct PageStrings: Equatable, Sendable {
    public var original: String
    public var vivid: String
    public var useSystemSetting: String
    /// The button while following the system and no source states a scheme.
    public var followingSystem: String
    /// The button while following the system and a source drives the mode: `{source}` stands
    /// for that source's name ("Following System · {source}").
    public var followingSystemVia: String
    /// Each source's name on the button ("desktop", "light sensor", "schedule").
    public var sourceNames: [AppearanceSourceKind: String]
    /// The button's accessibility label.
    public var followSystemAppearance: String
    /// The toggles' accessibility label ("Dark Mode"; each is named "Dark Mode (Original)").
    public var darkMode: String

    /// The placeholder in `followingSystemVia`.
    public static let sourcePlaceholder = "{source}"

    public init(original: String = "Original", vivid: String = "Vivid", useSystemSetting: String = "Use System Setting",
                followingSystem: String = "Following System",
                followingSystemVia: String = "Following System · {source}",
                sourceNames: [AppearanceSourceKind: String] = PageStrings.englishSourceNames,
                followSystemAppearance: String = "Follow System Appearance", darkMode: String = "Dark Mode") {
        self.original = original
        self.vivid = vivid
        self.useSystemSetting = useSystemSetting
        self.followingSystem = followingSystem
        self.followingSystemVia = followingSystemVia
        self.sourceNames = sourceNames
        self.followSystemAppearance = followSystemAppearance
        self.darkMode = darkMode
    }

    public static let englishSourceNames: [AppearanceSourceKind: String] =
        Dictionary(uniqueKeysWithValues: AppearanceSourceKind.allCases.map { ($0, $0.label) })

    public static let english = PageStrings()

    /// A toggle's group label ("Original", "Vivid"): its headline, and its name's suffix.
    public func groupLabel(of toggle: ToggleSlot) -> String { toggle == .original ? original : vivid }

    /// The button's words while following the system: "Following System · light sensor" when
    /// `source` drives the mode, plain "Following System" when no source states a scheme.
    public func followingLabel(source: AppearanceSourceKind?) -> String {
        guard let source else { return followingSystem }
        let name = sourceNames[source] ?? source.label
        return replacing(Self.sourcePlaceholder, in: followingSystemVia, with: name)
    }

    /// `text` with every `placeholder` replaced (the engine may not import Foundation).
    private func replacing(_ placeholder: String, in text: String, with value: String) -> String {
        var out = "", rest = Substring(text)
        while let r = rest.firstRange(of: placeholder) {
            out += rest[..<r.lowerBound]
            out += value
            rest = rest[r.upperBound...]
        }
        return out + rest
    }
}

/// A label the page keeps: reshapes only when its text or pixel size changes.
struct LabelSlot {
    private(set) var label: TypesetLabel?
    private(set) var shapeCount = 0

    mutating func update(_ text: String, pixelSize: Double, tracking: Double, with typesetter: LabelTypesetter) -> TypesetLabel {
        if let l = label, l.text == text, l.pixelSize == pixelSize, l.tracking == tracking { return l }
        let l = typesetter.shape(text, pixelSize: pixelSize, tracking: tracking)
        label = l
        shapeCount += 1
        return l
    }
}
