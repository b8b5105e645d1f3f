import Testing
import Raster
@testable import DarkModeToggle

/// Interaction engine driven like a user would: 60 Hz pointer sequences on a 260 pt toggle.
@Suite struct InteractionTests {
    static let metrics = ToggleMetrics(width: 260)
    static var travel: Double { metrics.translationTravel }
    static var center: Point { metrics.bounds.center }

    func engine(isOn: Bool = false, reduceMotion: Bool = false) -> ToggleInteraction {
        ToggleInteraction(metrics: Self.metrics, isOn: isOn, reduceMotion: reduceMotion)
    }

    func tap(at time: Double, _ p: Point = InteractionTests.center, id: Int = 0) -> [PointerEvent] {
        var s = PointerScript(id: id, at: time, location: p)
        s.down()
        s.up(after: 0.08)
        return s.events
    }

    // MARK: Taps

    @Test func tapTogglesOnceAndSettlesOnTheSpring() {
        var e = engine()
        let commits = e.feed(tap(at: 1))
        #expect(commits.count == 1 && commits[0].value == true)
        #expect(e.isOn && e.commitCount == 1 && !e.isInteracting)
        let tUp = 1.08
        #expect(e.visualState(at: tUp) == ToggleVisualState(appearance: 0, position: 0))
        let mid = e.visualState(at: tUp + 0.1)
        let expected = 1 + Spring.toggle.position(displacement: -1, velocity: 0, time: 0.1)
        #expect(abs(mid.position - expected) < 1e-12)
        #expect(mid.appearance == mid.position)
        #expect(!e.isSettled(at: tUp + 0.3))
        #expect(e.isSettled(at: tUp + 2))
        #expect(e.visualState(at: tUp + 2) == .resting(isOn: true))
    }

    @Test func twoQuickTapsReturnToOffWithContinuousMotion() {
        var e = engine()
        let first = e.feed(tap(at: 0))
        let before = e.visualState(at: 0.25)
        let second = e.feed(tap(at: 0.17))          // second up at 0.25
        #expect(first.map(\.value) == [true])
        #expect(second.map(\.value) == [false])
        #expect(!e.isOn && e.commitCount == 2)
        // No jump at the second commit, and the motion keeps its velocity for a moment.
        #expect(abs(e.visualState(at: 0.25).position - before.position) < 1e-12)
        let after = e.visualState(at: 0.25 + 1e-4).position
        #expect(after > before.position, "still moving towards dark right after the reversal")
        #expect(e.visualState(at: 3) == .resting(isOn: false))
    }

    @Test func releaseOutsideAfterAPressDoesNotToggle() {
        var e = engine()
        var s = PointerScript(at: 0, location: Point(4, 80))
        s.down()
        s.move(dx: -8, over: 0.1)                   // 8 pt: never a drag, ends outside
        s.up()
        #expect(e.feed(s.events).isEmpty)
        #expect(!e.isOn && e.commitCount == 0 && !e.isInteracting)
    }

    @Test func downOutsideIsIgnored() {
        var e = engine()
        var s = PointerScript(at: 0, location: Point(-5, 80))
        s.down()
        #expect(!e.isInteracting)
        s.move(dx: 80, over: 0.3)
        s.up()
        #expect(e.feed(s.events).isEmpty)
        #expect(e.commitCount == 0)
        // Below the bottom edge too.
        #expect(e.feed(tap(at: 2, Point(130, Self.metrics.height + 1))).isEmpty)
    }

    // MARK: Drags

