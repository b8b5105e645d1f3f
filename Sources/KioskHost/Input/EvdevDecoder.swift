/// The evdev codes the kiosk's own reader uses (linux/input-event-codes.h), as plain numbers
/// so that the pure parts below need no C.
enum EvdevCode {
    static let evSyn: UInt16 = 0, evKey: UInt16 = 1, evRel: UInt16 = 2, evAbs: UInt16 = 3
    static let synReport: UInt16 = 0, synDropped: UInt16 = 3
    static let relX: UInt16 = 0, relY: UInt16 = 1
    static let absX: UInt16 = 0, absY: UInt16 = 1
    static let absMTSlot: UInt16 = 0x2F, absMTPositionX: UInt16 = 0x35, absMTPositionY: UInt16 = 0x36
    static let absMTTrackingID: UInt16 = 0x39
    static let btnLeft: UInt16 = 0x110, btnRight: UInt16 = 0x111, btnMiddle: UInt16 = 0x112
    static let btnToolPen: UInt16 = 0x140, btnToolFinger: UInt16 = 0x145, btnTouch: UInt16 = 0x14A
    static let btnStylus: UInt16 = 0x14B
    /// `INPUT_PROP_DIRECT`: the device's surface is the screen (a touch screen, not a touchpad).
    static let propDirect = 1
    /// The highest multitouch slot the reader follows; a device announcing more (or an absurd
    /// `ABS_MT_SLOT` range) has the rest ignored.
    static let maxSlots = 16
}

/// What a device says it can do (its `EVIOCGBIT`/`EVIOCGPROP`/`EVIOCGABS` answers), as values.
struct EvdevCapabilities: Sendable, Equatable {
    var keys: Set<UInt16> = []
    var relativeAxes: Set<UInt16> = []
    /// Each absolute axis with its range (`EVIOCGABS` minimum and maximum).
    var absoluteAxes: [UInt16: AxisRange] = [:]
    /// `INPUT_PROP_DIRECT`.
    var direct = false
}

/// Which kind of pointer a device is, from its capabilities alone: the kiosk's reading of the
/// facts udev's `input_id` builtin classifies by (absolute X/Y or multitouch positions, a
/// touch key, mouse buttons, a pen, a touchpad's finger tool without `INPUT_PROP_DIRECT`),
/// for systems without udevd, where nobody else classifies.
enum EvdevDeviceKind: Sendable, Equatable {
    /// A touch screen: multitouch slots (`ABS_MT_*`, protocol B) or one point (`BTN_TOUCH` + `ABS_X/Y`).
    case touchScreen(multitouch: Bool)
    /// An absolute pointer (QEMU's tablet, a touch overlay in mouse mode): `ABS_X/Y` + buttons.
    case absolutePointer
    /// A pen digitiser: `ABS_X/Y` + a pen tool; the tip (`BTN_TOUCH`) presses.
    case pen
    /// A relative mouse: `REL_X/Y` + `BTN_LEFT`.
    case relativeMouse

    var label: String {
        switch self {
        case .touchScreen(true): return "touch screen (multitouch)"
        case .touchScreen(false): return "touch screen (single touch)"
        case .absolutePointer: return "absolute pointer"
        case .pen: return "pen tablet"
        case .relativeMouse: return "mouse"
        }
    }

