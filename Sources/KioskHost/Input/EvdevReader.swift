import Log
import CLibinput
import Threads
#if canImport(Glibc)
import Glibc
#endif

/// What the frame loop needs of an input reader thread (`LibinputReader`, `EvdevReader`).
protocol DeviceInputReader: AnyObject, Sendable {
    /// Everything queued since the last call, oldest first.
    func take() -> [StampedInput]
    /// Stops the thread and waits for it to release the devices (their grabs end).
    func stop()
    /// The device descriptors the reader has open (thread-safe).
    var heldDescriptors: Set<Int32> { get }
}

/// Touch screens, tablets and mice read straight from `/dev/input/event*`, for systems without
/// udevd (Alpine's mdev, Buildroot, a busybox initramfs), where libinput finds no device: its
/// udev backend has no database to enumerate, and its path backend refuses every node that
/// udev has not initialised ("udev device never initialized", tried in the QEMU guest).
///
/// One thread polls the devices, an inotify watch on `/dev/input` (IN_CREATE, IN_ATTRIB for a
/// group or mode set after the node appears, IN_DELETE, moves) and a stop eventfd; it blocks
/// in `poll` (no CPU while nothing happens). Each node is classified from its capabilities
/// (`EvdevDeviceKind`), decoded by `EvdevDecoder` into the same `DeviceInput` values as
/// libinput's, grabbed from SDL's evdev reader (`EVIOCGRAB`) and timestamped on
/// CLOCK_MONOTONIC; which nodes to open and close is `InputNodeTracker`'s (pure) decision. A
/// device that is unplugged (its reads fail with ENODEV, or its node goes) gets one
/// `.deviceRemoved`, which cancels its gestures.
final class EvdevReader: DeviceInputReader, @unchecked Sendable {
    static let folder = "/dev/input"

    /// The queue to the frame loop, its wake-up, and the stop.
    private let handOff: InputHandOff

    // Reader thread only.
    private struct Open {
        var fd: Int32
        var decoder: EvdevDecoder
    }
    private var devices: [String: Open] = [:]
    private var tracker = InputNodeTracker()
    private var inotifyFD: Int32 = -1
    private var watchingParent = false
    private var nextID: Int64 = 1
    private var permissionWarned: Set<String> = []
    /// What the first listing found (`.deviceAdded` of each device opened), queued as the thread starts.
    private var firstBatch: [StampedInput] = []

    private init(handOff: InputHandOff) { self.handOff = handOff }

    /// Starts the reader thread (it opens the devices there), or says why not (one phrase).
    static func start(wake: @escaping @Sendable () -> Bool) -> Result<EvdevReader, LibinputStartError> {
        guard let handOff = InputHandOff(wake: wake) else {
            return .failure(.init("eventfd failed: \(String(cString: strerror(errno)))"))
        }
        let reader = EvdevReader(handOff: handOff)
        reader.inotifyFD = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard reader.inotifyFD >= 0 else {
            return .failure(.init("inotify_init1 failed: \(String(cString: strerror(errno)))"))
        }
        reader.watch()
        reader.rescan()
        guard ThreadStart.spawn(name: "evdev", { reader.run() }) else {
            reader.closeAll()
            return .failure(.init("cannot start the input thread"))
        }
        return .success(reader)
    }

    func take() -> [StampedInput] { handOff.take(now: MonotonicClock.seconds()) }

    func stop() { handOff.stop() }

    var heldDescriptors: Set<Int32> { handOff.heldDescriptors }

    // MARK: Reader thread