    @Test func slowDragPastHalfCommitsAndFollowsTheFinger() {
        var e = engine()
        var s = PointerScript(at: 0, location: Point(40, 80))
        s.down()
        #expect(e.feed(s.events).isEmpty)
        s.events = []
        let distance = 0.7 * Self.travel + 10
        s.move(dx: distance, over: 1.2)
        var claimX: Double?
        for event in s.events {
            #expect(e.handle(event) == nil)
            if claimX == nil, e.isDragging { claimX = event.location.x }
            if let claimX {
                let expected = min(max((event.location.x - claimX) / Self.travel, 0), 1)
                let v = e.visualState(at: event.timestamp + 0.5)   // time-independent while dragging
                #expect(abs(v.position - expected) < 1e-12)
                #expect(v.appearance == v.position)
            }
        }
        #expect(claimX != nil)
        #expect(!e.isSettled(at: s.time + 5), "a drag owns the toggle")
        s.events = []
        s.rest(0.2)
        s.up()
        let commits = e.feed(s.events)
        #expect(commits.map(\.value) == [true])
        let released = e.visualState(at: s.time)
        #expect(abs(released.position - (distance - (claimX! - 40)) / Self.travel) < 1e-9, "no jump at release")
        #expect(e.visualState(at: s.time + 2) == .resting(isOn: true))
        #expect(e.isSettled(at: s.time + 2))
    }

    @Test func slowDragShortOfHalfSpringsBackWithoutCommit() {
        var e = engine()
        var s = PointerScript(at: 0, location: Point(40, 80))
        s.down()
        s.move(dx: 0.42 * Self.travel + 10, over: 1.0)
        s.rest(0.15)
        s.up()
        #expect(e.feed(s.events).isEmpty)
        #expect(!e.isOn && e.commitCount == 0)
        let atRelease = e.visualState(at: s.time).position
        #expect(abs(atRelease - 0.42) < 0.01)
        let later = e.visualState(at: s.time + 0.15).position
        #expect(later < atRelease && later > 0)
        #expect(e.visualState(at: s.time + 2) == .resting(isOn: false))
    }

    /// The same quarter-travel movement commits as a flick but not as a slow drag that rests.
    @Test(arguments: [(0.1, 0.0, true), (1.0, 0.2, false)])
    func quarterTravelCommitsOnlyAsAFlick(duration: Double, rest: Double, commits: Bool) {
        var e = engine()
        var s = PointerScript(at: 0, location: Point(60, 80))
        s.down()
        s.move(dx: 0.25 * Self.travel + 10, over: duration)
        s.rest(rest)
        s.up()
        let result = e.feed(s.events)
        #expect(result.map(\.value) == (commits ? [true] : []))
        #expect(e.isOn == commits)
        #expect(e.visualState(at: s.time + 3) == .resting(isOn: commits))
    }

    @Test func flickBackFromDarkCommitsLight() {
        var e = engine(isOn: true)
        var s = PointerScript(at: 0, location: Point(200, 60))
        s.down()
        s.move(dx: -(0.25 * Self.travel + 10), over: 0.1)
        s.up()
        #expect(e.feed(s.events).map(\.value) == [false])
    }

    /// A hard flick ending near the end: the presented thumb reaches its end and stays there;
    /// it never passes it (the original clamps `translationX`) and the appearance stays in 0…1.
    @Test func aFlickNeverShowsTheThumbPastItsEnd() {
        var e = engine()
        var s = PointerScript(at: 0, location: Point(30, 80))
        s.down()
        s.move(dx: 0.9 * Self.travel + 10, over: 0.1)  // very fast, ends near the end
        s.up(after: 0.001)
        #expect(e.feed(s.events).map(\.value) == [true])
        var peak = 0.0, previous = e.visualState(at: s.time).position
        for i in 0...400 {
            let v = e.visualState(at: s.time + Double(i) / 200)
            #expect((0...1).contains(v.position) && (0...1).contains(v.appearance))
            #expect(v.position >= previous - 1e-12, "from rest towards 1 the clamped thumb never turns back")
            previous = v.position
            peak = max(peak, v.position)
        }
        #expect(peak == 1)
    }

