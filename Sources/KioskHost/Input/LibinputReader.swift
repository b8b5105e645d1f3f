import Log
import CLibinput
import KioskEngine
import Threads
#if canImport(Glibc)
import Glibc
#endif

/// Touch screens, tablets and mice through libinput (with its udev backend: devices plugged
/// in later are found by libinput's own udev monitor), on KMS/DRM: beside our DRM presenter
/// (SDL's video then on its evdev/dummy driver) or SDL's kmsdrm driver, whose evdev reader
/// passes absolute pointers through unscaled and knows no calibration. `InputSource` starts it
/// (or `EvdevReader` where udevd does not run).
///
/// All libinput calls after `start` happen on one reader thread, which blocks in `poll` on
/// libinput's fd (no CPU while nothing happens). Each batch of input is queued as plain
/// `DeviceInput` values in the `InputHandOff` and the frame loop is woken with one SDL event
/// (`wake`), which ends the loop's `IdleWait` at once; the loop takes the queue (`take`) and
/// maps it (`DeviceInputMapper`) in the pass that draws its frame.
///
/// SDL's own evdev reader keeps the devices it opened; so that no touch arrives twice, each
/// pointer, touch or tablet device libinput takes is grabbed (`EVIOCGRAB`: its events go to
/// our descriptor only). Keyboards are left to SDL (libinput closes them again). Devices are
/// opened here (`open_restricted`); the user needs the `input` group (or a logind seat).
final class LibinputReader: DeviceInputReader, @unchecked Sendable {
    /// One input and when it happened (CLOCK_MONOTONIC seconds, libinput's clock).
    typealias Stamped = StampedInput

    private let context: OpaquePointer
    private let udev: OpaquePointer
    /// The queue to the frame loop, its wake-up, and the stop.
    private let handOff: InputHandOff
    /// With a config matrix, libinput's own (the udev property's) is set to identity.
    private let replacesCalibration: Bool
    /// Descriptors opened for libinput, by device node (reader thread only, and `start`).
    private var opened: [String: Int32] = [:]
    /// The descriptor of each pointer, touch or tablet device taken, by its id; polled for the
    /// kernel's hang-up of an unplugged device (`ReleaseHold`). Reader thread only.
    private var deviceFDs: [Int64: Int32] = [:]
    /// Descriptors that reported the hang-up already (libinput closes them at its removal).
    private var hungUp: Set<Int32> = []
    private var permissionWarned = false

    private init(context: OpaquePointer, udev: OpaquePointer, handOff: InputHandOff, replacesCalibration: Bool) {
        self.context = context
        self.udev = udev
        self.handOff = handOff
        self.replacesCalibration = replacesCalibration
    }

    /// Opens the seat's input devices and starts the reader thread, or says why not (one line).
    /// `wake` is called from the reader thread when input is queued; it must be thread-safe.
    static func start(seat: String, replacesCalibration: Bool, wake: @escaping @Sendable () -> Bool) -> Result<LibinputReader, LibinputStartError> {
        guard let udev = udev_new() else { return .failure(.init("udev_new failed")) }
        guard let handOff = InputHandOff(wake: wake) else {
            udev_unref(udev)
            return .failure(.init("eventfd failed: \(String(cString: strerror(errno)))"))
        }
        // The context's user data is filled in below, once the reader exists.
        let box = UnsafeMutablePointer<LibinputReader?>.allocate(capacity: 1)
        box.initialize(to: nil)
        guard let context = libinput_udev_create_context(libinputInterface, box, udev) else {
            box.deallocate()
            udev_unref(udev)
            return .failure(.init("libinput_udev_create_context failed"))
        }
        let reader = LibinputReader(context: context, udev: udev, handOff: handOff, replacesCalibration: replacesCalibration)
        box.pointee = reader
        reader.box = box
        libinput_log_set_priority(context, LIBINPUT_LOG_PRIORITY_ERROR)
        guard libinput_udev_assign_seat(context, seat) == 0 else {
            reader.release()
            return .failure(.init("libinput cannot assign seat \(seat)"))
        }
        guard ThreadStart.spawn(name: "libinput", { reader.run() }) else {
            reader.release()
            return .failure(.init("cannot start the input thread"))
        }
        return .success(reader)
    }

