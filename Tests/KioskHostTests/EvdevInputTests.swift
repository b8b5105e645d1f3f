import DarkModeToggle
import KioskEngine
import Testing
@testable import KioskHost

/// The evdev reader's pure parts (systems without udevd): device classification from
/// capabilities, decoding events into `DeviceInput`, `/dev/input` node names and inotify
/// records, which nodes to open and close, the bounded queue to the frame loop, and the
/// backend choice.
@Suite struct EvdevInputTests {
    typealias C = EvdevCode

    // MARK: Capabilities → kind

    static func caps(keys: [UInt16] = [], rel: [UInt16] = [], abs: [UInt16: AxisRange] = [:], direct: Bool = false) -> EvdevCapabilities {
        EvdevCapabilities(keys: Set(keys), relativeAxes: Set(rel), absoluteAxes: abs, direct: direct)
    }
    static let xy: [UInt16: AxisRange] = [C.absX: AxisRange(0, 4095), C.absY: AxisRange(0, 4095)]
    static let mt: [UInt16: AxisRange] = xy.merging([C.absMTSlot: AxisRange(0, 9), C.absMTTrackingID: AxisRange(0, 65535),
                                                    C.absMTPositionX: AxisRange(0, 4095), C.absMTPositionY: AxisRange(0, 4095)]) { a, _ in a }

    @Test func devicesAreClassifiedAsUdevWould() throws {
        // A capacitive panel (the agent's uinput multitouch device).
        #expect(try EvdevDeviceKind.classify(Self.caps(keys: [C.btnTouch], abs: Self.mt, direct: true)).get() == .touchScreen(multitouch: true))
        // ads7846: BTN_TOUCH + ABS_X/Y, no INPUT_PROP_DIRECT.
        #expect(try EvdevDeviceKind.classify(Self.caps(keys: [C.btnTouch], abs: Self.xy)).get() == .touchScreen(multitouch: false))
        // QEMU's virtio tablet: ABS_X/Y + mouse buttons.
        #expect(try EvdevDeviceKind.classify(Self.caps(keys: [C.btnLeft, C.btnRight, C.btnMiddle], rel: [8], abs: Self.xy)).get() == .absolutePointer)
        // A pen digitiser.
        #expect(try EvdevDeviceKind.classify(Self.caps(keys: [C.btnTouch, C.btnToolPen, C.btnStylus], abs: Self.xy)).get() == .pen)
        // A USB mouse.
        #expect(try EvdevDeviceKind.classify(Self.caps(keys: [C.btnLeft, C.btnRight], rel: [C.relX, C.relY, 8])).get() == .relativeMouse)
        // Left alone: a touchpad, a keyboard, a relative device without buttons.
        let touchpad = EvdevDeviceKind.classify(Self.caps(keys: [C.btnTouch, C.btnToolFinger, C.btnLeft], abs: Self.mt))
        #expect(touchpad == .failure(EvdevRefusal("a touchpad (a finger tool, not INPUT_PROP_DIRECT)")))
        #expect(throws: EvdevRefusal.self) { try EvdevDeviceKind.classify(Self.caps(keys: Array(1...100))).get() }
        #expect(throws: EvdevRefusal.self) { try EvdevDeviceKind.classify(Self.caps(rel: [C.relX, C.relY])).get() }
    }

    /// A broken device: position axes whose range is empty (min == max) or reversed are refused
    /// with a reason naming the axis; nothing would scale from them.
    @Test(arguments: [AxisRange(5, 5), AxisRange(100, -100), AxisRange(0, -1), AxisRange(Int(Int32.max), Int(Int32.min))])
    func emptyOrReversedRangesAreRefused(range: AxisRange) {
        var abs = Self.xy
        abs[C.absY] = range
        let got = EvdevDeviceKind.classify(Self.caps(keys: [C.btnTouch], abs: abs))
        #expect(got == .failure(EvdevRefusal("its axis ABS_Y has the range \(range.minimum)…\(range.maximum), which is empty or reversed")))
        var mtAbs = Self.mt
        mtAbs[C.absMTPositionX] = range
        #expect(throws: EvdevRefusal.self) { try EvdevDeviceKind.classify(Self.caps(keys: [C.btnTouch], abs: mtAbs, direct: true)).get() }
        // The check libinput's devices get too (libinput itself refuses only min == max).
        #expect(EvdevDeviceKind.brokenPositionAxis(Self.caps(abs: mtAbs)) != nil)
        #expect(EvdevDeviceKind.brokenPositionAxis(Self.caps(abs: Self.mt)) == nil)
    }