    /// A tap's spring overshoots internally (about 1 % for damping 0.82); what is presented
    /// is pinned at the end meanwhile instead of passing it.
    @Test func aTapsSpringOvershootIsNotShown() {
        var e = engine()
        _ = e.feed(tap(at: 0))
        let start = 0.08
        var pinned = 0
        for i in 1...200 {
            let t = start + Double(i) / 200
            let unclamped = SpringAnimator(spring: .toggle, from: 0, to: 1, at: start).value(at: t)
            let shown = e.visualState(at: t)
            #expect(shown.position <= 1 && shown.appearance <= 1)
            if unclamped > 1 {
                #expect(shown.position == 1 && shown.appearance == 1)
                pinned += 1
            } else {
                #expect(abs(shown.position - unclamped) < 1e-9)
            }
        }
        #expect(pinned > 0, "the spring does overshoot internally, so the clamp is exercised")
    }

    /// The release spring starts at the finger's position at rest: the thumb does not carry the
    /// finger's momentum, however fast it moved (drag updates are not animated in the original).
    @Test(arguments: [0.05, 0.3, 1.0])
    func releaseStartsFromRest(duration: Double) {
        var e = engine()
        var s = PointerScript(at: 0, location: Point(40, 80))
        s.down()
        s.move(dx: 0.7 * Self.travel + 10, over: duration)
        s.up(after: 0.001)
        _ = e.feed(Array(s.events.dropLast()))
        let held = e.visualState(at: s.time).position   // where the claim left it: past half, short of the end
        #expect(held > 0.5 && held < 0.95)
        #expect(e.feed(Array(s.events.suffix(1))).map(\.value) == [true])
        let rest = SpringAnimator(spring: .toggle, from: e.visualState(at: s.time).position, velocity: 0, to: 1, at: s.time)
        for dt in [0.0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.4] {
            #expect(abs(e.visualState(at: s.time + dt).position - min(rest.value(at: s.time + dt), 1)) < 1e-12, "dt=\(dt)")
        }
        // Its speed just after the release is ~0, not the finger's (0.7 travel / duration).
        let h = 1e-4
        let speed = (e.visualState(at: s.time + h).position - e.visualState(at: s.time).position) / h
        #expect(abs(speed) < 0.05 * 0.7 / duration)
    }

    // MARK: Mirrors of the original's interaction tests

    /// The axis is decided once at the claim from the dominant translation; a tie counts as
    /// vertical (the original's `abs(width) > abs(height)`).
    @Test(arguments: [(12.0, 4.0, true), (4.0, 12.0, false), (8.0, 8.0, false), (-8.0, 8.0, false), (-12.0, -4.0, true)])
    func axisAtTheClaim(dx: Double, dy: Double, horizontal: Bool) {
        var e = engine()
        var s = PointerScript(at: 0, location: Self.center)
        s.down()
        s.move(dx: dx, dy: dy, over: 1.0 / 60)   // one step past the 10 pt threshold
        _ = e.feed(s.events)
        #expect(e.isDragging == horizontal)
        #expect(e.isInteracting == horizontal, "a vertical sequence is dropped at the claim")
        s.rest(0.2)   // lifted at rest: a horizontal drag of 2 pt past the claim stays light
        s.up()
        _ = e.feed(Array(s.events.suffix(1)))
        #expect(e.commitCount == 0)
    }

    /// The release rule at the original's boundaries (travel 100): predicted 49 pt stays light,
    /// 50 goes dark (the midpoint counts as dark), and from dark −51 goes light.
    @Test func predictionBoundaries() {
        #expect(!ToggleInteraction.predictsOn(startProgress: 0, predictedTranslation: 49, travel: 100))
        #expect(ToggleInteraction.predictsOn(startProgress: 0, predictedTranslation: 50, travel: 100))
        #expect(!ToggleInteraction.predictsOn(startProgress: 1, predictedTranslation: -51, travel: 100))
        #expect(ToggleInteraction.predictsOn(startProgress: 1, predictedTranslation: -49, travel: 100))
        // Clamped: a prediction far past either end is that end.
        #expect(ToggleInteraction.predictsOn(startProgress: 0.2, predictedTranslation: 500, travel: 100))
        #expect(!ToggleInteraction.predictsOn(startProgress: 0.8, predictedTranslation: -500, travel: 100))
    }

