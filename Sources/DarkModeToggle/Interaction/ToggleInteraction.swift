import Raster

/// The toggle's interaction engine: turns pointer, key and accessibility input into commits
/// of the on/off (dark/light) value, and gives the presented visuals at any time.
///
/// Pure and deterministic: every input carries its own timestamp and `visualState(at:)` takes
/// the time to evaluate; nothing reads a clock. Locations are in the component's own points
/// (0,0 at its top-left); the hit area is the whole `metrics.bounds`.
///
/// Rules (art spec `motion` block):
/// - A down outside the hit area is ignored. While one pointer owns the toggle, other pointer
///   ids are ignored.
/// - A drag is claimed once the pointer has moved `dragThreshold` points from its down point;
///   the axis is decided then, once: horizontal if |dx| > |dy|, otherwise the sequence is
///   dropped (never commits; visuals are untouched).
/// - A release without a claimed drag is a tap if it is inside the hit area: the committed
///   value toggles. Outside, nothing happens.
/// - While dragging, progress = clamp(startProgress + (x − x at claim) / travel, 0, 1) where
///   startProgress is the presented position at the claim; appearance and position follow it.
/// - An up's location counts as movement only if it differs from the last location (so it can
///   still claim a drag, but a repeated location does not read as the finger stopping).
/// - Drag release projects the finger's velocity (iOS deceleration rate 0.998) to a predicted
///   progress; dark if it is ≥ 0.5. It commits only if that differs from the committed value.
/// - After a commit or release the visuals spring (response 0.35 s, damping 0.82) to the
///   committed end from the presented value and velocity. Reduce Motion: drag release eases
///   out over 0.2 s; a tap jumps the position and cross-fades the appearance over 0.2 s.
public struct ToggleInteraction: Sendable {
    // MARK: Constants

    /// Movement (points) from the down point that claims a drag.
    public static let dragThreshold = 10.0
    /// UIScrollView's normal deceleration rate, used to project a release velocity.
    public static let decelerationRate = 0.998
    /// Seconds by which a release velocity (points/s) is multiplied to give the extra
    /// predicted translation: rate / (1 − rate) / 1000 = 0.499 s.
    public static let projectionSeconds = decelerationRate / (1 - decelerationRate) / 1000
    /// Release velocities are clamped to ± this (points/s) before projection; it bounds the
    /// effect of a glitchy sample pair (two events a millisecond apart) without limiting a real
    /// flick, since at any toggle width ≥ 44 pt a flick far slower than this already flips.
    public static let maxFlickVelocity = 4000.0
    /// The release velocity handed to the settle spring is clamped to ± this (progress per
    /// second: a whole travel in a quarter second) so a hard flick lands with a small
    /// overshoot instead of a bounce.
    public static let maxHandoffVelocity = 4.0

    // MARK: State

    /// Component geometry; `metrics.translationTravel` is the drag length for progress 1.
    public var metrics: ToggleMetrics
    /// Reduce Motion; read when an animation starts.
    public var reduceMotion: Bool
    /// The settle spring.
    public var spring: Spring = .toggle

    /// The committed value (true = on = dark).
    public private(set) var isOn: Bool
    /// How many times the committed value has changed.
    public private(set) var commitCount = 0

    private var gesture: Gesture = .idle
    private var tracker = VelocityTracker()
    /// The owning pointer's last known location.
    private var lastLocation = Point.zero
    private var appearanceAnimation: ProgressAnimation
    private var positionAnimation: ProgressAnimation

    private enum Gesture: Equatable, Sendable {
        case idle
        case pressed(Press)
        case dragging(Drag)
    }

    private struct Press: Equatable, Sendable {
        var id: Int
        var down: Point
    }

    private struct Drag: Equatable, Sendable {
        var id: Int
        var downX: Double
        var translationAtClaim: Double
        var startProgress: Double
        var translation: Double
    }

