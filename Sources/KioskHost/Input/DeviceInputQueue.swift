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
             let .syncLost(device), let .deviceAdded(device, _):
            return device
        }
    }
}

/// Releases held back for a moment, pure (`LibinputReader`'s): what an unplug looks like from
/// user space is a release first and the removal just after. The kernel releases every key and
/// button a device still holds when it goes (`input_dev_release_keys`: a frame ended by a
/// `SYN_REPORT` of value 1, which libinput does not pass on), then marks the node dead (its
/// descriptor reports POLLHUP, reads fail with ENODEV); libinput's `DEVICE_REMOVED` comes only
/// with udev's remove event, later still. Passed on at once, such a release of a press on a
/// toggle is a tap, of a drag past half way a commit. So a release (a button up, a touch up)
/// and whatever follows it wait `delay` seconds; a removal of the same device within that time
/// (the reader polls each device's descriptor for the hang-up) drops its held releases and
/// cancels the gestures instead. A real release reaches the app `delay` later; nothing else is
/// delayed while no release waits.
struct ReleaseHold: Sendable {
    /// 50 ms: three frames at 60 Hz. The kernel's release and the hang-up come from one call
    /// path (`input_unregister_device`), microseconds apart on hardware; in the TCG guest of
    /// Tests/vm a Python reader saw them 50 ms apart.
    static let defaultDelay = 0.05
    let delay: Double
    private(set) var held: [StampedInput] = []
    /// When the held inputs are passed on (monotonic seconds), nil while none wait.
    private(set) var deadline: Double?

    init(delay: Double = ReleaseHold.defaultDelay) {
        self.delay = delay
    }

    /// A batch read now: what may be passed on at once.
    mutating func add(_ batch: [StampedInput], now: Double) -> [StampedInput] {
        var out: [StampedInput] = []
        for item in batch {
            if case let .deviceRemoved(device) = item.input {
                held.removeAll { $0.input.isRelease && $0.input.device == device }
            }
            if held.isEmpty, !item.input.isRelease {
                out.append(item)
            } else {
                if held.isEmpty { deadline = now + delay }
                held.append(item)
            }
        }
        if held.isEmpty { deadline = nil }
        return out
    }

    /// A poll timeout (ms, rounded up) until `deadline`.
    static func milliseconds(until deadline: Double, now: Double) -> Int32 {
        Int32(min(max(0, ((deadline - now) * 1000).rounded(.up)), 60_000))
    }

    /// At or after `deadline`: everything held, in order.
    mutating func due(now: Double) -> [StampedInput] {
        guard let d = deadline, now >= d else { return [] }
        defer { held.removeAll(); deadline = nil }
        return held
    }
}

extension DeviceInput {
    /// A button going up or a touch lifted (not cancelled): what an unplug is preceded by.
    var isRelease: Bool {
        switch self {
        case .button(_, _, false), .touchEnd(false, _, _): return true
        default: return false
        }
    }
}