    /// The same boundaries through the engine: a slow drag that rests before lifting (no
    /// velocity) at 49 % or 51 % of the travel past the claim.
    @Test(arguments: [(false, 0.49, false), (false, 0.51, true), (true, -0.49, true), (true, -0.51, false)])
    func restingReleaseDecidesAtHalf(startOn: Bool, fraction: Double, endsOn: Bool) {
        var e = engine(isOn: startOn)
        var s = PointerScript(at: 0, location: Self.center)
        s.down()
        s.move(dx: fraction.sign == .minus ? -10 : 10, over: 0.1)   // the claim
        s.move(dx: fraction * Self.travel, over: 0.8)
        s.rest(0.2)
        s.up()
        _ = e.feed(s.events)
        #expect(e.isOn == endsOn)
        #expect(e.commitCount == (startOn == endsOn ? 0 : 1))
    }

    /// Drags that end outside the toggle still decide by the drag (the up outside is not a
    /// "release outside" of a press): 0.15 → 1.1 of the width gives dark, 0.15 → −0.1 stays
    /// light, and from dark 0.85 → −0.1 gives light.
    @Test(arguments: [(false, 0.15, 1.1, true), (false, 0.15, -0.1, false), (true, 0.85, -0.1, false)])
    func dragsEndingOutsideTheToggle(startOn: Bool, from: Double, to: Double, endsOn: Bool) {
        let w = Self.metrics.width
        var e = engine(isOn: startOn)
        var s = PointerScript(at: 0, location: Point(from * w, Self.center.y))
        s.down()
        s.move(dx: (to - from) * w, over: 1.0)
        s.rest(0.2)
        s.up()
        #expect(!Self.metrics.bounds.contains(s.location))
        _ = e.feed(s.events)
        #expect(e.isOn == endsOn)
        #expect(e.visualState(at: s.time + 3) == .resting(isOn: endsOn))
    }

    // MARK: Gentle releases spring back (quarter-second projection)

    /// Gentle releases that the original springs back: released at 0.3 moving 90 pt/s, at 0.38
    /// moving 50 pt/s, and a 200 pt/s flick just after the claim, on the demo page's 260 pt toggle
    /// (travel 135.3 pt). Each would commit with the scroll view's 0.499 s projection.
    @Test(arguments: [(0.3, 90.0), (0.38, 50.0)])
    func gentleReleaseSpringsBack(at progress: Double, speed: Double) {
        let m = Self.metrics
        var e = ToggleInteraction(metrics: m, isOn: false)
        var s = PointerScript(at: 0, location: Point(20, 80))
        s.down()
        let distance = 10 + progress * m.translationTravel
        s.move(dx: distance, over: distance / speed)
        s.up(after: 0.001)
        _ = e.feed(Array(s.events.dropLast()))
        #expect(abs(e.visualState(at: s.time).position - progress) < 0.02, "released where the case says")
        _ = e.feed(Array(s.events.suffix(1)))
        #expect(!e.isOn && e.commitCount == 0)
        let quarter = progress + speed * ToggleInteraction.projectionSeconds / m.translationTravel
        let half = progress + speed * 0.499 / m.translationTravel
        #expect(quarter < 0.5 && half >= 0.5, "the case separates the two projections")
        #expect(e.visualState(at: s.time + 3) == .resting(isOn: false))
    }

    @Test func flickJustAfterTheClaimSpringsBack() {
        let m = Self.metrics
        var e = ToggleInteraction(metrics: m, isOn: false)
        var s = PointerScript(at: 0, location: Point(20, 80))
        s.down()
        s.move(dx: 14, over: 14 / 200.0)   // 200 pt/s, 4 pt past the claim
        s.up(after: 0.001)
        _ = e.feed(s.events)
        #expect(!e.isOn && e.commitCount == 0)
        let shown = 4 / m.translationTravel
        #expect(shown + 200 * 0.25 / m.translationTravel < 0.5)
        #expect(shown + 200 * 0.499 / m.translationTravel >= 0.5, "the old projection committed this")
    }