    /// A resting toggle showing the committed value `isOn`.
    public init(metrics: ToggleMetrics, isOn: Bool, reduceMotion: Bool = false) {
        self.metrics = metrics
        self.isOn = isOn
        self.reduceMotion = reduceMotion
        let end: Double = isOn ? 1 : 0
        appearanceAnimation = .still(end)
        positionAnimation = .still(end)
    }

    // MARK: Queries

    /// True while a pointer sequence owns the toggle (pressed or dragging).
    public var isInteracting: Bool { gesture != .idle }

    /// True while a horizontal drag is in progress.
    public var isDragging: Bool {
        if case .dragging = gesture { return true }
        return false
    }

    /// The pointer id that owns the toggle, if any.
    public var ownerID: Int? {
        switch gesture {
        case .idle: return nil
        case .pressed(let p): return p.id
        case .dragging(let d): return d.id
        }
    }

    /// Accessibility semantics of the committed value.
    public var accessibility: AccessibilityState { AccessibilityState(isDark: isOn) }

    /// What to draw at `time`. During a drag both channels are the drag progress (independent
    /// of time); otherwise the running animations at `time`. Appearance is clamped to 0…1; the
    /// position may overshoot slightly while springing.
    public func visualState(at time: Double) -> ToggleVisualState {
        if case .dragging(let d) = gesture {
            let p = progress(of: d)
            return ToggleVisualState(appearance: p, position: p)
        }
        return ToggleVisualState(appearance: clamp01(appearanceAnimation.value(at: time)),
                                 position: positionAnimation.value(at: time))
    }

    /// True when nothing moves at `time`: no pointer owns the toggle and both animations are at
    /// rest. The host may stop drawing frames for the toggle (ambient loops aside).
    public func isSettled(at time: Double) -> Bool {
        gesture == .idle && appearanceAnimation.isSettled(at: time) && positionAnimation.isSettled(at: time)
    }

    // MARK: Input

    /// Feeds one pointer event (location in component points). Returns the new committed value
    /// if this event committed, else nil.
    public mutating func handle(_ event: PointerEvent) -> Bool? {
        let t = event.timestamp, location = event.location
        guard t.isFinite, location.x.isFinite, location.y.isFinite else { return nil }
        switch event.phase {
        case .down:
            if let owner = ownerID {
                guard owner == event.id else { return nil }
                // A second down from the owner means its up was lost: end that sequence.
                endSequenceWithoutCommit(at: t)
            }
            guard metrics.bounds.contains(location) else { return nil }
            gesture = .pressed(Press(id: event.id, down: location))
            tracker.reset()
            tracker.add(time: t, x: location.x)
            lastLocation = location
            return nil
        case .move:
            guard ownerID == event.id else { return nil }
            track(location, at: t)
            return nil
        case .up:
            guard ownerID == event.id else { return nil }
            // An up usually repeats the last move's location; adding it as a sample would read
            // as the finger stopping and damp every flick, so only a new location counts.
            if location != lastLocation { track(location, at: t) }
            switch gesture {
            case .idle:
                return nil   // the up's own movement decided a vertical drag
            case .pressed:
                gesture = .idle
                return metrics.bounds.contains(location) ? toggle(at: t) : nil
            case .dragging(let d):
                gesture = .idle
                return release(d, at: t)
            }
        case .cancel:
            guard ownerID == event.id else { return nil }
            cancel(at: t)
            return nil
        }
    }

    /// Feeds one key event: Space/Return toggle once (ending any pointer sequence without a
    /// commit first). Returns the new committed value if it changed, else nil. The host should
    /// drop key repeats.
    public mutating func handle(_ key: KeyEvent) -> Bool? {
        guard key.isActivation, key.timestamp.isFinite else { return nil }
        endSequenceWithoutCommit(at: key.timestamp)
        return toggle(at: key.timestamp)
    }

    /// Focus loss or a system cancel: the owned sequence ends with no commit and the visuals
    /// settle back to the committed value.
    public mutating func cancel(at time: Double) {
        guard time.isFinite else { return }
        endSequenceWithoutCommit(at: time)
    }