    /// The device's kind, or why the reader leaves it alone (one phrase): keyboards, touchpads,
    /// joysticks, and devices whose position axes have an empty or reversed range (minimum ≥
    /// maximum: no position could be scaled from them).
    static func classify(_ c: EvdevCapabilities) -> Result<EvdevDeviceKind, EvdevRefusal> {
        let abs = c.absoluteAxes
        let hasXY = abs[EvdevCode.absX] != nil && abs[EvdevCode.absY] != nil
        let hasMT = abs[EvdevCode.absMTPositionX] != nil && abs[EvdevCode.absMTPositionY] != nil
            && abs[EvdevCode.absMTSlot] != nil && abs[EvdevCode.absMTTrackingID] != nil
        let pen = c.keys.contains(EvdevCode.btnToolPen) || c.keys.contains(EvdevCode.btnStylus)
        let touchpad = c.keys.contains(EvdevCode.btnToolFinger) && !pen && !c.direct
        let button = c.keys.contains(EvdevCode.btnLeft)
        let touch = c.keys.contains(EvdevCode.btnTouch)
        let kind: EvdevDeviceKind
        if hasXY || hasMT {
            if pen, hasXY, touch { kind = .pen }
            else if touchpad { return .failure(.init("a touchpad (a finger tool, not INPUT_PROP_DIRECT)")) }
            else if button, hasXY, !c.direct { kind = .absolutePointer }
            else if hasMT, touch || c.direct { kind = .touchScreen(multitouch: true) }
            else if hasXY, touch { kind = .touchScreen(multitouch: false) }
            else if button, hasXY { kind = .absolutePointer }
            else { return .failure(.init("absolute axes without a touch key or a button")) }
        } else if c.relativeAxes.contains(EvdevCode.relX), c.relativeAxes.contains(EvdevCode.relY), button {
            kind = .relativeMouse
        } else {
            return .failure(.init("not a touch screen, tablet or mouse"))
        }
        if let broken = brokenPositionAxis(c, axes: kind.positionAxes) { return .failure(broken) }
        return .success(kind)
    }

    /// The first position axis (of `axes`, else all of X/Y and the multitouch X/Y the device
    /// has) whose range is empty or reversed (minimum ≥ maximum): nothing scales from it.
    static func brokenPositionAxis(_ c: EvdevCapabilities, axes: [UInt16]? = nil) -> EvdevRefusal? {
        let codes = axes ?? [EvdevCode.absX, EvdevCode.absY, EvdevCode.absMTPositionX, EvdevCode.absMTPositionY]
        for code in codes {
            guard let r = c.absoluteAxes[code], r.minimum >= r.maximum else { continue }
            return EvdevRefusal("its axis \(EvdevCode.axisName(code)) has the range \(r.minimum)…\(r.maximum), which is empty or reversed")
        }
        return nil
    }

    /// The absolute axes the position comes from.
    var positionAxes: [UInt16] {
        switch self {
        case .touchScreen(true): return [EvdevCode.absMTPositionX, EvdevCode.absMTPositionY]
        case .touchScreen(false), .absolutePointer, .pen: return [EvdevCode.absX, EvdevCode.absY]
        case .relativeMouse: return []
        }
    }
}

/// Why the evdev reader does not read a device (one phrase, for its log line).
struct EvdevRefusal: Error, Equatable {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}

extension EvdevCode {
    static func axisName(_ code: UInt16) -> String {
        switch code {
        case absX: return "ABS_X"
        case absY: return "ABS_Y"
        case absMTPositionX: return "ABS_MT_POSITION_X"
        case absMTPositionY: return "ABS_MT_POSITION_Y"
        default: return "ABS_\(code)"
        }
    }
}

/// One device's evdev events → `DeviceInput`, pure. Events are gathered into frames and
/// reported at each `SYN_REPORT`, as the kernel means them: positions normalised to the axis
/// ranges (`AxisRange`, libinput's rule, so both readers land alike), then the buttons.
///
/// - Multitouch (protocol B): a slot whose `ABS_MT_TRACKING_ID` becomes ≥ 0 goes down, a
///   change of its position moves it, −1 lifts it; slots beyond `EvdevCode.maxSlots` or
///   negative are ignored.
/// - Single touch: `BTN_TOUCH` 1/0 is down/up, `ABS_X/Y` moves it (slot 0).
/// - Absolute pointer: a position change is one `absoluteMotion`; `BTN_LEFT/RIGHT/MIDDLE` buttons.
/// - Pen: as an absolute pointer, the tip (`BTN_TOUCH`) as the left button.
/// - Relative mouse: the frame's `REL_X/Y` summed into one `relativeMotion` (counts, unaccelerated).
/// - A frame the input core ends with `SYN_REPORT` 1 (its release of what a device going
///   away still held): its releases become one `.syncLost`, so nothing they held commits.
/// - `SYN_DROPPED` (the kernel's buffer overflowed): everything up to the next `SYN_REPORT` is
///   dropped, then one `.syncLost` cancels what the device had started; touches and presses
///   still held then are ignored until they are lifted (no press is made up mid-gesture).
struct EvdevDecoder: Sendable {
    let device: Int64
    let kind: EvdevDeviceKind
    let x: AxisRange
    let y: AxisRange