    @Test func verticalDragCancelsAndTheNextTapWorks() {
        var e = engine()
        var s = PointerScript(at: 0, location: Self.center)
        s.down()
        s.move(dx: 6, dy: 12, over: 0.1)             // |dy| > |dx| at the claim
        #expect(e.feed(s.events).isEmpty)
        #expect(!e.isInteracting)
        s.events = []
        s.move(dx: 100, over: 0.2)                   // a late horizontal swing changes nothing
        s.up()
        #expect(e.feed(s.events).isEmpty)
        #expect(e.visualState(at: s.time) == .resting(isOn: false))
        #expect(e.commitCount == 0)
        #expect(e.feed(tap(at: s.time + 0.5)).map(\.value) == [true])
    }

    @Test func grabbingTheThumbMidSpringStartsWhereItIsSeen() {
        var e = engine()
        _ = e.feed(tap(at: 0))                       // off → on, spring from 0.08
        var s = PointerScript(at: 0.15, location: Self.center)
        s.down()
        _ = e.feed(s.events)
        s.events = []
        s.move(dx: 30, over: 0.25)                   // claims at the first frame past 10 pt
        var previousSeen: Double?
        for event in s.events {
            let seenBefore = e.visualState(at: event.timestamp).position
            let wasDragging = e.isDragging
            _ = e.handle(event)
            if !wasDragging && e.isDragging {
                #expect(abs(e.visualState(at: event.timestamp).position - seenBefore) < 1e-12, "no jump at the claim")
                #expect(seenBefore > 0.2 && seenBefore < 1)
            }
            if let previousSeen, wasDragging {
                let step = e.visualState(at: event.timestamp).position - previousSeen
                #expect(abs(step - 30.0 / 15 / Self.travel) < 1e-9, "follows the finger 1:1")
            }
            previousSeen = e.visualState(at: event.timestamp).position
        }
        #expect(e.isDragging)
    }

    @Test func secondFingerIsIgnoredWhileTheFirstOwnsTheToggle() {
        var e = engine()
        var a = PointerScript(id: 0, at: 0, location: Point(40, 80))
        a.down()
        _ = e.feed(a.events)
        // A second finger taps and drags while the first is down: nothing happens.
        var b = PointerScript(id: 1, at: 0.05, location: Point(200, 80))
        b.down()
        b.move(dx: -120, over: 0.1)
        b.up()
        #expect(e.feed(b.events).isEmpty)
        #expect(e.ownerID == 0 && !e.isDragging)
        a.events = []
        a.move(dx: 0.8 * Self.travel + 10, over: 0.6)
        a.rest(0.2)
        a.up()
        #expect(e.feed(a.events).map(\.value) == [true])
        #expect(e.commitCount == 1)
    }

    @Test func cancelEndsTheSequenceWithoutCommit() {
        var e = engine()
        var s = PointerScript(at: 0, location: Point(40, 80))
        s.down()
        s.move(dx: 0.9 * Self.travel + 10, over: 0.5)
        _ = e.feed(s.events)
        let shown = e.visualState(at: s.time).position
        e.cancel(at: s.time)
        #expect(!e.isInteracting && e.commitCount == 0 && !e.isOn)
        #expect(abs(e.visualState(at: s.time).position - shown) < 1e-12)
        s.events = []
        s.up()                                       // the finger's late up is not a tap
        #expect(e.feed(s.events).isEmpty)
        #expect(e.visualState(at: s.time + 2) == .resting(isOn: false))
    }

    @Test func cancelPhaseEventFromTheOwnerCancels() {
        var e = engine()
        var s = PointerScript(at: 0, location: Point(40, 80))
        s.down()
        s.move(dx: 100, over: 0.3)
        s.cancelEvent()
        #expect(e.feed(s.events).isEmpty)
        #expect(!e.isInteracting && !e.isOn)
    }