    private var box: UnsafeMutablePointer<LibinputReader?>?

    /// Everything queued since the last call, oldest first.
    func take() -> [Stamped] { handOff.take(now: MonotonicClock.seconds()) }

    /// Stops the reader thread and waits for it to release the devices (their grabs end).
    func stop() { handOff.stop() }

    var heldDescriptors: Set<Int32> { handOff.heldDescriptors }

    // MARK: Reader thread

    private func run() {
        let base = [pollfd(fd: libinput_get_fd(context), events: Int16(POLLIN), revents: 0),
                    pollfd(fd: handOff.stopDescriptor, events: Int16(POLLIN), revents: 0)]
        // Releases wait a moment for a removal of their device (`ReleaseHold`): libinput
        // releases what an unplugged device held just before it says the device is gone.
        var hold = ReleaseHold()
        while true {
            // Devices found while the seat was assigned (and any input since) are waiting already.
            if libinput_dispatch(context) != 0 { break }
            var batch: [Stamped] = []
            while let event = libinput_get_event(context) {
                convert(event, into: &batch)
                libinput_event_destroy(event)
            }
            var now = MonotonicClock.seconds()
            let ready = hold.add(batch, now: now) + hold.due(now: now)
            if !ready.isEmpty { enqueue(ready) }
            // libinput's descriptor, the stop eventfd, and each device's descriptor for its
            // hang-up alone (events 0: POLLHUP and POLLERR are always reported).
            let watched = deviceFDs.filter { !hungUp.contains($0.value) }.sorted { $0.key < $1.key }
            var fds = base + watched.map { pollfd(fd: $0.value, events: 0, revents: 0) }
            let n = poll(&fds, nfds_t(fds.count), hold.deadline.map { ReleaseHold.milliseconds(until: $0, now: MonotonicClock.seconds()) } ?? -1)
            if n < 0, errno != EINTR { break }
            if fds[1].revents != 0 { break }
            now = MonotonicClock.seconds()
            var gone: [Stamped] = []
            for (i, device) in watched.enumerated() where fds[i + 2].revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 {
                hungUp.insert(device.value)
                gone.append(Stamped(time: now, input: .deviceRemoved(device: device.key)))
            }
            let early = hold.add(gone, now: now)
            if !early.isEmpty { enqueue(early) }
        }
        release()
        handOff.threadEnded()
    }

    private func enqueue(_ batch: [Stamped]) { handOff.enqueue(batch) }

    /// Closes every device (libinput calls `close_restricted`) and frees the context.
    private func release() {
        libinput_unref(context)
        udev_unref(udev)
        box?.deinitialize(count: 1)
        box?.deallocate()
        box = nil
    }

