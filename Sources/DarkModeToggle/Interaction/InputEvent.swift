import Raster

/// Where a pointer event came from. Touch and mouse share one model; the device is kept for
/// diagnostics and de-duplication at the host edge, never for gesture rules.
public enum PointerDevice: String, Sendable, Equatable {
    case touch
    case mouse
}

/// One step of a pointer sequence (a finger or the mouse button from press to release).
public enum PointerPhase: String, Sendable, Equatable {
    case down
    case move
    case up
    case cancel
}

/// A pointer event in the coordinate space of whoever receives it (points), stamped with the
/// driver's clock in seconds. The engine never reads a clock of its own.
public struct PointerEvent: Sendable, Equatable {
    public var id: Int
    public var phase: PointerPhase
    public var location: Point
    public var timestamp: Double
    public var device: PointerDevice

    public init(id: Int, phase: PointerPhase, location: Point, timestamp: Double, device: PointerDevice = .touch) {
        self.id = id
        self.phase = phase
        self.location = location
        self.timestamp = timestamp
        self.device = device
    }
}

/// What a key can ask of the toggle. The host maps its keys to these (the kiosk maps Space
/// and Return/Enter to `.activate`, like a focused Button); the component knows no key names.
public enum ToggleKeyAction: Sendable, Equatable {
    /// Flip the committed value once.
    case activate
}

/// A key press the host mapped to a toggle action (`nil`: a key the toggle ignores).
public struct KeyEvent: Sendable, Equatable {
    public var action: ToggleKeyAction?
    public var timestamp: Double

    public init(action: ToggleKeyAction?, timestamp: Double) {
        self.action = action
        self.timestamp = timestamp
    }

    /// True when the key activates the toggle.
    public var isActivation: Bool { action == .activate }
}
