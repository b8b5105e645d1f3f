import DarkModeToggle
import Raster
import KioskEngine
import KioskSupport

/// An endless, seeded stream of plausible and hostile input for the kiosk page, as trace
/// events in window pixels: taps inside and outside the toggle, horizontal flicks and slow
/// drags, vertical swipes, drags cancelled or released outside, key presses (activating and
/// not), a second finger while the first owns the toggle, stray `up`/`move`/`cancel` events
/// for pointers that never went down, a repeated `down` from the owning pointer (a lost up),
/// and idle pauses of up to `maxIdle` seconds.
///
/// Times strictly increase (at least 1 ms apart), so a commit can be attributed to the one
/// event that caused it. Deterministic for a given seed, toggle frame and settings.
public struct RandomInteraction {
    /// The toggle's frame in window pixels (e.g. `PageLayout.togglePixelFrame`).
    public var toggle: Rect
    /// The page size in pixels; coordinates stay within it (plus a margin for off-page drags).
    public var pageWidth: Double
    public var pageHeight: Double
    /// Longest idle pause between gestures, seconds.
    public var maxIdle: Double
    private var random: SeededRandom
    private var queue: [TraceEvent] = []
    private var queueIndex = 0
    private var clock: Double

    public init(seed: UInt64, toggle: Rect, pageWidth: Double, pageHeight: Double, maxIdle: Double = 3, start: Double = 0) {
        self.toggle = toggle
        self.pageWidth = pageWidth
        self.pageHeight = pageHeight
        self.maxIdle = maxIdle
        random = SeededRandom(seed: seed)
        clock = start
    }

    /// The next event (never nil: the stream is endless).
    public mutating func next() -> TraceEvent {
        if queueIndex >= queue.count {
            queue.removeAll(keepingCapacity: true)
            queueIndex = 0
            while queue.isEmpty { makeGesture() }
        }
        defer { queueIndex += 1 }
        return queue[queueIndex]
    }

    /// The time of the next event without consuming it.
    public mutating func peekTime() -> Double {
        if queueIndex >= queue.count {
            queue.removeAll(keepingCapacity: true)
            queueIndex = 0
            while queue.isEmpty { makeGesture() }
        }
        return queue[queueIndex].time
    }

    /// The first `count` events of a stream.
    public static func trace(count: Int, seed: UInt64, toggle: Rect, pageWidth: Double, pageHeight: Double,
                             maxIdle: Double = 3) -> [TraceEvent] {
        var g = RandomInteraction(seed: seed, toggle: toggle, pageWidth: pageWidth, pageHeight: pageHeight, maxIdle: maxIdle)
        var out: [TraceEvent] = []
        out.reserveCapacity(count)
        for _ in 0..<count { out.append(g.next()) }
        return out
    }

    // MARK: - Gestures

    private mutating func advance(_ lo: Double, _ hi: Double) -> Double {
        clock += max(0.001, random.uniform(lo...hi))
        clock = (clock * 1e6).rounded() / 1e6   // microseconds: exact in a trace line
        return clock
    }

    private mutating func insidePoint() -> Point {
        Point(random.uniform(toggle.minX + 1...toggle.maxX - 1), random.uniform(toggle.minY + 1...toggle.maxY - 1))
    }

    private mutating func outsidePoint() -> Point {
        while true {
            let p = Point(random.uniform(0...pageWidth), random.uniform(0...pageHeight))
            if p.x < toggle.minX - 2 || p.x > toggle.maxX + 2 || p.y < toggle.minY - 2 || p.y > toggle.maxY + 2 { return p }
        }
    }

    private mutating func device() -> PointerDevice { random.chance(0.7) ? .touch : .mouse }

    private mutating func emit(_ id: Int, _ phase: PointerPhase, _ p: Point, _ d: PointerDevice, _ t: Double) {
        let x = (p.x * 1000).rounded() / 1000, y = (p.y * 1000).rounded() / 1000
        queue.append(.pointer(id: id, phase: phase, x: x, y: y, device: d, space: .window, t: t))
    }

    private mutating func makeGesture() {
        // A pause first (most gestures come after a short one, some after a long idle).
        _ = advance(0.05, random.chance(0.2) ? maxIdle : 0.6)
        let id = Int(random.next() % 4)
        let d = device()
        switch random.next() % 100 {
        case 0..<30: tap(id, d, inside: true)
        case 30..<36: tap(id, d, inside: false)
        case 36..<58: drag(id, d, horizontal: true)
        case 58..<64: drag(id, d, horizontal: false)
        case 64..<70: dragThenCancel(id, d)
        case 70..<78: key()
        case 78..<84: secondFinger(id, d)
        case 84..<92: stray(d)
        default: lostUp(id, d)
        }
    }

