import Raster
@testable import DarkModeToggle

/// Builds pointer sequences the way a finger produces them: one move per 60 Hz frame.
struct PointerScript {
    static let frame = 1.0 / 60

    var events: [PointerEvent] = []
    var id: Int
    var time: Double
    var location: Point
    var device: PointerDevice = .touch

    init(id: Int = 0, at time: Double, location: Point) {
        self.id = id
        self.time = time
        self.location = location
    }

    mutating func down(_ p: Point? = nil) {
        if let p { location = p }
        events.append(PointerEvent(id: id, phase: .down, location: location, timestamp: time, device: device))
    }

    /// Moves by (dx, dy) over `duration` seconds at 60 Hz, evenly.
    mutating func move(dx: Double, dy: Double = 0, over duration: Double) {
        let steps = max(1, Int((duration / Self.frame).rounded()))
        let start = location
        for i in 1...steps {
            let f = Double(i) / Double(steps)
            time += Self.frame
            location = Point(start.x + dx * f, start.y + dy * f)
            events.append(PointerEvent(id: id, phase: .move, location: location, timestamp: time, device: device))
        }
    }

    /// Keeps still for `duration` (no events, like a real touch screen).
    mutating func rest(_ duration: Double) { time += duration }

    mutating func up(after delay: Double = frame) {
        time += delay
        events.append(PointerEvent(id: id, phase: .up, location: location, timestamp: time, device: device))
    }

    mutating func cancelEvent(after delay: Double = frame) {
        time += delay
        events.append(PointerEvent(id: id, phase: .cancel, location: location, timestamp: time, device: device))
    }
}

extension ToggleInteraction {
    /// Feeds events in order; returns the commits with their times.
    mutating func feed(_ events: [PointerEvent]) -> [(time: Double, value: Bool)] {
        var commits: [(Double, Bool)] = []
        for e in events {
            if let v = handle(e) { commits.append((e.timestamp, v)) }
        }
        return commits
    }
}
