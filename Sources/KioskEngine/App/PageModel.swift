import DarkModeToggle
import Raster

/// What the page shows at one instant, made by `KioskApp` from its state and read by whoever
/// presents the page: the `PageRenderer` turns it into pixels, an accessibility bridge into a
/// tree (`accessibility`). Neither reads the other, nor the app's mutable state: the model is a
/// value, so both see the same page.
public struct PageModel {
    /// Where everything is (page points and device pixels).
    public let layout: PageLayout
    /// Every named colour now (cross-fading together), in the variant in force.
    public let colors: ResolvedColors
    /// The page's darkness 0 light … 1 dark (the background images' cross-fade, the icon's halves).
    public let darkness: Double
    /// What each toggle draws.
    public let toggles: TogglePair<ToggleFrame>
    /// Each toggle's committed state (on = dark).
    public let togglesOn: TogglePair<Bool>
    /// The keyboard focus, and whether its ring shows (after Tab or arrows).
    public let focus: PageControl
    public let focusVisible: Bool
    /// True while the page follows the system (the button shows the check).
    public let followsSystem: Bool
    /// The button's words now.
    public let buttonText: String
    /// The shaped labels: each toggle's headline and the button's words.
    public let labels: PageLabels
    /// The page's words (accessibility names come from them).
    public let strings: PageStrings
    /// Background images, and the page colours under them (premultiplied, packed; zero without images), or nil.
    public let background: PageBackground?
    public let backgroundColors: (light: UInt32, dark: UInt32)
    /// Whether the frame-time overlay is drawn.
    public let showFPS: Bool

    public init(layout: PageLayout, colors: ResolvedColors, darkness: Double, toggles: TogglePair<ToggleFrame>, togglesOn: TogglePair<Bool>,
                focus: PageControl, focusVisible: Bool, followsSystem: Bool, buttonText: String,
                labels: PageLabels, strings: PageStrings, background: PageBackground?,
                backgroundColors: (light: UInt32, dark: UInt32), showFPS: Bool) {
        self.layout = layout
        self.colors = colors
        self.darkness = darkness
        self.toggles = toggles
        self.togglesOn = togglesOn
        self.focus = focus
        self.focusVisible = focusVisible
        self.followsSystem = followsSystem
        self.buttonText = buttonText
        self.labels = labels
        self.strings = strings
        self.background = background
        self.backgroundColors = backgroundColors
        self.showFPS = showFPS
    }

    /// The page as an accessibility tree sees it (names, roles, states, frames).
    public var accessibility: PageAccessibility {
        let controls = PageControl.allCases.map { c -> PageAccessibility.Control in
            guard let toggle = c.toggle else {
                return .init(control: c, kind: .button, name: buttonText, isOn: followsSystem, frame: layout.frame(of: c))
            }
            return .init(control: c, kind: .toggle, name: "\(strings.darkMode) (\(strings.groupLabel(of: toggle)))",
                         isOn: togglesOn[toggle], frame: layout.frame(of: c))
        }
        return PageAccessibility(controls: controls, focus: focus,
                                 pageSize: (Double(layout.pixelWidth) / layout.scale, Double(layout.pixelHeight) / layout.scale),
                                 scale: layout.scale)
    }
}

/// The page's controls for assistive technology: a plain value that may cross threads.
public struct PageAccessibility: Equatable, Sendable {
    public enum Kind: Sendable, Equatable { case toggle, button }

    public struct Control: Equatable, Sendable {
        public let control: PageControl
        public let kind: Kind
        /// What a screen reader says: "Dark Mode (Original)", or the button's label.
        public let name: String
        /// A toggle: on (dark). The button: the page follows the system.
        public let isOn: Bool
        /// Where it is on the page, in page points.
        public let frame: Rect

        public init(control: PageControl, kind: Kind, name: String, isOn: Bool, frame: Rect) {
            self.control = control
            self.kind = kind
            self.name = name
            self.isOn = isOn
            self.frame = frame
        }
    }

    /// Original, vivid, button (focus order).
    public let controls: [Control]
    /// The keyboard focus, which is the accessibility focus.
    public let focus: PageControl
    /// The page's size in points, and pixels per point.
    public let pageSize: (width: Double, height: Double)
    public let scale: Double

    public init(controls: [Control], focus: PageControl, pageSize: (width: Double, height: Double), scale: Double) {
        self.controls = controls
        self.focus = focus
        self.pageSize = pageSize
        self.scale = scale
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.controls == b.controls && a.focus == b.focus && a.pageSize == b.pageSize && a.scale == b.scale
    }

    /// The control whose frame holds the page point (x, y), if any.
    public func control(atX x: Double, y: Double) -> Control? {
        controls.first { $0.frame.contains(Point(x, y)) }
    }
}