    // MARK: Decoding

    struct Feed {
        var decoder: EvdevDecoder
        init(_ kind: EvdevDeviceKind, _ range: AxisRange = AxisRange(0, 4095)) {
            decoder = EvdevDecoder(device: 3, kind: kind, x: range, y: range)
        }
        /// Events, then the inputs the frame's SYN_REPORT gives.
        mutating func frame(_ events: [(UInt16, UInt16, Int32)], syn: UInt16 = C.synReport) -> [DeviceInput] {
            var out: [DeviceInput] = []
            for (t, c, v) in events { out += decoder.feed(type: t, code: c, value: v) }
            #expect(out.isEmpty, "nothing before the frame ends")
            return decoder.feed(type: C.evSyn, code: syn, value: 0)
        }
    }
    static func abs(_ code: UInt16, _ v: Int32) -> (UInt16, UInt16, Int32) { (C.evAbs, code, v) }
    static func key(_ code: UInt16, _ v: Int32) -> (UInt16, UInt16, Int32) { (C.evKey, code, v) }
    static func rel(_ code: UInt16, _ v: Int32) -> (UInt16, UInt16, Int32) { (C.evRel, code, v) }

    @Test func multitouchSlotsGoDownMoveAndLift() {
        var f = Feed(.touchScreen(multitouch: true))
        let r = AxisRange(0, 4095)
        #expect(f.frame([Self.abs(C.absMTSlot, 0), Self.abs(C.absMTTrackingID, 7), Self.abs(C.absMTPositionX, 1024),
                         Self.abs(C.absMTPositionY, 2048), Self.key(C.btnTouch, 1)])
                == [.touch(phase: .down, device: 3, slot: 0, x: r.normalised(1024), y: r.normalised(2048))])
        // A second finger in slot 1, the first one moves.
        #expect(f.frame([Self.abs(C.absMTPositionX, 1100), Self.abs(C.absMTSlot, 1), Self.abs(C.absMTTrackingID, 8),
                         Self.abs(C.absMTPositionX, 10), Self.abs(C.absMTPositionY, 20)])
                == [.touch(phase: .move, device: 3, slot: 0, x: r.normalised(1100), y: r.normalised(2048)),
                    .touch(phase: .down, device: 3, slot: 1, x: r.normalised(10), y: r.normalised(20))])
        #expect(f.frame([Self.abs(C.absMTSlot, 0), Self.abs(C.absMTTrackingID, -1)]) == [.touchEnd(cancelled: false, device: 3, slot: 0)])
        // Lifted and touched again within one frame: the old contact ends before the new one begins.
        #expect(f.frame([Self.abs(C.absMTSlot, 1), Self.abs(C.absMTTrackingID, 9), Self.abs(C.absMTPositionX, 30)])
                == [.touchEnd(cancelled: false, device: 3, slot: 1),
                    .touch(phase: .down, device: 3, slot: 1, x: r.normalised(30), y: r.normalised(20))])
        // Slots out of range (a broken or hostile device) are ignored.
        #expect(f.frame([Self.abs(C.absMTSlot, 999), Self.abs(C.absMTTrackingID, 5), Self.abs(C.absMTPositionX, 1)]).isEmpty)
        #expect(f.frame([Self.abs(C.absMTSlot, -4), Self.abs(C.absMTTrackingID, 5)]).isEmpty)
    }

    @Test func singleTouchPanelUsesBTNTouch() {
        var f = Feed(.touchScreen(multitouch: false), AxisRange(200, 3900))
        let r = AxisRange(200, 3900)
        #expect(f.frame([Self.abs(C.absX, 300), Self.abs(C.absY, 3000), Self.key(C.btnTouch, 1)])
                == [.touch(phase: .down, device: 3, slot: 0, x: r.normalised(300), y: r.normalised(3000))])
        #expect(f.frame([Self.abs(C.absX, 400)]) == [.touch(phase: .move, device: 3, slot: 0, x: r.normalised(400), y: r.normalised(3000))])
        #expect(f.frame([Self.key(C.btnTouch, 0)]) == [.touchEnd(cancelled: false, device: 3, slot: 0)])
        #expect(f.frame([Self.abs(C.absX, 500)]).isEmpty, "no touch: a position alone is nothing")
    }

    @Test func absolutePointerMovesThenPresses() {
        var f = Feed(.absolutePointer, AxisRange(0, 32767))
        let r = AxisRange(0, 32767)
        #expect(f.frame([Self.abs(C.absX, 16384), Self.abs(C.absY, 8192), Self.key(C.btnLeft, 1)])
                == [.absoluteMotion(device: 3, x: r.normalised(16384), y: r.normalised(8192)),
                    .button(device: 3, code: 0x110, isDown: true)])
        #expect(f.frame([Self.key(C.btnLeft, 2)]).isEmpty, "auto-repeat is not a press")
        #expect(f.frame([Self.key(C.btnLeft, 0)]) == [.button(device: 3, code: 0x110, isDown: false)])
        var pen = Feed(.pen)
        #expect(pen.frame([Self.abs(C.absX, 0), Self.key(C.btnTouch, 1)])
                == [.absoluteMotion(device: 3, x: 0, y: 0), .button(device: 3, code: 0x110, isDown: true)])
    }

    @Test func relativeMouseSumsAFrame() {
        var f = Feed(.relativeMouse)
        #expect(f.frame([Self.rel(C.relX, 3), Self.rel(C.relX, 4), Self.rel(C.relY, -2), Self.key(C.btnLeft, 1)])
                == [.relativeMotion(device: 3, dx: 7, dy: -2), .button(device: 3, code: 0x110, isDown: true)])
        // Absurd counts stay bounded (no overflow trap).
        var events = [(UInt16, UInt16, Int32)]()
        for _ in 0..<5000 { events.append(Self.rel(C.relX, Int32.max)) }
        #expect(f.frame(events) == [.relativeMotion(device: 3, dx: 1_000_000, dy: 0)])
    }

    /// SYN_DROPPED: the rest of the frame is dropped, the device's gestures are cancelled, and a
    /// contact held through the drop is ignored until it is lifted; a new one works.
    @Test func droppedEventsCancelAndResynchronise() {
        var f = Feed(.touchScreen(multitouch: true))
        _ = f.frame([Self.abs(C.absMTSlot, 0), Self.abs(C.absMTTrackingID, 1), Self.abs(C.absMTPositionX, 100)])
        #expect(f.frame([Self.abs(C.absMTPositionX, 200)], syn: C.synDropped).isEmpty)
        #expect(f.frame([Self.abs(C.absMTPositionX, 300)]) == [.syncLost(device: 3)], "events up to the next report are dropped")
        #expect(f.frame([Self.abs(C.absMTPositionX, 400)]).isEmpty, "the stale contact makes no press")
        #expect(f.frame([Self.abs(C.absMTTrackingID, -1)]).isEmpty, "its end is not reported either")
        #expect(f.frame([Self.abs(C.absMTTrackingID, 2), Self.abs(C.absMTPositionX, 500)]).count == 1)
        var single = Feed(.touchScreen(multitouch: false))
        _ = single.frame([Self.key(C.btnTouch, 1)])
        _ = single.frame([], syn: C.synDropped)
        #expect(single.frame([]) == [.syncLost(device: 3)])
        #expect(single.frame([Self.abs(C.absX, 9)]).isEmpty)
        #expect(single.frame([Self.key(C.btnTouch, 0)]).isEmpty)
        #expect(single.frame([Self.key(C.btnTouch, 1)]).count == 1)
    }

    /// The input core's own release of what an unplugged device held (`input_dev_release_keys`,
    /// a frame ended by SYN_REPORT 1) is not a person's release: it cancels instead.
    @Test func theKernelsUnplugReleaseCancels() {
        var mouse = Feed(.absolutePointer, AxisRange(0, 32767))
        _ = mouse.frame([Self.abs(C.absX, 100), Self.key(C.btnLeft, 1)])
        var out: [DeviceInput] = []
        out += mouse.decoder.feed(type: C.evKey, code: C.btnLeft, value: 0)
        out += mouse.decoder.feed(type: C.evSyn, code: C.synReport, value: 1)
        #expect(out == [.syncLost(device: 3)])
        var panel = Feed(.touchScreen(multitouch: false))
        _ = panel.frame([Self.key(C.btnTouch, 1)])
        _ = panel.decoder.feed(type: C.evKey, code: C.btnTouch, value: 0)
        #expect(panel.decoder.feed(type: C.evSyn, code: C.synReport, value: 1) == [.syncLost(device: 3)])
        // The same release with SYN_REPORT 0 is a release.
        _ = mouse.frame([Self.key(C.btnLeft, 1)])
        #expect(mouse.frame([Self.key(C.btnLeft, 0)]) == [.button(device: 3, code: 0x110, isDown: false)])
    }

    /// libinput's releases before its removal: held `delay`, dropped when their device goes.
    @Test func releasesWaitForTheirDevicesRemoval() {
        var hold = ReleaseHold(delay: 0.05)
        let press = StampedInput(time: 1, input: .button(device: 4, code: 0x110, isDown: true))
        let up = StampedInput(time: 2, input: .button(device: 4, code: 0x110, isDown: false))
        let move = StampedInput(time: 2.01, input: .absoluteMotion(device: 4, x: 0.5, y: 0.5))
        let lift = StampedInput(time: 2.02, input: .touchEnd(cancelled: false, device: 5, slot: 0))
        #expect(hold.add([press], now: 1) == [press] && hold.deadline == nil, "nothing but releases waits")
        #expect(hold.add([up, move], now: 2).isEmpty && hold.deadline == 2.05, "what follows a release waits behind it")
        #expect(hold.due(now: 2.04).isEmpty)
        #expect(hold.add([lift], now: 2.045).isEmpty)
        let gone = StampedInput(time: 2.046, input: .deviceRemoved(device: 4))
        #expect(hold.add([gone], now: 2.046).isEmpty)
        #expect(hold.due(now: 2.05) == [move, lift, gone], "device 4's release dropped, device 5's kept, order kept")
        #expect(hold.deadline == nil && hold.held.isEmpty)
        // A real release: passed on after the delay, unchanged.
        #expect(hold.add([up], now: 3).isEmpty)
        #expect(hold.due(now: 3.05) == [up])
        #expect(ReleaseHold.milliseconds(until: 3.0501, now: 3) == 51 && ReleaseHold.milliseconds(until: 2, now: 3) == 0)
    }

    // MARK: Nodes and inotify

    @Test func eventNodeNames() {
        for name in ["event0", "event12", "event999999"] { #expect(InputNodeName.isEventNode(name), "\(name)") }
        for name in ["event", "mice", "mouse0", "js0", "event1a", "event-1", "event１", "event1234567", "by-id", "xevent1"] {
            #expect(!InputNodeName.isEventNode(name), "\(name)")
        }
    }

    @Test func deviceNamesAreMadeSafeForOneLogLine() {
        #expect(InputNodeName.printable("QEMU Virtio Tablet") == "QEMU Virtio Tablet")
        #expect(InputNodeName.printable("evil\ndarkmode-kiosk: fake line\r\u{1B}[2J\"x\u{2028}") == "evil?darkmode-kiosk: fake line??[2J?x?")
        #expect(InputNodeName.printable(String(repeating: "a", count: 300)).count == 80)
    }

    static func record(_ mask: UInt32, _ name: String, pad: Int = 16) -> [UInt8] {
        var name = Array(name.utf8) + [0]
        while name.count % pad != 0 { name.append(0) }
        func le(_ v: UInt32) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)] }
        return le(1) + le(mask) + le(0) + le(UInt32(name.count)) + name
    }

    @Test func inotifyRecordsParse() {
        let fixed = Self.record(InotifyRecord.create, "event4") + Self.record(InotifyRecord.attrib, "event4")
        let bytes = fixed + Self.record(InotifyRecord.delete, "event5")
        #expect(InotifyRecord.parse(bytes) == [InotifyRecord(mask: InotifyRecord.create, name: "event4"),
                                               InotifyRecord(mask: InotifyRecord.attrib, name: "event4"),
                                               InotifyRecord(mask: InotifyRecord.delete, name: "event5")])
        // A record without a name (len 0: IN_Q_OVERFLOW).
        let overflow: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x40, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        #expect(InotifyRecord.parse(overflow) == [InotifyRecord(mask: InotifyRecord.overflow, name: "")])
        // A truncated tail is ignored, not read past.
        #expect(InotifyRecord.parse(Array(fixed.dropLast(3))) == [InotifyRecord(mask: InotifyRecord.create, name: "event4")])
        #expect(InotifyRecord.parse(Array(bytes.prefix(10))).isEmpty)
    }

    @Test func trackerOpensClosesAndRetries() {
        var t = InputNodeTracker()
        #expect(t.listed(["event0", "event1", "mice", "event2"]) == [.open("event0"), .open("event1"), .open("event2")])
        t.opened("event0", .leftAlone)      // a keyboard
        t.opened("event1", .reading)
        t.opened("event2", .waiting)        // root:root 0600 until mdev sets its group
        // Permissions arrive late: tried again. A keyboard's attributes change nothing.
        #expect(t.handle(InotifyRecord(mask: InotifyRecord.attrib, name: "event2")) == [.open("event2")])
        #expect(t.handle(InotifyRecord(mask: InotifyRecord.attrib, name: "event0")).isEmpty)
        #expect(t.handle(InotifyRecord(mask: InotifyRecord.attrib, name: "event1")).isEmpty)
        t.opened("event2", .reading)
        // Unplugged: closed once, whether the read failed first or not.
        #expect(t.handle(InotifyRecord(mask: InotifyRecord.delete, name: "event1")) == [.close("event1")])
        t.lost("event2")
        #expect(t.handle(InotifyRecord(mask: InotifyRecord.delete, name: "event2")).isEmpty)
        // Plugged in again under the same name, and a name reused while still open.
        #expect(t.handle(InotifyRecord(mask: InotifyRecord.create, name: "event1")) == [.open("event1")])
        t.opened("event1", .reading)
        #expect(t.handle(InotifyRecord(mask: InotifyRecord.create, name: "event1")) == [.close("event1"), .open("event1")])
        #expect(t.handle(InotifyRecord(mask: InotifyRecord.create, name: "by-id")).isEmpty)
        #expect(t.handle(InotifyRecord(mask: InotifyRecord.overflow, name: "")) == [.rescan])
        // A listing after lost events: what vanished is closed, what is new is opened.
        t.opened("event1", .reading)
        #expect(t.listed(["event3"]) == [.close("event1"), .open("event3")])
        #expect(t.reading.isEmpty && t.leftAlone.isEmpty)
    }

    /// 200 plug/unplug cycles leave the tracker as it began.
    @Test func trackerStateDoesNotGrowOverReplugs() {
        var t = InputNodeTracker()
        for i in 0..<200 {
            let name = "event\(4 + i % 5)"
            #expect(t.handle(InotifyRecord(mask: InotifyRecord.create, name: name)) == [.open(name)])
            t.opened(name, .reading)
            #expect(t.handle(InotifyRecord(mask: InotifyRecord.delete, name: name)) == [.close(name)])
        }
        #expect(t == InputNodeTracker())
    }

    // MARK: The queue

    @Test func queueMergesMovesAndStaysBounded() {
        var q = DeviceInputQueue(capacity: 8)
        for i in 0..<10_000 { q.append(StampedInput(time: Double(i), input: .absoluteMotion(device: 1, x: Double(i) / 10_000, y: 0))) }
        q.append(StampedInput(time: 1, input: .button(device: 1, code: 0x110, isDown: true)))
        for _ in 0..<100 { q.append(StampedInput(time: 2, input: .relativeMotion(device: 2, dx: 1, dy: -1))) }
        #expect(q.take(now: 3) == [StampedInput(time: 9999, input: .absoluteMotion(device: 1, x: 0.9999, y: 0)),
                                  StampedInput(time: 1, input: .button(device: 1, code: 0x110, isDown: true)),
                                  StampedInput(time: 2, input: .relativeMotion(device: 2, dx: 100, dy: -100))])
        #expect(q.isEmpty)
        // A device that alternates presses (nothing to merge) fills it: the rest is refused and
        // the device's gestures are cancelled once, after what was kept.
        for i in 0..<1000 { q.append(StampedInput(time: 4, input: .button(device: 5, code: 0x110, isDown: i % 2 == 0))) }
        let got = q.take(now: 5)
        #expect(got.count == 9 && got.last == StampedInput(time: 5, input: .syncLost(device: 5)))
        #expect(q.dropped == 992)
        #expect(q.take(now: 6).isEmpty)
    }

    // MARK: Backend

    @Test func backendFollowsUdev() {
        #expect(InputBackend.choose(.libinput, udevRunning: true) == .libinputUdev)
        #expect(InputBackend.choose(.libinput, udevRunning: false) == .evdev)
        #expect(InputBackend.choose(.evdev, udevRunning: true) == .evdev)
        #expect(InputBackend.choose(.sdl, udevRunning: false) == nil)
        #expect(InputBackend.startLine(.evdev, choice: .libinput, seat: "seat0").contains("udevd is not running (no /run/udev/control)"))
        #expect(InputBackend.startLine(.libinputUdev, choice: .libinput, seat: "seat1").hasSuffix("seat seat1"))
    }
}
