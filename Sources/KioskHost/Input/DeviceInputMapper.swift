import DarkModeToggle
import KioskEngine
import Raster

/// One input from the libinput reader (`LibinputReader`), as plain values. Positions of
/// absolute devices are normalised to the device's axis ranges, 0…1 on each axis, the way
/// libinput's `…_transformed(event, 1)` reports them: libinput has already scaled the raw
/// range (a resistive panel's 200…3900, a digitiser's 0…4095, QEMU's tablet's 0…32767) and
/// applied the device's own calibration (the `LIBINPUT_CALIBRATION_MATRIX` udev property).
public enum DeviceInput: Sendable, Equatable {
    /// A touch point down or moved. `slot` is libinput's seat slot (unique across the seat).
    case touch(phase: PointerPhase, device: Int64, slot: Int64, x: Double, y: Double)
    /// A touch point lifted (libinput gives no position) or cancelled by the kernel.
    case touchEnd(cancelled: Bool, device: Int64, slot: Int64)
    /// An absolute pointer (a tablet, a touch overlay in mouse mode, a KVM console) moved.
    case absoluteMotion(device: Int64, x: Double, y: Double)
    /// A relative mouse moved, in libinput's accelerated units (about one page pixel each).
    case relativeMotion(device: Int64, dx: Double, dy: Double)
    /// A pointer button, by its evdev code (`BTN_LEFT` is 0x110).
    case button(device: Int64, code: UInt32, isDown: Bool)
    /// A device was opened (its kernel name): only `calibrate --device NAME` looks at it.
    case deviceAdded(device: Int64, name: String)
    /// The device was unplugged: its touches and its held button are cancelled.
    case deviceRemoved(device: Int64)
    /// The device's events were lost (the kernel's `SYN_DROPPED`, or the queue to the frame
    /// loop overflowed): as for an unplug, what it had started is cancelled.
    case syncLost(device: Int64)
}

/// Turns device input into the host's raw pointer input (`RawPointerInput`, which
/// `PointerTranslator` maps to page points with the usual touch/mouse rules), pure.
///
/// - Touch: the device-normalised position goes through `calibration` (config
///   `input.calibration`; nil: libinput's own matrix is all) to output-normalised
///   coordinates; the viewport then takes it through `--rotate` to the page, as for SDL's
///   fingers. A touch hides the cursor.
/// - Absolute pointers: the same calibrated position, as a mouse at that output pixel.
/// - Relative mice: the cursor moves in page pixels (a mouse moved right goes right on the
///   page as the viewer sees it, whatever `--rotate` is), clamped to the page; it starts at
///   the page's centre.
/// Pointer devices show the cursor (`cursor`), which the presenter draws.
public struct DeviceInputMapper: Sendable {
    /// `which` of the mouse events made here (any value but SDL's touch-mouse id).
    public static let mouseWhich: UInt32 = 0x6C69
    private static let buttonCodes: [UInt32: UInt8] = [0x110: 1, 0x111: 3, 0x112: 2]

    /// The config's matrix, applied after libinput's; nil: none.
    public var calibration: CalibrationMatrix?
    /// Where the pointer is, in page pixels; nil until a pointer device moves.
    public private(set) var cursor: Point?
    /// True while the cursor should be drawn: after pointer input, until the next touch.
    public private(set) var cursorVisible = false

    private struct TouchKey: Hashable, Sendable { var device: Int64; var slot: Int64 }
    /// The last output-normalised position of each touch point that is down.
    private var touches: [TouchKey: (x: Double, y: Double)] = [:]
    /// The device holding the left button, if any.
    private var leftHeldBy: Int64?
    /// The pointer device that moved or clicked last: the cursor is hidden when it is unplugged.
    private var cursorDevice: Int64?

    public init(calibration: CalibrationMatrix? = nil) {
        self.calibration = calibration
    }

    /// The devices with a touch point down (SDL does not list them among its touch devices).
    public var activeTouchDevices: Set<Int64> { Set(touches.keys.map(\.device)) }

    /// Device-normalised to output-normalised (0…1 across the output as scanned out).
    public func outputNormalised(x: Double, y: Double) -> (x: Double, y: Double) {
        calibration?.apply(x: x, y: y) ?? (x, y)
    }

