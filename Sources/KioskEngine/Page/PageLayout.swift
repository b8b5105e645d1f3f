import DarkModeToggle
import Raster

/// The page's three controls, in focus order.
public enum PageControl: String, CaseIterable, Sendable {
    case original, vivid, button
}

/// How the column is arranged: stacked as the app does, or the two toggle groups side by side
/// (landscape panels, small screens).
public enum PageArrangement: String, Sendable {
    case column, row
}

/// Label sizes the layout needs, in points at content scale 1.
public struct LabelMetrics: Equatable, Sendable {
    public var originalWidth: Double
    public var vividWidth: Double
    public var buttonTextWidth: Double
    /// The text size over the standard one (the desktop's text-scaling-factor): the labels'
    /// widths above are measured at it, their line heights grow with it.
    public var textScale: Double

    public init(originalWidth: Double, vividWidth: Double, buttonTextWidth: Double, textScale: Double = 1) {
        self.originalWidth = originalWidth
        self.vividWidth = vividWidth
        self.buttonTextWidth = buttonTextWidth
        self.textScale = textScale
    }

    /// Estimated English widths (what the page assumes without a typesetter).
    public static let estimate = LabelMetrics(originalWidth: 64, vividWidth: 38, buttonTextWidth: 142)
}

/// Where everything sits on the page, as the demo app's ContentView lays it out: a centred
/// column (spacing 24, padding 32) of two groups (headline label, spacing 12, a 260 pt toggle)
/// and the capsule button (callout, padding 16 × 10, icon + text). When the column does not fit
/// the two groups sit side by side; when that does not fit either the content is scaled down
/// (`contentScale` < 1) so nothing is cut. Toggle origins sit on whole device pixels.
public struct PageLayout: Equatable, Sendable {
    // ContentView's numbers (points).
    public static let columnSpacing = 24.0
    public static let padding = 32.0
    public static let groupSpacing = 12.0
    public static let headlineSize = 17.0
    /// Headline and callout line heights (Apple's type ramp: 17/22, 16/21).
    public static let headlineLineHeight = 22.0
    public static let calloutSize = 16.0
    public static let calloutLineHeight = 21.0
    public static let buttonPadding = (h: 16.0, v: 10.0)
    /// The SF Symbol's frame at callout size (19 pt wide with side bearings, the drawn disc
    /// 17 pt) and the label's spacing, which also set the row's height (23.4 pt): measured on
    /// the screenshots (icon ink 15 px, text starts 9 px after it, capsule 38 px tall at 0.876).
    public static let iconSize = 19.0
    public static let iconDisc = 17.0
    public static let iconSpacing = 8.5
    public static let buttonRowHeight = 23.4
    /// SF Pro tracking at the two sizes (points), applied to the open face as em.
    public static let headlineTracking = -0.43
    public static let calloutTracking = -0.31

    public let pixelWidth: Int
    public let pixelHeight: Int
    public let scale: Double
    public let toggleWidth: Double
    public let labels: LabelMetrics
    public let arrangement: PageArrangement
    /// 1 when the content fits; smaller when it had to be scaled down to fit.
    public let contentScale: Double
    /// Device pixels per content point (`scale × contentScale`).
    public var effectiveScale: Double { scale * contentScale }

    /// Label boxes, toggle frames (points, page space), the button capsule.
    public let originalLabelBox: Rect
    public let vividLabelBox: Rect
    public let buttonFrame: Rect
    public let toggleOrigin: (x: Int, y: Int)
    public let vividOrigin: (x: Int, y: Int)

    public static func == (a: PageLayout, b: PageLayout) -> Bool {
        a.pixelWidth == b.pixelWidth && a.pixelHeight == b.pixelHeight && a.scale == b.scale
            && a.toggleWidth == b.toggleWidth && a.labels == b.labels
    }

