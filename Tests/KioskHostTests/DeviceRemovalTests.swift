import Appearance
import DarkModeToggle
import KioskEngine
import Raster
import Testing
@testable import KioskHost

/// A device unplugged in the middle of a gesture (`LIBINPUT_EVENT_DEVICE_REMOVED`, or the evdev
/// reader's node gone): what it started is cancelled in the engine, never released — a press
/// on a toggle does not become a tap, a half drag does not commit, no toggle stays pressed.
/// Through the chain the frame loop runs: `DeviceInputMapper` → `PointerTranslator` → `KioskApp`.
@Suite struct DeviceRemovalTests {
    /// Page = output = window, 900×640 at scale 1.
    static let viewport = Viewport(outputWidth: 900, outputHeight: 640, windowWidth: 900, windowHeight: 640,
                                   rotation: .none, scale: 1)

    final class Loop {
        var mapper = DeviceInputMapper()
        var translator = PointerTranslator(touchMouseID: UInt32.max, mouseSynthesisesTouch: false)
        let app = KioskApp(options: KioskOptions(pixelWidth: 900, pixelHeight: 640, scale: 1, reduceMotion: true), preference: .light)
        var commits: [KioskOutput] = []
        var time = 1.0

        /// One device input at `time` (then 20 ms later): what the frame loop's `drainInput` does.
        func send(_ input: DeviceInput) {
            for raw in mapper.map(input, viewport: DeviceRemovalTests.viewport) {
                if let e = translator.translate(raw, timestamp: time, viewport: DeviceRemovalTests.viewport),
                   let c = app.handle(e) { commits.append(c) }
            }
            time += 0.02
        }

        /// A page point as the device-normalised position of a panel spanning the output.
        func normalised(_ p: Point) -> (x: Double, y: Double) { (p.x / 900, p.y / 640) }

        /// The Original toggle's point at a fraction of its width, on its middle row.
        func toggle(at fraction: Double) -> (x: Double, y: Double) {
            let f = app.frame(of: .original)
            return normalised(Point(f.minX + f.width * fraction, f.minY + f.height / 2))
        }

        /// Long enough for any spring to settle.
        func settle() { time += 5 }
    }

    @Test func mousePressOnAToggleIsCancelledNotClicked() {
        let loop = Loop()
        let p = loop.toggle(at: 0.5)
        loop.send(.absoluteMotion(device: 6, x: p.x, y: p.y))
        loop.send(.button(device: 6, code: 0x110, isDown: true))
        #expect(!loop.app.isSettled(at: loop.time), "the press owns the toggle")
        loop.send(.deviceRemoved(device: 6))
        loop.settle()
        #expect(loop.commits.isEmpty, "a press ended by an unplug must not commit: \(loop.commits)")
        #expect(!loop.app.isDarkMode)
        #expect(loop.app.isSettled(at: loop.time), "no toggle left pressed")
        #expect(!loop.translator.hasActivePointers, "the host loop would keep drawing frames for a held pointer")
        #expect(loop.mapper.visibleCursor(viewport: Self.viewport) == nil, "the unplugged tablet's cursor is hidden")
        // The same press and a release is a click: the test above could have failed.
        loop.send(.absoluteMotion(device: 7, x: p.x, y: p.y))
        loop.send(.button(device: 7, code: 0x110, isDown: true))
        loop.send(.button(device: 7, code: 0x110, isDown: false))
        #expect(loop.commits == [.preferenceChanged(.dark)])
    }