    private func run() {
        var buffer = [UInt8](repeating: 0, count: 64 * Int(CLIBINPUT_INPUT_EVENT_SIZE))
        var notes = [UInt8](repeating: 0, count: 4096)
        if !firstBatch.isEmpty { enqueue(firstBatch) }
        firstBatch = []
        loop: while true {
            let nodes = devices.keys.sorted()
            var fds = [pollfd(fd: handOff.stopDescriptor, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: inotifyFD, events: Int16(POLLIN), revents: 0)]
            fds += nodes.map { pollfd(fd: devices[$0]!.fd, events: Int16(POLLIN), revents: 0) }
            // (No release waits here as in `LibinputReader`: the input core's own release of
            // what an unplugged device held ends with SYN_REPORT 1, which `EvdevDecoder` sees.)
            let n = poll(&fds, nfds_t(fds.count), -1)
            if n < 0 {
                if errno == EINTR { continue }
                break
            }
            if fds[0].revents != 0 { break loop }
            var batch: [StampedInput] = []
            if fds[1].revents != 0 { folderChanged(&notes, into: &batch) }
            for (i, node) in nodes.enumerated() where fds[i + 2].revents != 0 {
                readDevice(node, &buffer, into: &batch)
            }
            if !batch.isEmpty { enqueue(batch) }
        }
        closeAll()
        close(inotifyFD)
        handOff.threadEnded()
    }

    /// Watches `/dev/input`; while it does not exist (no input device yet), `/dev` for its creation.
    private func watch() {
        if inotify_add_watch(inotifyFD, Self.folder, InotifyRecord.watched) >= 0 {
            watchingParent = false
        } else if !watchingParent {
            watchingParent = inotify_add_watch(inotifyFD, "/dev", UInt32(IN_CREATE)) >= 0
        }
    }

    private func folderChanged(_ notes: inout [UInt8], into batch: inout [StampedInput]) {
        while true {
            let n = read(inotifyFD, &notes, notes.count)
            guard n > 0 else { return }
            for record in InotifyRecord.parse(Array(notes[0..<n])) {
                if watchingParent, record.name == "input" {
                    watch()
                    perform(tracker.listed(Self.listFolder()), into: &batch)
                    continue
                }
                perform(tracker.handle(record), into: &batch)
            }
        }
    }

    /// The first listing (before the thread starts: nothing is removed then).
    private func rescan() {
        var batch: [StampedInput] = []
        perform(tracker.listed(Self.listFolder()), into: &batch)
        firstBatch = batch
    }

    private func perform(_ actions: [InputNodeTracker.Action], into batch: inout [StampedInput]) {
        for action in actions {
            switch action {
            case .open(let name): tracker.opened(name, open(name, into: &batch))
            case .close(let name): release(name, into: &batch)
            case .rescan:
                watch()
                perform(tracker.listed(Self.listFolder()), into: &batch)
            }
        }
    }