    private func convert(_ event: OpaquePointer, into batch: inout [Stamped]) {
        let type = libinput_event_get_type(event)
        let device = Self.id(libinput_event_get_device(event))
        switch type {
        case LIBINPUT_EVENT_DEVICE_ADDED:
            if let name = added(libinput_event_get_device(event)) {
                batch.append(Stamped(time: MonotonicClock.seconds(), input: .deviceAdded(device: device, name: name)))
            }
        case LIBINPUT_EVENT_DEVICE_REMOVED:
            deviceFDs[device] = nil
            batch.append(Stamped(time: MonotonicClock.seconds(), input: .deviceRemoved(device: device)))
        case LIBINPUT_EVENT_TOUCH_DOWN, LIBINPUT_EVENT_TOUCH_MOTION:
            let t = libinput_event_get_touch_event(event)
            let input = DeviceInput.touch(phase: type == LIBINPUT_EVENT_TOUCH_DOWN ? .down : .move, device: device,
                                          slot: Int64(libinput_event_touch_get_seat_slot(t)),
                                          x: libinput_event_touch_get_x_transformed(t, 1),
                                          y: libinput_event_touch_get_y_transformed(t, 1))
            batch.append(Stamped(time: Self.seconds(libinput_event_touch_get_time_usec(t)), input: input))
        case LIBINPUT_EVENT_TOUCH_UP, LIBINPUT_EVENT_TOUCH_CANCEL:
            let t = libinput_event_get_touch_event(event)
            let input = DeviceInput.touchEnd(cancelled: type == LIBINPUT_EVENT_TOUCH_CANCEL, device: device,
                                             slot: Int64(libinput_event_touch_get_seat_slot(t)))
            batch.append(Stamped(time: Self.seconds(libinput_event_touch_get_time_usec(t)), input: input))
        case LIBINPUT_EVENT_POINTER_MOTION:
            let p = libinput_event_get_pointer_event(event)
            batch.append(Stamped(time: Self.seconds(libinput_event_pointer_get_time_usec(p)),
                                 input: .relativeMotion(device: device, dx: libinput_event_pointer_get_dx(p),
                                                        dy: libinput_event_pointer_get_dy(p))))
        case LIBINPUT_EVENT_POINTER_MOTION_ABSOLUTE:
            let p = libinput_event_get_pointer_event(event)
            batch.append(Stamped(time: Self.seconds(libinput_event_pointer_get_time_usec(p)),
                                 input: .absoluteMotion(device: device, x: libinput_event_pointer_get_absolute_x_transformed(p, 1),
                                                        y: libinput_event_pointer_get_absolute_y_transformed(p, 1))))
        case LIBINPUT_EVENT_POINTER_BUTTON:
            let p = libinput_event_get_pointer_event(event)
            batch.append(Stamped(time: Self.seconds(libinput_event_pointer_get_time_usec(p)),
                                 input: .button(device: device, code: libinput_event_pointer_get_button(p),
                                                isDown: libinput_event_pointer_get_button_state(p) == LIBINPUT_BUTTON_STATE_PRESSED)))
        case LIBINPUT_EVENT_TABLET_TOOL_AXIS, LIBINPUT_EVENT_TABLET_TOOL_PROXIMITY, LIBINPUT_EVENT_TABLET_TOOL_TIP:
            // A pen digitiser: its position as an absolute pointer, the tip as the left button.
            let tool = libinput_event_get_tablet_tool_event(event)
            let time = Self.seconds(libinput_event_tablet_tool_get_time_usec(tool))
            batch.append(Stamped(time: time, input: .absoluteMotion(device: device, x: libinput_event_tablet_tool_get_x_transformed(tool, 1),
                                                                    y: libinput_event_tablet_tool_get_y_transformed(tool, 1))))
            if type == LIBINPUT_EVENT_TABLET_TOOL_TIP {
                let down = libinput_event_tablet_tool_get_tip_state(tool) == LIBINPUT_TABLET_TOOL_TIP_DOWN
                batch.append(Stamped(time: time, input: .button(device: device, code: CLIBINPUT_BTN_LEFT, isDown: down)))
            }
        default:
            break
        }
    }