    @Test func halfTouchDragIsCancelledNotCommitted() {
        let loop = Loop()
        let path = stride(from: 0.2, through: 0.75, by: 0.05).map { loop.toggle(at: $0) }
        loop.send(.touch(phase: .down, device: 4, slot: 0, x: path[0].x, y: path[0].y))
        for q in path.dropFirst() { loop.send(.touch(phase: .move, device: 4, slot: 0, x: q.x, y: q.y)) }
        #expect(loop.app.visualState(of: .original, at: loop.time).position > 0.5, "the knob is past half way")
        loop.send(.deviceRemoved(device: 4))
        loop.settle()
        #expect(loop.commits.isEmpty, "\(loop.commits)")
        #expect(!loop.app.isDarkMode && loop.app.isSettled(at: loop.time))
        #expect(loop.app.visualState(of: .original, at: loop.time).position == 0, "the knob springs back")
        #expect(!loop.translator.hasActivePointers && loop.mapper.activeTouchDevices.isEmpty)
        // The same drag lifted commits.
        loop.send(.touch(phase: .down, device: 5, slot: 0, x: path[0].x, y: path[0].y))
        for q in path.dropFirst() { loop.send(.touch(phase: .move, device: 5, slot: 0, x: q.x, y: q.y)) }
        loop.send(.touchEnd(cancelled: false, device: 5, slot: 0))
        #expect(loop.commits == [.preferenceChanged(.dark)])
    }

    @Test func halfMouseDragIsCancelledNotCommitted() {
        let loop = Loop()
        let path = stride(from: 0.2, through: 0.75, by: 0.05).map { loop.toggle(at: $0) }
        loop.send(.absoluteMotion(device: 9, x: path[0].x, y: path[0].y))
        loop.send(.button(device: 9, code: 0x110, isDown: true))
        for q in path.dropFirst() { loop.send(.absoluteMotion(device: 9, x: q.x, y: q.y)) }
        #expect(loop.app.visualState(of: .original, at: loop.time).position > 0.5)
        loop.send(.deviceRemoved(device: 9))
        loop.settle()
        #expect(loop.commits.isEmpty && !loop.app.isDarkMode && loop.app.isSettled(at: loop.time))
        // Another device's button release afterwards ends nothing and commits nothing.
        loop.send(.button(device: 10, code: 0x110, isDown: false))
        #expect(loop.commits.isEmpty)
    }

    /// The cursor stays while another pointer device showed it last; a lost sync (SYN_DROPPED,
    /// a full queue) cancels the gestures but the device is still there, and so is its cursor.
    @Test func cursorHidesWithItsOwnDeviceOnly() {
        let loop = Loop()
        loop.send(.relativeMotion(device: 1, dx: 5, dy: 5))
        loop.send(.absoluteMotion(device: 2, x: 0.5, y: 0.5))
        loop.send(.deviceRemoved(device: 1))
        #expect(loop.mapper.visibleCursor(viewport: Self.viewport) != nil)
        loop.send(.syncLost(device: 2))
        #expect(loop.mapper.visibleCursor(viewport: Self.viewport) != nil)
        loop.send(.deviceRemoved(device: 2))
        #expect(loop.mapper.visibleCursor(viewport: Self.viewport) == nil)
    }

    /// Only the unplugged device's gestures end: another panel's finger keeps its drag.
    @Test func otherDevicesKeepTheirGestures() {
        let loop = Loop()
        let path = stride(from: 0.2, through: 0.75, by: 0.05).map { loop.toggle(at: $0) }
        loop.send(.absoluteMotion(device: 2, x: 0.01, y: 0.01))
        loop.send(.button(device: 2, code: 0x110, isDown: true))        // a press on empty page
        loop.send(.touch(phase: .down, device: 3, slot: 0, x: path[0].x, y: path[0].y))
        for q in path.dropFirst() { loop.send(.touch(phase: .move, device: 3, slot: 0, x: q.x, y: q.y)) }
        loop.send(.deviceRemoved(device: 2))
        #expect(loop.translator.activeTouchIDs == [3])
        loop.send(.touchEnd(cancelled: false, device: 3, slot: 0))
        #expect(loop.commits == [.preferenceChanged(.dark)])
    }

    /// The same device plugged in and out many times leaves nothing behind in the mapper.
    @Test func repeatedReplugLeavesNoState() {
        let loop = Loop()
        for i in 0..<200 {
            let id = Int64(100 + i % 3)
            loop.send(.touch(phase: .down, device: id, slot: Int64(i), x: 0.01, y: 0.01))
            loop.send(.button(device: id, code: 0x110, isDown: true))
            loop.send(.deviceRemoved(device: id))
        }
        #expect(loop.mapper.activeTouchDevices.isEmpty && !loop.translator.hasActivePointers)
        #expect(loop.commits.isEmpty)
    }
}