    private struct Slot: Sendable {
        var trackingID: Int64 = -1
        var x = 0, y = 0
        /// Reported down (a `.touch(.down)` was sent and no end since).
        var reported = false
        /// Held since before a `SYN_DROPPED`: ignored until its contact ends.
        var stale = false
        var moved = false
        /// The contact was replaced within one frame (up and down again): end the old one first.
        var replaced = false
    }
    private var slots: [Slot] = Array(repeating: Slot(), count: EvdevCode.maxSlots)
    private var slot: Int? = 0
    private var absX = 0, absY = 0, positionChanged = false
    private var touchDown = false, touchReported = false, touchStale = false
    private var dx = 0, dy = 0
    private var buttons: [(code: UInt16, down: Bool)] = []
    private var dropping = false

    init(device: Int64, kind: EvdevDeviceKind, x: AxisRange, y: AxisRange) {
        self.device = device
        self.kind = kind
        self.x = x
        self.y = y
    }

    /// One event (`input_event`'s type, code and value); at `SYN_REPORT` the frame's inputs.
    mutating func feed(type: UInt16, code: UInt16, value: Int32) -> [DeviceInput] {
        if type == EvdevCode.evSyn {
            if code == EvdevCode.synDropped {
                dropping = true
                return []
            }
            guard code == EvdevCode.synReport else { return [] }
            if dropping {
                dropping = false
                return resynchronise()
            }
            let out = report()
            // The input core's own frame (`SYN_REPORT` of value 1): the keys and buttons the
            // device held, released because it is going away (unplugged) or being reset — not
            // a person's release. What they held is cancelled instead.
            guard value != 0, out.contains(where: \.isRelease) else { return out }
            return out.filter { !$0.isRelease } + [.syncLost(device: device)]
        }
        guard !dropping else { return [] }
        switch type {
        case EvdevCode.evAbs: absolute(code, Int(value))
        case EvdevCode.evRel:
            // Summed within ±1 000 000 counts: a broken device's huge values cannot overflow.
            if code == EvdevCode.relX { dx = Self.bounded(dx + Int(value)) }
            if code == EvdevCode.relY { dy = Self.bounded(dy + Int(value)) }
        case EvdevCode.evKey:
            guard value == 0 || value == 1 else { return [] }      // 2: auto-repeat
            key(code, down: value == 1)
        default:
            break
        }
        return []
    }

    private mutating func absolute(_ code: UInt16, _ value: Int) {
        switch code {
        case EvdevCode.absMTSlot:
            slot = (0..<EvdevCode.maxSlots).contains(value) ? value : nil
        case EvdevCode.absMTTrackingID:
            guard let s = slot else { return }
            let id = Int64(value)
            if id < 0 {
                slots[s].trackingID = -1
                slots[s].stale = false
            } else if id != slots[s].trackingID {
                if slots[s].trackingID >= 0, slots[s].reported { slots[s].replaced = true }
                slots[s].trackingID = id
                slots[s].stale = false
            }
        case EvdevCode.absMTPositionX:
            guard let s = slot else { return }
            slots[s].x = value
            slots[s].moved = true
        case EvdevCode.absMTPositionY:
            guard let s = slot else { return }
            slots[s].y = value
            slots[s].moved = true
        case EvdevCode.absX:
            absX = value
            positionChanged = true
        case EvdevCode.absY:
            absY = value
            positionChanged = true
        default:
            break
        }
    }

