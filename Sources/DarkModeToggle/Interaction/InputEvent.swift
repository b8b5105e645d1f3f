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

/// Keys the toggle reacts to, by SDL key name (case-insensitive): "space" and "return"
/// activate the toggle like a Button; everything else is ignored by the toggle.
public struct KeyEvent: Sendable, Equatable {
    public var name: String
    public var timestamp: Double

    public init(name: String, timestamp: Double) {
        self.name = name.lowercased()
        self.timestamp = timestamp
    }

    /// True for the keys that activate a focused button: Space and Return/Enter.
    public var isActivation: Bool {
        switch name {
        case "space", "return", "enter", "keypad enter", "return2": return true
        default: return false
        }
    }
}