    public init(pixelWidth: Int, pixelHeight: Int, scale: Double, toggleWidth: Double,
                labels: LabelMetrics = .estimate) {
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
        self.scale = scale
        self.toggleWidth = toggleWidth
        self.labels = labels
        let m = ToggleMetrics(width: toggleWidth)
        let headlineH = Self.headlineLineHeight * labels.textScale
        let groupH = headlineH + Self.groupSpacing + m.height
        let buttonW = Self.buttonPadding.h * 2 + Self.iconSize + Self.iconSpacing + labels.buttonTextWidth
        // The row is as tall as the icon, or the callout's line when larger text needs more.
        let buttonH = max(Self.buttonRowHeight, Self.calloutLineHeight * labels.textScale) + Self.buttonPadding.v * 2
        let groupW = max(toggleWidth, labels.originalWidth, labels.vividWidth)
        let column = (w: max(groupW, buttonW) + 2 * Self.padding,
                      h: 2 * groupH + 2 * Self.columnSpacing + buttonH + 2 * Self.padding)
        let row = (w: max(2 * groupW + Self.columnSpacing, buttonW) + 2 * Self.padding,
                   h: groupH + Self.columnSpacing + buttonH + 2 * Self.padding)
        let pageW = Double(pixelWidth) / scale, pageH = Double(pixelHeight) / scale
        func fit(_ s: (w: Double, h: Double)) -> Double { min(pageW / s.w, pageH / s.h) }
        let arrangement: PageArrangement
        if fit(column) >= 1 { arrangement = .column }
        else if fit(row) >= 1 { arrangement = .row }
        else { arrangement = fit(row) > fit(column) ? .row : .column }
        let size = arrangement == .column ? column : row
        let f = min(1, fit(size))
        self.arrangement = arrangement
        contentScale = f
        // Content origin (points), centred.
        let ox = (pageW - size.w * f) / 2 + Self.padding * f
        let oy = (pageH - size.h * f) / 2 + Self.padding * f
        let innerW = size.w - 2 * Self.padding
        func pt(_ x: Double, _ y: Double) -> Point { Point(ox + x * f, oy + y * f) }
        func device(_ p: Point) -> (x: Int, y: Int) { (Int((p.x * scale).rounded()), Int((p.y * scale).rounded())) }
        let groupX: [Double], groupY: [Double]
        let buttonY: Double
        switch arrangement {
        case .column:
            groupX = [(innerW - toggleWidth) / 2, (innerW - toggleWidth) / 2]
            groupY = [0, groupH + Self.columnSpacing]
            buttonY = 2 * (groupH + Self.columnSpacing)
        case .row:
            let x0 = (innerW - (2 * groupW + Self.columnSpacing)) / 2 + (groupW - toggleWidth) / 2
            groupX = [x0, x0 + groupW + Self.columnSpacing]
            groupY = [0, 0]
            buttonY = groupH + Self.columnSpacing
        }
        func labelBox(_ i: Int, _ w: Double) -> Rect {
            let p = pt(groupX[i] + (toggleWidth - w) / 2, groupY[i])
            return Rect(x: p.x, y: p.y, width: w * f, height: headlineH * f)
        }
        originalLabelBox = labelBox(0, labels.originalWidth)
        vividLabelBox = labelBox(1, labels.vividWidth)
        toggleOrigin = device(pt(groupX[0], groupY[0] + headlineH + Self.groupSpacing))
        vividOrigin = device(pt(groupX[1], groupY[1] + headlineH + Self.groupSpacing))
        let bp = pt((innerW - buttonW) / 2, buttonY)
        buttonFrame = Rect(x: bp.x, y: bp.y, width: buttonW * f, height: buttonH * f)
    }

    public var metrics: ToggleMetrics { ToggleMetrics(width: toggleWidth) }

    /// The headline's and the callout's line heights (points) at the layout's text size.
    public var headlineLineHeight: Double { Self.headlineLineHeight * labels.textScale }
    public var calloutLineHeight: Double { Self.calloutLineHeight * labels.textScale }

    /// A toggle's device origin.
    public func origin(of toggle: ToggleSlot) -> (x: Int, y: Int) { toggle == .vivid ? vividOrigin : toggleOrigin }

    /// A toggle's headline box, in page points.
    public func labelBox(of toggle: ToggleSlot) -> Rect { toggle == .original ? originalLabelBox : vividLabelBox }

    /// A control's frame in page points (toggles: their whole component box).
    public func frame(of control: PageControl) -> Rect {
        guard let toggle = control.toggle else { return buttonFrame }
        let o = origin(of: toggle), m = metrics
        return Rect(x: Double(o.x) / scale, y: Double(o.y) / scale, width: m.width * contentScale, height: m.height * contentScale)
    }

    /// The original toggle's frame in page points.
    public var toggleFrame: Rect { frame(of: .original) }

    /// The original toggle's frame in device pixels (fractional size).
    public var togglePixelFrame: Rect {
        let o = toggleOrigin, m = metrics
        return Rect(x: Double(o.x), y: Double(o.y), width: m.width * effectiveScale, height: m.height * effectiveScale)
    }

    /// The button capsule in device pixels.
    public var buttonPixelFrame: Rect {
        Rect(x: buttonFrame.x * scale, y: buttonFrame.y * scale, width: buttonFrame.width * scale,
             height: buttonFrame.height * scale)
    }

    public var pageBounds: IntRect { IntRect(x: 0, y: 0, width: pixelWidth, height: pixelHeight) }
}