    private mutating func tap(_ id: Int, _ d: PointerDevice, inside: Bool) {
        let p = inside ? insidePoint() : outsidePoint()
        emit(id, .down, p, d, clock)
        if random.chance(0.3) {   // a little jitter, under the drag threshold
            emit(id, .move, Point(p.x + random.uniform(-3...3), p.y + random.uniform(-3...3)), d, advance(0.008, 0.03))
        }
        emit(id, .up, p, d, advance(0.04, 0.25))
    }

    private mutating func drag(_ id: Int, _ d: PointerDevice, horizontal: Bool) {
        var p = insidePoint()
        emit(id, .down, p, d, clock)
        let steps = 3 + Int(random.next() % 25)
        let total = random.uniform(-1.3...1.3) * toggle.width
        let slow = random.chance(0.4)
        for _ in 0..<steps {
            let step = total / Double(steps)
            if horizontal {
                p = Point(p.x + step, p.y + random.uniform(-2...2))
            } else {
                p = Point(p.x + random.uniform(-2...2), p.y + step)
            }
            p = Point(min(max(p.x, -50), pageWidth + 50), min(max(p.y, -50), pageHeight + 50))
            emit(id, .move, p, d, advance(slow ? 0.02 : 0.008, slow ? 0.06 : 0.02))
        }
        if random.chance(0.3) { _ = advance(0.05, 0.4) }   // hold still before lifting
        emit(id, .up, p, d, advance(0.005, 0.02))
    }

    private mutating func dragThenCancel(_ id: Int, _ d: PointerDevice) {
        var p = insidePoint()
        emit(id, .down, p, d, clock)
        for _ in 0..<(2 + Int(random.next() % 8)) {
            p = Point(p.x + random.uniform(-15...15), p.y + random.uniform(-3...3))
            emit(id, .move, p, d, advance(0.008, 0.03))
        }
        emit(id, .cancel, p, d, advance(0.005, 0.05))
    }

    private mutating func key() {
        let names = ["space", "return", "a", "escape", "tab", "Space"]
        queue.append(.key(name: names[Int(random.next() % UInt64(names.count))].lowercased(), t: clock))
    }

    /// A second pointer goes down, moves and lifts while the first owns the toggle.
    private mutating func secondFinger(_ id: Int, _ d: PointerDevice) {
        let other = id + 1 + Int(random.next() % 3)
        let p = insidePoint()
        emit(id, .down, p, d, clock)
        let q = insidePoint()
        emit(other, .down, q, .touch, advance(0.01, 0.05))
        emit(other, .move, Point(q.x + random.uniform(-80...80), q.y), .touch, advance(0.01, 0.05))
        emit(other, .up, q, .touch, advance(0.01, 0.05))
        if random.chance(0.5) {
            emit(id, .up, p, d, advance(0.01, 0.1))
            emit(other, .up, q, .touch, advance(0.01, 0.05))   // a late, unmatched up
        } else {
            emit(other, .down, q, .touch, advance(0.01, 0.05))
            emit(id, .up, p, d, advance(0.01, 0.1))
            emit(other, .up, q, .touch, advance(0.01, 0.1))
        }
    }

    /// Events for a pointer that never went down: they must be ignored.
    private mutating func stray(_ d: PointerDevice) {
        let id = 10 + Int(random.next() % 5)
        let phases: [PointerPhase] = [.up, .move, .cancel]
        for _ in 0..<(1 + Int(random.next() % 3)) {
            let phase = phases[Int(random.next() % 3)]
            emit(id, phase, random.chance(0.5) ? insidePoint() : outsidePoint(), d, advance(0.005, 0.05))
        }
    }

    /// The owner's up is lost: a second down from the same id starts over.
    private mutating func lostUp(_ id: Int, _ d: PointerDevice) {
        let p = insidePoint()
        emit(id, .down, p, d, clock)
        emit(id, .move, Point(p.x + random.uniform(-40...40), p.y), d, advance(0.01, 0.05))
        let q = insidePoint()
        emit(id, .down, q, d, advance(0.02, 0.2))
        emit(id, .up, q, d, advance(0.04, 0.2))
    }
}