    private mutating func key(_ code: UInt16, down: Bool) {
        switch kind {
        case .touchScreen(multitouch: false):
            guard code == EvdevCode.btnTouch else { return }
            // A press while one is held: its release was lost in a drop, so this is a new contact.
            if !down || touchDown { touchStale = false }
            touchDown = down
        case .pen:
            if code == EvdevCode.btnTouch { buttons.append((UInt16(EvdevCode.btnLeft), down)) }
            else if code == EvdevCode.btnStylus { buttons.append((EvdevCode.btnRight, down)) }
        case .absolutePointer, .relativeMouse:
            if [EvdevCode.btnLeft, EvdevCode.btnRight, EvdevCode.btnMiddle].contains(code) { buttons.append((code, down)) }
        case .touchScreen(multitouch: true):
            break
        }
    }

    private static func bounded(_ v: Int) -> Int { min(max(v, -1_000_000), 1_000_000) }

    private func normalised(_ vx: Int, _ vy: Int) -> (x: Double, y: Double) {
        (x.normalised(vx), y.normalised(vy))
    }

    private mutating func report() -> [DeviceInput] {
        var out: [DeviceInput] = []
        switch kind {
        case .touchScreen(multitouch: true):
            for i in slots.indices {
                var s = slots[i]
                if s.replaced || (s.reported && s.trackingID < 0) {
                    out.append(.touchEnd(cancelled: false, device: device, slot: Int64(i)))
                    s.reported = false
                }
                if s.trackingID >= 0, !s.stale {
                    let p = normalised(s.x, s.y)
                    if !s.reported {
                        out.append(.touch(phase: .down, device: device, slot: Int64(i), x: p.x, y: p.y))
                        s.reported = true
                    } else if s.moved {
                        out.append(.touch(phase: .move, device: device, slot: Int64(i), x: p.x, y: p.y))
                    }
                }
                s.moved = false
                s.replaced = false
                slots[i] = s
            }
        case .touchScreen(multitouch: false):
            let p = normalised(absX, absY)
            if touchDown, !touchStale {
                if !touchReported {
                    out.append(.touch(phase: .down, device: device, slot: 0, x: p.x, y: p.y))
                    touchReported = true
                } else if positionChanged {
                    out.append(.touch(phase: .move, device: device, slot: 0, x: p.x, y: p.y))
                }
            } else if touchReported, !touchDown {
                out.append(.touchEnd(cancelled: false, device: device, slot: 0))
                touchReported = false
            }
        case .absolutePointer, .pen:
            if positionChanged {
                let p = normalised(absX, absY)
                out.append(.absoluteMotion(device: device, x: p.x, y: p.y))
            }
        case .relativeMouse:
            if dx != 0 || dy != 0 { out.append(.relativeMotion(device: device, dx: Double(dx), dy: Double(dy))) }
        }
        for b in buttons { out.append(.button(device: device, code: UInt32(b.code), isDown: b.down)) }
        buttons.removeAll(keepingCapacity: true)
        positionChanged = false
        dx = 0
        dy = 0
        return out
    }

    /// After `SYN_DROPPED`: what was held is cancelled and ignored until it ends.
    private mutating func resynchronise() -> [DeviceInput] {
        for i in slots.indices {
            slots[i].stale = slots[i].trackingID >= 0
            slots[i].reported = false
            slots[i].moved = false
            slots[i].replaced = false
        }
        touchStale = touchDown
        touchReported = false
        buttons.removeAll(keepingCapacity: true)
        positionChanged = false
        dx = 0
        dy = 0
        return [.syncLost(device: device)]
    }
}