    /// External activation (accessibility, another control): commits `on` if it differs from
    /// the committed value, animating like a tap. Returns the new value if it changed, else nil.
    public mutating func setOn(_ on: Bool, at time: Double) -> Bool? {
        guard on != isOn, time.isFinite else { return nil }
        endSequenceWithoutCommit(at: time)
        return toggle(at: time)
    }

    // MARK: Gesture steps

    private func progress(of d: Drag) -> Double {
        clamp01(unclampedProgress(of: d))
    }

    private func unclampedProgress(of d: Drag) -> Double {
        d.startProgress + (d.translation - d.translationAtClaim) / metrics.translationTravel
    }

    /// A new location of the owning pointer: claims a drag or updates it.
    private mutating func track(_ location: Point, at t: Double) {
        tracker.add(time: t, x: location.x)
        lastLocation = location
        switch gesture {
        case .idle:
            return
        case .pressed(let p):
            let dx = location.x - p.down.x, dy = location.y - p.down.y
            guard (dx * dx + dy * dy).squareRoot() >= Self.dragThreshold else { return }
            if abs(dx) > abs(dy) {
                let start = clamp01(positionAnimation.value(at: t))
                gesture = .dragging(Drag(id: p.id, downX: p.down.x, translationAtClaim: dx,
                                         startProgress: start, translation: dx))
            } else {
                gesture = .idle   // vertical: this sequence is dropped and never commits
            }
        case .dragging(var d):
            d.translation = location.x - d.downX
            gesture = .dragging(d)
        }
    }

    /// Drag release: predicts where the flick would end and commits if that flips the value.
    private mutating func release(_ d: Drag, at t: Double) -> Bool? {
        let travel = metrics.translationTravel
        let velocity = min(max(tracker.velocity(at: t), -Self.maxFlickVelocity), Self.maxFlickVelocity)
        let predictedTranslation = d.translation + velocity * Self.projectionSeconds
        let predicted = clamp01(d.startProgress + (predictedTranslation - d.translationAtClaim) / travel)
        let wantsOn = predicted >= 0.5
        var committed: Bool? = nil
        if wantsOn != isOn {
            isOn = wantsOn
            commitCount += 1
            committed = wantsOn
        }
        let p = progress(of: d)
        var handoff = min(max(velocity / travel, -Self.maxHandoffVelocity), Self.maxHandoffVelocity)
        if (p <= 0 && handoff < 0) || (p >= 1 && handoff > 0) { handoff = 0 }   // pinned at an end
        settle(from: p, velocity: handoff, at: t)
        return committed
    }

    /// Ends any owned sequence without committing; a drag's visuals settle back.
    private mutating func endSequenceWithoutCommit(at t: Double) {
        if case .dragging(let d) = gesture {
            settle(from: progress(of: d), velocity: 0, at: t)
        }
        gesture = .idle
    }

    /// Both channels from a drag's progress to the committed end.
    private mutating func settle(from progress: Double, velocity: Double, at t: Double) {
        let end: Double = isOn ? 1 : 0
        if reduceMotion {
            let ease = ProgressAnimation.ease(EaseAnimator(from: progress, to: end, at: t))
            appearanceAnimation = ease
            positionAnimation = ease
        } else {
            let spring = ProgressAnimation.spring(SpringAnimator(spring: spring, from: progress, velocity: velocity, to: end, at: t))
            appearanceAnimation = spring
            positionAnimation = spring
        }
    }

    /// Tap, key or external activation: flip the committed value and animate to it from what
    /// is presented now.
    private mutating func toggle(at t: Double) -> Bool {
        isOn.toggle()
        commitCount += 1
        let end: Double = isOn ? 1 : 0
        if reduceMotion {
            positionAnimation = .still(end)
            appearanceAnimation = appearanceAnimation.easing(to: end, at: t)
        } else {
            positionAnimation = positionAnimation.springing(to: end, at: t, spring: spring)
            appearanceAnimation = appearanceAnimation.springing(to: end, at: t, spring: spring)
        }
        return isOn
    }
}

@inline(__always) private func clamp01(_ v: Double) -> Double { min(max(v, 0), 1) }
