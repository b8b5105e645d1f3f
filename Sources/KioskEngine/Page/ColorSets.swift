import Raster

/// The names everything on the page is drawn with (the asset catalogue's colour sets).
public enum ColorName: String, CaseIterable, Sendable {
    case pageBackground, label, buttonLabel, materialTint, hairline, focusRing
}

/// One named colour's four appearances.
public struct ColorVariants: Equatable, Sendable {
    public var light: Color
    public var dark: Color
    public var highContrastLight: Color
    public var highContrastDark: Color

    public init(light: Color, dark: Color, highContrastLight: Color, highContrastDark: Color) {
        self.light = light
        self.dark = dark
        self.highContrastLight = highContrastLight
        self.highContrastDark = highContrastDark
    }

    /// The colour at `darkness` 0…1 (the page cross-fade) in normal or high contrast.
    public func color(darkness: Double, highContrast: Bool) -> Color {
        let (l, d) = highContrast ? (highContrastLight, highContrastDark) : (light, dark)
        if darkness <= 0 { return l }
        if darkness >= 1 { return d }
        return l.mix(d, darkness)
    }
}

/// Every named colour of the page. `standard` holds the later demo app's values.
public struct ColorSets: Equatable, Sendable {
    public var entries: [ColorName: ColorVariants]

    public init(entries: [ColorName: ColorVariants]) {
        precondition(ColorName.allCases.allSatisfy { entries[$0] != nil }, "every colour name needs a value")
        self.entries = entries
    }

    public subscript(_ name: ColorName) -> ColorVariants {
        get { entries[name]! }
        set { entries[name] = newValue }
    }

    static func rgb(_ r: Double, _ g: Double, _ b: Double, _ a: Double = 1) -> Color {
        Color(r255: r, g255: g, b255: b, alpha: a)
    }

    public static let standard = ColorSets(entries: [
        // Page light (235, 246, 255) / dark (66, 66, 66); high contrast pushes further apart.
        .pageBackground: ColorVariants(light: rgb(235, 246, 255), dark: rgb(66, 66, 66),
                                       highContrastLight: rgb(255, 255, 255), highContrastDark: rgb(0, 0, 0)),
        // Labels: black at 0.68 / white at 0.82; high contrast fully opaque.
        .label: ColorVariants(light: rgb(0, 0, 0, 0.68), dark: rgb(255, 255, 255, 0.82),
                              highContrastLight: rgb(0, 0, 0), highContrastDark: rgb(255, 255, 255)),
        .buttonLabel: ColorVariants(light: rgb(0, 0, 0, 0.68), dark: rgb(255, 255, 255, 0.82),
                                    highContrastLight: rgb(0, 0, 0), highContrastDark: rgb(255, 255, 255)),
        // The thin material's tint over the blurred backdrop.
        // Light/dark values match the screenshots' capsule: (236, 241, 247) over the light page,
        // (65, 65, 65) over the dark one.
        .materialTint: ColorVariants(light: rgb(238, 238, 242, 0.6), dark: rgb(60, 60, 62, 0.25),
                                     highContrastLight: rgb(242, 242, 247, 0.95), highContrastDark: rgb(28, 28, 30, 0.95)),
        .hairline: ColorVariants(light: rgb(0, 0, 0, 0.015), dark: rgb(255, 255, 255, 0.03),
                                 highContrastLight: rgb(0, 0, 0, 0.6), highContrastDark: rgb(255, 255, 255, 0.6)),
        .focusRing: ColorVariants(light: rgb(0, 122, 255), dark: rgb(10, 132, 255),
                                  highContrastLight: rgb(0, 64, 221), highContrastDark: rgb(64, 156, 255)),
    ])

    /// Every colour at one point of the cross-fade.
    public func resolve(darkness: Double, highContrast: Bool) -> ResolvedColors {
        ResolvedColors(values: ColorName.allCases.map { self[$0].color(darkness: darkness, highContrast: highContrast) })
    }
}

/// The named colours at one moment (what a frame is drawn with).
public struct ResolvedColors: Equatable, Sendable {
    let values: [Color]
    public subscript(_ name: ColorName) -> Color { values[ColorName.allCases.firstIndex(of: name)!] }
    /// The colours as the frame stores them (8-bit premultiplied): equal keys draw equal pixels.
    var key: [UInt32] { values.map { $0.premultiplied8.packed } }
}
