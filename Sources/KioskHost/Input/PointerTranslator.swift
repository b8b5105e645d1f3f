import DarkModeToggle
import Raster

/// One raw pointer input as SDL reports it, stripped of SDL types so the rules below are pure.
public enum RawPointerInput: Sendable, Equatable {
    /// `SDL_FINGERDOWN/MOTION/UP`: normalised window coordinates (0…1).
    case finger(phase: PointerPhase, touchID: Int64, fingerID: Int64, x: Float, y: Float)
    /// `SDL_MOUSEBUTTONDOWN/UP`: window units.
    case mouseButton(isDown: Bool, which: UInt32, button: UInt8, x: Int32, y: Int32)
    /// `SDL_MOUSEMOTION`: window units; `leftHeld` from the event's button state.
    case mouseMotion(which: UInt32, leftHeld: Bool, x: Int32, y: Int32)
    /// The device holding the left button went away (unplugged): the press ends without a
    /// release, so nothing it started commits (no SDL event: the libinput/evdev readers make it).
    case mouseCancel(which: UInt32)
}

/// Turns raw SDL pointer input into the app's single pointer model (page points, stable ids),
/// with touch and mouse de-duplicated so that each physical action reaches the app once.
///
/// De-duplication rule (exactly one of each synthetic pair gets through):
/// - Mouse events whose `which` is `SDL_TOUCH_MOUSEID` were synthesised by SDL from touch
///   (`SDL_TOUCH_MOUSE_EVENTS`, on by default): always dropped; the finger events carry them.
/// - When `SDL_MOUSE_TOUCH_EVENTS` is on (`mouseSynthesisesTouch`), SDL turns every mouse
///   press/drag into finger events (`touchID == SDL_MOUSE_TOUCHID`): then the real mouse
///   events are dropped and those finger events are used, so the touch path is exercised.
/// - Otherwise real mouse events drive one pointer with id `mouseID` (left button only: down
///   on press, moves only while held, up on release).
///
/// Sanity rules for fingers: non-finite coordinates are rejected (an `up` becomes a `cancel`
/// at the last known place so no gesture hangs); a `down` must lie within 0…1; moves and ups
/// slightly outside the window (within `slack`) are clamped to its edge; moves further out are
/// ignored, and an `up` further out is an `up` at the last known place — a release outside the
/// window follows the same rule as the mouse's (the engine's predicted end decides whether it
/// commits), it never snaps back just for being outside. Moves and ups of unknown fingers (e.g. after a focus-loss cancel) are ignored.
/// At most `maxTouches` fingers are tracked; they get small ids 0, 1, … reused after release.
public struct PointerTranslator: Sendable {
    public static let mouseID = 1000
    public static let maxTouches = 10
    /// How far outside 0…1 a finger move may report before it is treated as garbage.
    public static let slack: Float = 0.5

    /// `SDL_TOUCH_MOUSEID` (passed in to keep this type SDL-free).
    public let touchMouseID: UInt32
    /// The `SDL_MOUSE_TOUCH_EVENTS` hint as SDL applies it.
    public let mouseSynthesisesTouch: Bool

    private struct FingerKey: Hashable, Sendable { var touch: Int64; var finger: Int64 }
    private var fingers: [FingerKey: (id: Int, last: Point)] = [:]
    private var mouseLast: Point?

    public init(touchMouseID: UInt32, mouseSynthesisesTouch: Bool) {
        self.touchMouseID = touchMouseID
        self.mouseSynthesisesTouch = mouseSynthesisesTouch
    }

    /// True while any finger or the left mouse button is down.
    public var hasActivePointers: Bool { !fingers.isEmpty || mouseLast != nil }

    /// The touch devices of the fingers down now (to cancel a gesture whose device is unplugged).
    public var activeTouchIDs: Set<Int64> { Set(fingers.keys.map(\.touch)) }

    /// Forgets every pointer in progress (the host tells the app to cancel them).
    public mutating func reset() {
        fingers.removeAll()
        mouseLast = nil
    }

    /// The app event for one raw input at `timestamp` (seconds), or nil when it is dropped.
    public mutating func translate(_ input: RawPointerInput, timestamp: Double, viewport: Viewport) -> PointerEvent? {
        switch input {
        case let .finger(phase, touchID, fingerID, x, y):
            return finger(phase, FingerKey(touch: touchID, finger: fingerID), x, y, timestamp, viewport)
        case let .mouseButton(isDown, which, button, x, y):
            guard acceptsMouse(which), button == 1 else { return nil }
            let p = viewport.pagePoint(fromWindowX: Int(x), y: Int(y))
            if isDown {
                guard mouseLast == nil else { return nil }
                mouseLast = p
                return PointerEvent(id: Self.mouseID, phase: .down, location: p, timestamp: timestamp, device: .mouse)
            }
            guard mouseLast != nil else { return nil }
            mouseLast = nil
            return PointerEvent(id: Self.mouseID, phase: .up, location: p, timestamp: timestamp, device: .mouse)
        case let .mouseMotion(which, leftHeld, x, y):
            guard acceptsMouse(which), mouseLast != nil else { return nil }
            let p = viewport.pagePoint(fromWindowX: Int(x), y: Int(y))
            if !leftHeld {
                // The release was lost (e.g. outside the window without capture): end here.
                mouseLast = nil
                return PointerEvent(id: Self.mouseID, phase: .up, location: p, timestamp: timestamp, device: .mouse)
            }
            mouseLast = p
            return PointerEvent(id: Self.mouseID, phase: .move, location: p, timestamp: timestamp, device: .mouse)
        case let .mouseCancel(which):
            guard acceptsMouse(which), let last = mouseLast else { return nil }
            mouseLast = nil
            return PointerEvent(id: Self.mouseID, phase: .cancel, location: last, timestamp: timestamp, device: .mouse)
        }
    }

    private func acceptsMouse(_ which: UInt32) -> Bool {
        which != touchMouseID && !mouseSynthesisesTouch
    }

    private mutating func finger(_ phase: PointerPhase, _ key: FingerKey, _ x: Float, _ y: Float,
                                 _ t: Double, _ viewport: Viewport) -> PointerEvent? {
        let finite = x.isFinite && y.isFinite
        switch phase {
        case .down:
            guard finite, (0...1).contains(x), (0...1).contains(y), fingers[key] == nil,
                  fingers.count < Self.maxTouches else { return nil }
            let used = Set(fingers.values.map(\.id))
            let id = (0..<Self.maxTouches).first { !used.contains($0) } ?? 0
            let p = viewport.pagePoint(fromNormalizedX: Double(x), y: Double(y))
            fingers[key] = (id, p)
            return PointerEvent(id: id, phase: .down, location: p, timestamp: t, device: .touch)
        case .move, .up, .cancel:
            guard let known = fingers[key] else { return nil }
            guard finite else {
                if phase == .move { return nil }
                fingers[key] = nil
                return PointerEvent(id: known.id, phase: .cancel, location: known.last, timestamp: t, device: .touch)
            }
            let range = (-Self.slack)...(1 + Self.slack)
            guard range.contains(x), range.contains(y) else {
                if phase == .move { return nil }
                fingers[key] = nil
                return PointerEvent(id: known.id, phase: phase, location: known.last, timestamp: t, device: .touch)
            }
            let p = viewport.pagePoint(fromNormalizedX: Double(min(max(x, 0), 1)), y: Double(min(max(y, 0), 1)))
            if phase == .move {
                fingers[key] = (known.id, p)
            } else {
                fingers[key] = nil
            }
            return PointerEvent(id: known.id, phase: phase, location: p, timestamp: t, device: .touch)
        }
    }
}
