/// One input and when it happened (CLOCK_MONOTONIC seconds, libinput's and the evdev reader's clock).
struct StampedInput: Sendable, Equatable {
    var time: Double
    var input: DeviceInput
}

/// The queue between an input reader's thread and the frame loop, pure (the reader holds it
/// under its lock). Bounded whatever a device does:
/// - a move that follows a move of the same pointer with nothing between them replaces it
///   (relative moves are added up): a device reporting 10 000 positions a second while the
///   loop draws one frame costs one entry, and the loop sees where the pointer is now;
/// - beyond `capacity` entries nothing more is queued; each device that lost input that way
///   gets one `.syncLost` at the next `take`, which cancels its gestures (its later moves and
///   releases of what was cancelled are ignored downstream), and `dropped` counts the losses.
struct DeviceInputQueue: Sendable {
    static let defaultCapacity = 4096
    let capacity: Int
    private(set) var items: [StampedInput] = []
    private var overflowed: [Int64] = []
    /// Inputs refused since the start because the queue was full.
    private(set) var dropped = 0

    init(capacity: Int = DeviceInputQueue.defaultCapacity) {
        self.capacity = max(1, capacity)
    }

    var isEmpty: Bool { items.isEmpty && overflowed.isEmpty }

    mutating func append(_ new: StampedInput) {
        if let last = items.last, let merged = Self.merge(last, new) {
            items[items.count - 1] = merged
            return
        }
        guard items.count < capacity else {
            dropped += 1
            if let device = new.input.device, !overflowed.contains(device) { overflowed.append(device) }
            return
        }
        items.append(new)
    }

    /// Everything queued, oldest first, then a `.syncLost` for each device that lost input.
    mutating func take(now: Double) -> [StampedInput] {
        var out = items
        out += overflowed.map { StampedInput(time: now, input: .syncLost(device: $0)) }
        items.removeAll(keepingCapacity: true)
        overflowed.removeAll()
        return out
    }

    /// Two moves of one pointer as one, or nil.
    static func merge(_ a: StampedInput, _ b: StampedInput) -> StampedInput? {
        switch (a.input, b.input) {
        case let (.absoluteMotion(d1, _, _), .absoluteMotion(d2, _, _)) where d1 == d2:
            return b
        case let (.relativeMotion(d1, x1, y1), .relativeMotion(d2, x2, y2)) where d1 == d2:
            return StampedInput(time: b.time, input: .relativeMotion(device: d1, dx: x1 + x2, dy: y1 + y2))
        case let (.touch(.move, d1, s1, _, _), .touch(.move, d2, s2, _, _)) where d1 == d2 && s1 == s2:
            return b
        default:
            return nil
        }
    }
}

extension DeviceInput {
    /// The device an input came from.
    var device: Int64? {
        switch self {
        case let .touch(_, device, _, _, _), let .touchEnd(_, device, _), let .absoluteMotion(device, _, _),
             let .relativeMotion(device, _, _), let .button(device, _, _), let .deviceRemoved(device),
             let .syncLost(device):
            return device
        }
    }
}