    /// A new device: pointer, touch and tablet devices are kept and grabbed from SDL; the rest
    /// (keyboards, switches) are closed again and stay SDL's. The name of a device kept; nil: not kept.
    private func added(_ device: OpaquePointer?) -> String? {
        guard let device else { return nil }
        let touch = libinput_device_has_capability(device, LIBINPUT_DEVICE_CAP_TOUCH) != 0
        let tablet = libinput_device_has_capability(device, LIBINPUT_DEVICE_CAP_TABLET_TOOL) != 0
        let pointer = libinput_device_has_capability(device, LIBINPUT_DEVICE_CAP_POINTER) != 0
        let name = libinput_device_get_name(device).map { InputNodeName.printable(String(cString: $0)) } ?? "?"
        let node = libinput_device_get_udev_device(device).map { d -> String in
            defer { udev_device_unref(d) }
            return udev_device_get_devnode(d).map { String(cString: $0) } ?? "?"
        } ?? "?"
        guard touch || tablet || pointer else {
            libinput_device_config_send_events_set_mode(device, LIBINPUT_CONFIG_SEND_EVENTS_DISABLED.rawValue)
            return nil
        }
        var notes: [String] = []
        if let fd = opened[node], let broken = EvdevDeviceKind.brokenPositionAxis(EvdevReader.capabilities(fd)) {
            // libinput refuses min == max itself, not a reversed range (a broken driver's, or
            // EVIOCSABS): positions would land mirrored or nowhere. Left alone, like a keyboard.
            libinput_device_config_send_events_set_mode(device, LIBINPUT_CONFIG_SEND_EVENTS_DISABLED.rawValue)
            Log.info("input: not reading \"\(name)\" (\(node)): \(broken.reason)")
            return nil
        }
        if let fd = opened[node] {
            deviceFDs[Self.id(device)] = fd
            let error = clibinput_grab(fd, 1)
            if error != 0 { notes.append("not grabbed from SDL (\(String(cString: strerror(error)))): its input may arrive twice") }
        } else {
            notes.append("not grabbed from SDL (libinput opened no \(node) through us): its input may arrive twice")
        }
        if libinput_device_config_calibration_has_matrix(device) != 0 {
            var m = [Float](repeating: 0, count: 6)
            let fromUdev = libinput_device_config_calibration_get_default_matrix(device, &m) != 0
            if replacesCalibration {
                let identity: [Float] = [1, 0, 0, 0, 1, 0]
                _ = libinput_device_config_calibration_set_matrix(device, identity)
                notes.append(fromUdev ? "calibration from the config (replacing LIBINPUT_CALIBRATION_MATRIX)" : "calibration from the config")
            } else if fromUdev {
                notes.append("calibration from LIBINPUT_CALIBRATION_MATRIX " + m.map { "\($0)" }.joined(separator: " "))
            }
        } else if replacesCalibration, touch || tablet {
            notes.append("calibration from the config")
        }
        let kind = touch ? "touch screen" : tablet ? "tablet" : "pointer"
        Log.info("input: \(kind) \"\(name)\" (\(node))" + (notes.isEmpty ? "" : "; " + notes.joined(separator: "; ")))
        return name
    }

    fileprivate func opened(_ path: String, flags: Int32) -> Int32 {
        let fd = clibinput_open(path, flags)
        if fd >= 0 {
            opened[path] = fd
            handOff.holds(fd)
        } else if (fd == -EACCES || fd == -EPERM), !permissionWarned {
            permissionWarned = true
            Log.warning("input: cannot open \(path): permission denied (the user needs the input group, or a seat from logind or seatd); SDL's own input stays in use for it")
        }
        return fd
    }

    fileprivate func closed(_ fd: Int32) {
        if let path = opened.first(where: { $0.value == fd })?.key { opened[path] = nil }
        deviceFDs = deviceFDs.filter { $0.value != fd }
        hungUp.remove(fd)
        handOff.releases(fd)
        close(fd)
    }

    private static func id(_ device: OpaquePointer?) -> Int64 {
        Int64(Int(bitPattern: device.map { UnsafeRawPointer($0) }))
    }

    private static func seconds(_ usec: UInt64) -> Double { Double(usec) / 1_000_000 }
}

/// Why the libinput reader did not start (one phrase).
struct LibinputStartError: Error {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}

/// libinput opens and closes devices through these (the context's user data is the reader's box).
nonisolated(unsafe) private let libinputInterface: UnsafeMutablePointer<libinput_interface> = {
    let p = UnsafeMutablePointer<libinput_interface>.allocate(capacity: 1)
    p.initialize(to: libinput_interface(
        open_restricted: { path, flags, data in
            guard let path, let reader = data?.assumingMemoryBound(to: LibinputReader?.self).pointee else { return -EINVAL }
            return reader.opened(String(cString: path), flags: flags)
        },
        close_restricted: { fd, data in
            if let reader = data?.assumingMemoryBound(to: LibinputReader?.self).pointee { reader.closed(fd) } else { close(fd) }
        }))
    return p
}()