    @Test func atMostOneCommitPerSequenceEvenWhenTheOwnerRepeatsItsDown() {
        var e = engine()
        var s = PointerScript(at: 0, location: Point(40, 80))
        s.down()
        s.move(dx: 100, over: 0.3)
        s.down()                                     // lost up: the drag ends without commit
        s.up()                                       // …and this is a tap of a new sequence
        #expect(e.feed(s.events).map(\.value) == [true])
        #expect(e.commitCount == 1)
    }

    @Test func mouseFollowsTheSameRules() {
        var e = engine()
        var s = PointerScript(at: 0, location: Self.center)
        s.device = .mouse
        s.down()
        s.up(after: 0.1)
        #expect(e.feed(s.events).map(\.value) == [true])
    }

    // MARK: Keyboard and external activation

    @Test func activationKeysToggleOnce() {
        var e = engine()
        #expect(e.handle(KeyEvent(action: .activate, timestamp: 0)) == true)
        #expect(e.handle(KeyEvent(action: .activate, timestamp: 1)) == false)
        #expect(e.handle(KeyEvent(action: nil, timestamp: 2)) == nil)
        #expect(e.handle(KeyEvent(action: nil, timestamp: 3)) == nil)
        #expect(e.commitCount == 2 && !e.isOn)
    }

    @Test func keyDuringADragEndsItWithoutAPointerCommit() {
        var e = engine()
        var s = PointerScript(at: 0, location: Point(40, 80))
        s.down()
        s.move(dx: 0.9 * Self.travel + 10, over: 0.5)
        _ = e.feed(s.events)
        #expect(e.handle(KeyEvent(action: .activate, timestamp: s.time)) == true)
        s.events = []
        s.move(dx: -100, over: 0.1)
        s.up()
        #expect(e.feed(s.events).isEmpty)
        #expect(e.isOn && e.commitCount == 1)
    }

    @Test func setOnCommitsOnlyAChange() {
        var e = engine()
        #expect(e.setOn(false, at: 0) == nil)
        #expect(e.setOn(true, at: 0) == true)
        #expect(e.setOn(true, at: 1) == nil)
        #expect(e.commitCount == 1 && e.accessibility.summary == "Dark Mode: On")
        #expect(!e.isSettled(at: 0.1) && e.isSettled(at: 2))
    }

    // MARK: Reduce Motion

    @Test func reduceMotionTapJumpsThePositionAndFadesTheAppearance() {
        var e = engine(reduceMotion: true)
        _ = e.feed(tap(at: 0))
        let t = 0.08
        #expect(e.visualState(at: t).position == 1)
        #expect(e.visualState(at: t).appearance == 0)
        #expect(abs(e.visualState(at: t + 0.1).appearance - CubicBezier.easeOut.value(at: 0.5)) < 1e-12)
        #expect(!e.isSettled(at: t + 0.19))
        #expect(e.visualState(at: t + 0.2) == .resting(isOn: true))
        #expect(e.isSettled(at: t + 0.2))
    }

    @Test func reduceMotionDragStillFollowsAndReleaseEasesWithoutOvershoot() {
        var e = engine(reduceMotion: true)
        var s = PointerScript(at: 0, location: Point(30, 80))
        s.down()
        let dx = 0.6 * Self.travel + 10
        s.move(dx: dx, over: 0.1)                    // a fast flick: 6 frames, claimed at the first
        _ = e.feed(s.events)
        let p = e.visualState(at: s.time).position
        #expect(abs(p - (dx - dx / 6) / Self.travel) < 1e-12, "1:1 during the drag")
        s.events = []
        s.up(after: 0.001)
        #expect(e.feed(s.events).map(\.value) == [true])
        let t0 = s.time
        #expect(abs(e.visualState(at: t0 + 0.1).position - (p + (1 - p) * CubicBezier.easeOut.value(at: 0.5))) < 1e-12)
        var previous = p
        for i in 0...100 {
            let v = e.visualState(at: t0 + Double(i) * 0.004).position
            #expect(v >= previous - 1e-12 && v <= 1)
            previous = v
        }
        #expect(e.visualState(at: t0 + 0.2) == .resting(isOn: true))
    }
}