    private static func listFolder() -> [String] {
        guard let dir = opendir(folder) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if InputNodeName.isEventNode(name) { names.append(name) }
        }
        return names
    }

    /// Opens, classifies and grabs one node; one log line says what became of it.
    private func open(_ name: String, into batch: inout [StampedInput]) -> InputNodeTracker.Outcome {
        let path = Self.folder + "/" + name
        let fd = clibinput_open(path, O_RDONLY | O_NONBLOCK)
        if fd < 0 {
            if fd == -EACCES || fd == -EPERM {
                if permissionWarned.insert(name).inserted {
                    Log.warning("input: cannot open \(path): permission denied (the user needs the input group); tried again when its permissions change")
                }
                return .waiting
            }
            return fd == -ENOENT || fd == -ENODEV ? .leftAlone : .waiting
        }
        let caps = Self.capabilities(fd)
        let deviceName = Self.name(fd)
        let label = "\"\(deviceName)\" (\(path))"
        switch EvdevDeviceKind.classify(caps) {
        case .failure(let refusal):
            close(fd)
            Log.info("input: not reading \(label): \(refusal.reason)")
            return .leftAlone
        case .success(let kind):
            let axes = kind.positionAxes
            let x = axes.first.flatMap { caps.absoluteAxes[$0] } ?? AxisRange(0, 1)
            let y = axes.last.flatMap { caps.absoluteAxes[$0] } ?? AxisRange(0, 1)
            var notes: [String] = []
            let grab = clibinput_grab(fd, 1)
            if grab != 0 { notes.append("not grabbed from SDL (\(String(cString: strerror(grab)))): its input may arrive twice") }
            _ = clibinput_evdev_monotonic(fd)
            devices[name] = Open(fd: fd, decoder: EvdevDecoder(device: nextID, kind: kind, x: x, y: y))
            handOff.holds(fd)
            batch.append(StampedInput(time: MonotonicClock.seconds(), input: .deviceAdded(device: nextID, name: deviceName)))
            nextID += 1
            permissionWarned.remove(name)
            let range = axes.isEmpty ? "" : ", \(x.minimum)…\(x.maximum) × \(y.minimum)…\(y.maximum)"
            Log.info("input: \(kind.label) \(label)\(range), read directly (no udev)"
                                   + (notes.isEmpty ? "" : "; " + notes.joined(separator: "; ")))
            return .reading
        }
    }

    /// Reads what the device has (at most a few buffers, so one busy device cannot starve the others).
    private func readDevice(_ name: String, _ buffer: inout [UInt8], into batch: inout [StampedInput]) {
        guard var device = devices[name] else { return }
        let size = Int(CLIBINPUT_INPUT_EVENT_SIZE)
        for _ in 0..<4 {
            let n = buffer.withUnsafeMutableBytes { read(device.fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EAGAIN || errno == EINTR { break }
                // ENODEV: unplugged (its node may still be there for a moment).
                devices[name] = device
                tracker.lost(name)
                release(name, into: &batch)
                return
            }
            if n == 0 { break }
            buffer.withUnsafeBytes { raw in
                for k in 0..<(n / size) {
                    let e = raw.load(fromByteOffset: k * size, as: input_event.self)
                    let time = Double(e.time.tv_sec) + Double(e.time.tv_usec) / 1_000_000
                    for input in device.decoder.feed(type: e.type, code: e.code, value: e.value) {
                        batch.append(StampedInput(time: time, input: input))
                    }
                }
            }
            if n < buffer.count { break }
        }
        devices[name] = device
    }

    /// Closes a device's descriptor (its grab ends) and cancels what it had started.
    private func release(_ name: String, into batch: inout [StampedInput]) {
        guard let device = devices.removeValue(forKey: name) else { return }
        handOff.releases(device.fd)
        close(device.fd)
        batch.append(StampedInput(time: MonotonicClock.seconds(), input: .deviceRemoved(device: device.decoder.device)))
        Log.info("input: \(Self.folder)/\(name) removed")
    }

    private func closeAll() {
        for device in devices.values {
            handOff.releases(device.fd)
            close(device.fd)
        }
        devices.removeAll()
    }

    private func enqueue(_ batch: [StampedInput]) { handOff.enqueue(batch) }

    // MARK: ioctls

    private static func bits(_ fd: Int32, type: UInt32, count: Int) -> Set<UInt16> {
        var bytes = [UInt8](repeating: 0, count: (count + 7) / 8)
        guard clibinput_evdev_bits(fd, type, &bytes, UInt32(bytes.count)) == 0 else { return [] }
        return Self.set(bytes)
    }

    static func set(_ bytes: [UInt8]) -> Set<UInt16> {
        var out: Set<UInt16> = []
        for (i, byte) in bytes.enumerated() where byte != 0 {
            for b in 0..<8 where byte & (1 << b) != 0 { out.insert(UInt16(i * 8 + b)) }
        }
        return out
    }

    static func capabilities(_ fd: Int32) -> EvdevCapabilities {
        var c = EvdevCapabilities()
        c.keys = bits(fd, type: UInt32(EvdevCode.evKey), count: 0x300)
        c.relativeAxes = bits(fd, type: UInt32(EvdevCode.evRel), count: 0x10)
        for code in bits(fd, type: UInt32(EvdevCode.evAbs), count: 0x40) {
            var info = input_absinfo()
            if clibinput_evdev_abs(fd, UInt32(code), &info) == 0 {
                c.absoluteAxes[code] = AxisRange(Int(info.minimum), Int(info.maximum))
            }
        }
        var props = [UInt8](repeating: 0, count: 4)
        if clibinput_evdev_props(fd, &props, UInt32(props.count)) == 0 {
            c.direct = Self.set(props).contains(UInt16(EvdevCode.propDirect))
        }
        return c
    }

    private static func name(_ fd: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard clibinput_evdev_name(fd, &buffer, UInt32(buffer.count)) == 0 else { return "?" }
        return InputNodeName.printable(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
}