    /// The raw pointer inputs for one device input (none, one, or one per cancelled touch).
    public mutating func map(_ input: DeviceInput, viewport: Viewport) -> [RawPointerInput] {
        switch input {
        case let .touch(phase, device, slot, x, y):
            let key = TouchKey(device: device, slot: slot)
            if phase != .down, touches[key] == nil { return [] }
            let p = outputNormalised(x: x, y: y)
            touches[key] = p
            if phase == .down { cursorVisible = false }
            return [finger(phase == .down ? .down : .move, key, p)]
        case let .touchEnd(cancelled, device, slot):
            let key = TouchKey(device: device, slot: slot)
            guard let last = touches.removeValue(forKey: key) else { return [] }
            return [finger(cancelled ? .cancel : .up, key, last)]
        case let .absoluteMotion(device, x, y):
            cursorDevice = device
            let n = outputNormalised(x: x, y: y)
            let output = Point(clamp(n.x, 0, 1) * Double(viewport.outputWidth), clamp(n.y, 0, 1) * Double(viewport.outputHeight))
            return [moveCursor(toPage: viewport.pagePixel(fromOutput: output), viewport)]
        case let .relativeMotion(device, dx, dy):
            cursorDevice = device
            let start = cursor ?? Point(Double(viewport.pagePixelWidth) / 2, Double(viewport.pagePixelHeight) / 2)
            return [moveCursor(toPage: Point(start.x + dx, start.y + dy), viewport)]
        case let .button(device, code, isDown):
            guard let button = Self.buttonCodes[code] else { return [] }
            if button == 1 {
                if isDown, leftHeldBy != nil { return [] }
                if !isDown, leftHeldBy != device { return [] }
                leftHeldBy = isDown ? device : nil
            }
            cursorVisible = true
            cursorDevice = device
            let w = windowUnits(viewport)
            return [.mouseButton(isDown: isDown, which: Self.mouseWhich, button: button, x: w.x, y: w.y)]
        case .deviceAdded:
            return []
        case let .deviceRemoved(device), let .syncLost(device):
            var out: [RawPointerInput] = []
            if case .deviceRemoved = input, cursorDevice == device {
                // The mouse or tablet that showed the cursor is gone: so is the cursor.
                cursorVisible = false
                cursorDevice = nil
            }
            for (key, last) in touches where key.device == device {
                touches[key] = nil
                out.append(finger(.cancel, key, last))
            }
            if leftHeldBy == device {
                // The release will never come: the press is cancelled, not released (a
                // release on a toggle would commit a tap or a half drag nobody finished).
                leftHeldBy = nil
                out.append(.mouseCancel(which: Self.mouseWhich))
            }
            return out
        }
    }

    /// The cursor in output pixels, for the presenter; nil while it is hidden.
    public func visibleCursor(viewport: Viewport) -> Point? {
        guard cursorVisible, let cursor else { return nil }
        return viewport.outputPixel(fromPage: cursor)
    }

    // MARK: -

    private func finger(_ phase: PointerPhase, _ key: TouchKey, _ p: (x: Double, y: Double)) -> RawPointerInput {
        .finger(phase: phase, touchID: key.device, fingerID: key.slot, x: Float(p.x), y: Float(p.y))
    }

    private mutating func moveCursor(toPage p: Point, _ viewport: Viewport) -> RawPointerInput {
        // Inside the page's last pixel, so the window position below stays on the output.
        let maxX = Double(max(viewport.pagePixelWidth, 1)) - 0.5, maxY = Double(max(viewport.pagePixelHeight, 1)) - 0.5
        cursor = Point(clamp(p.x, 0, maxX), clamp(p.y, 0, maxY))
        cursorVisible = true
        let w = windowUnits(viewport)
        return .mouseMotion(which: Self.mouseWhich, leftHeld: leftHeldBy != nil, x: w.x, y: w.y)
    }

    /// The cursor in integer window units (what SDL's mouse events carry): the output pixel
    /// it is on, divided by the output pixels per window unit.
    private func windowUnits(_ viewport: Viewport) -> (x: Int32, y: Int32) {
        let page = cursor ?? Point(Double(viewport.pagePixelWidth) / 2, Double(viewport.pagePixelHeight) / 2)
        let output = viewport.outputPixel(fromPage: page)
        let (sx, sy) = viewport.outputPerWindowUnit
        let maxX = Double(max(viewport.windowWidth, 1) - 1), maxY = Double(max(viewport.windowHeight, 1) - 1)
        return (Int32(clamp((output.x / sx).rounded(.down), 0, maxX)), Int32(clamp((output.y / sy).rounded(.down), 0, maxY)))
    }

    private func clamp(_ v: Double, _ lo: Double, _ hi: Double) -> Double { min(max(v, lo), hi) }
}

/// A device's axis as the kernel reports it (`EVIOCGABS`: minimum and maximum), normalised
/// the way libinput does before any matrix: `(value − minimum) / (maximum − minimum + 1)`.
/// libinput does this for the host; tests and the VM scenarios use it to say where a raw
/// device value must land.
public struct AxisRange: Sendable, Equatable {
    public var minimum: Int
    public var maximum: Int

    public init(_ minimum: Int, _ maximum: Int) {
        self.minimum = minimum
        self.maximum = maximum
    }

    public func normalised(_ value: Int) -> Double {
        Double(value - minimum) / Double(maximum - minimum + 1)
    }

    /// The raw value whose normalised position is nearest `fraction`.
    public func value(at fraction: Double) -> Int {
        minimum + Int((fraction * Double(maximum - minimum + 1)).rounded(.down))
    }
}
