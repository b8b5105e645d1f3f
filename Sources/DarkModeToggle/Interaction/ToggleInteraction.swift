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
/// - Drag release runs the finger's velocity on for a quarter second (SwiftUI's
///   `predictedEndTranslation`) to a predicted progress; dark if it is ≥ 0.5. It commits only
///   if that differs from the committed value.
/// - A drag release starts the spring (response 0.35 s, damping 0.82) at the finger's position
///   with zero velocity (drag updates are not animated); a tap, key or external activation
///   retargets the running spring, keeping its position and velocity. Reduce Motion: drag
///   release eases out over 0.2 s; a tap jumps the position and cross-fades the appearance
///   over 0.2 s.
/// - What is presented never leaves 0…1: the spring may overshoot internally, but the thumb
///   stops at its ends (SwiftUI clamps `translationX`) and the appearance is clamped.
public struct ToggleInteraction: Sendable {
    // MARK: Constants

    /// Movement (points) from the down point that claims a drag.
    public static let dragThreshold = 10.0
    /// Seconds by which a release velocity (points/s) is multiplied to give the extra
    /// predicted translation. SwiftUI defines `DragGesture.Value.velocity` as
    /// 4 × (predictedEndLocation − location), i.e. the prediction runs the velocity on for
    /// a quarter second.
    public static let projectionSeconds = 0.25
    /// Release velocities are clamped to ± this (points/s) before projection; it bounds the
    /// effect of a glitchy sample pair (two events a millisecond apart) without limiting a real
    /// flick, since at any toggle width ≥ 44 pt a flick far slower than this already flips.
    public static let maxFlickVelocity = 4000.0

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
    /// of time); otherwise the running animations at `time`. Both are clamped to 0…1: a spring
    /// may overshoot internally, the presented thumb and appearance never do.
    public func visualState(at time: Double) -> ToggleVisualState {
        if case .dragging(let d) = gesture {
            let p = progress(of: d)
            return ToggleVisualState(appearance: p, position: p)
        }
        return ToggleVisualState(appearance: clamp01(appearanceAnimation.value(at: time)),
                                 position: clamp01(positionAnimation.value(at: time)))
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

    /// The release rule: the predicted progress, clamped to 0…1, is on (dark) from 0.5
    /// inclusive. `predictedTranslation` counts from where the drag started its progress.
    public static func predictsOn(startProgress: Double, predictedTranslation: Double, travel: Double) -> Bool {
        clamp01(startProgress + predictedTranslation / travel) >= 0.5
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
        let wantsOn = Self.predictsOn(startProgress: d.startProgress,
                                      predictedTranslation: predictedTranslation - d.translationAtClaim, travel: travel)
        var committed: Bool? = nil
        if wantsOn != isOn {
            isOn = wantsOn
            commitCount += 1
            committed = wantsOn
        }
        // Drag updates are not animated, so the spring starts at the finger, at rest.
        settle(from: progress(of: d), at: t)
        return committed
    }

    /// Ends any owned sequence without committing; a drag's visuals settle back.
    private mutating func endSequenceWithoutCommit(at t: Double) {
        if case .dragging(let d) = gesture {
            settle(from: progress(of: d), at: t)
        }
        gesture = .idle
    }

    /// Both channels from a drag's progress, at rest, to the committed end.
    private mutating func settle(from progress: Double, at t: Double) {
        let end: Double = isOn ? 1 : 0
        if reduceMotion {
            let ease = ProgressAnimation.ease(EaseAnimator(from: progress, to: end, at: t))
            appearanceAnimation = ease
            positionAnimation = ease
        } else {
            let spring = ProgressAnimation.spring(SpringAnimator(spring: spring, from: progress, velocity: 0, to: end, at: t))
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
