import CSDL2
import Threads
#if canImport(Glibc)
import Glibc
#endif

/// Waiting for the next event when SDL's video driver cannot block. SDL 2's evdev (dummy)
/// driver, which runs beside our DRM presenter, has no wait of its own: `SDL_WaitEventTimeout`
/// then pumps and sleeps 1 ms in turn — a thousand wake-ups a second on a still page (14 % of a
/// core in the TCG guest of Tests/vm; 3 % polling every 10 ms instead). Here the loop sleeps in
/// `poll` on what can bring an event: the input devices SDL has open (found among our own
/// descriptors, /proc/self/fd → /dev/input/*, less those our own input reader holds: SDL's
/// keyboards beside libinput or the evdev reader; the list kept between waits, looked for again
/// as `InputScanSchedule` says) and a `WakeDescriptor` an SDL event watch writes to
/// whenever any thread pushes an event (the appearance sources' custom events). Input wakes it
/// at once; a device plugged in is seen within `hotplugMilliseconds` (SDL notices it when it
/// next pumps).
final class IdleWait {
    /// The longest sleep without a look at SDL's queue (hot-plug, anything unforeseen).
    static let hotplugMilliseconds: Int32 = 1000

    private let wakeDescriptor: WakeDescriptor
    /// The descriptor's number where the C event watch reads it (its user data).
    private let wake: UnsafeMutablePointer<Int32>
    /// More descriptors to wake for (the seat's: the VT switch pipe, logind's bus; the
    /// display's hot-plug socket).
    private let extra: [Int32]
    /// SDL reads the input devices (its evdev code): it is looked at every `hotplugMilliseconds`
    /// for devices plugged in. False when the host has its own reader (libinput, evdev), which
    /// wakes the wait itself: then no timeout but the caller's (SIGTERM and SIGINT, which SDL
    /// only notes, write to the wake descriptor through `QuitSignal`, on whichever thread).
    private let sdlInput: Bool
    /// The descriptors our own input reader holds (`InputSource.heldDescriptors`): left out of
    /// the poll, since its thread reads them (a device with unread input would end every poll at
    /// once and the wait would spin until the reader caught up).
    private let readerDescriptors: () -> Set<Int32>
    /// SDL's input descriptors as last found (`inputDescriptors`), and when to look again.
    private var sdlDescriptors: [Int32] = []
    private var scan = InputScanSchedule(interval: UInt64(IdleWait.hotplugMilliseconds))
    /// The descriptors of the last poll (kept for its capacity).
    private var pollSet: [pollfd] = []

    init?(extra: [Int32] = [], sdlInput: Bool = true, readerDescriptors: @escaping () -> Set<Int32> = { [] }) {
        self.extra = extra
        self.sdlInput = sdlInput
        self.readerDescriptors = readerDescriptors
        guard let descriptor = WakeDescriptor() else { return nil }
        wakeDescriptor = descriptor
        wake = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
        wake.initialize(to: descriptor.fd)
        SDL_AddEventWatch(Self.watch, wake)
        QuitSignal.state.pointee.wake = descriptor.fd
    }

    deinit {
        QuitSignal.state.pointee.wake = -1
        SDL_DelEventWatch(Self.watch, wake)
        wake.deallocate()
    }

    /// After an event of ours is in SDL's queue (`HostEventPoster.wake`), from any thread: the
    /// poll woken once more. SDL calls the watch below before it adds the event, so the watch's
    /// wake-up alone could come too early: the loop polled SDL's queue, found it empty and slept
    /// without a timeout (beside libinput or the evdev reader) until the next input — found in
    /// Tests/vm's unplug_mid_gesture, where a tablet plugged at rest reached the loop only with
    /// its first press.
    static func eventQueued() {
        let fd = QuitSignal.state.pointee.wake
        guard fd >= 0 else { return }
        var one: UInt64 = 1
        _ = write(fd, &one, 8)
    }

    /// Any event added to SDL's queue, from any thread: wake the poll (SDL's own poll sentinel
    /// aside, which every `SDL_PollEvent` adds).
    private static let watch: SDL_EventFilter = { data, event in
        guard let data, let event, event.pointee.type != SDL_POLLSENTINEL.rawValue else { return 1 }
        var one: UInt64 = 1
        _ = write(data.assumingMemoryBound(to: Int32.self).pointee, &one, 8)
        return 1
    }

    /// The longest sleep while the screen sleeps (`lookForDevices` false) and SDL reads the
    /// input: its queue is looked at once a minute only, for a device SDL itself would open
    /// (a SIGTERM wakes the wait at once through `QuitSignal`).
    static let asleepMilliseconds: Int64 = 60_000

    /// As `SDL_WaitEventTimeout`: 1 with an event in `event`, 0 when `timeout` ms passed (-1:
    /// no timeout). `lookForDevices` false (the screen asleep): SDL's queue is looked at every
    /// `asleepMilliseconds` instead of every `hotplugMilliseconds` — the wait lasts until input,
    /// an event or `timeout` (a device SDL itself would open, plugged meanwhile, is seen then).
    func wait(_ event: inout SDL_Event, timeout: Int32, lookForDevices: Bool = true) -> Int32 {
        let deadline = timeout < 0 ? UInt64.max : SDL_GetTicks64() + UInt64(timeout)
        var keptWoke = false
        while true {
            let got = SDL_PollEvent(&event) == 1
            scan.woke(byKeptDescriptor: keptWoke, sdlHadEvent: got)
            if got { return 1 }
            let now = SDL_GetTicks64()
            if now >= deadline { return 0 }
            if scan.due(now: now) {
                sdlDescriptors = Self.inputDescriptors()
                scan.scanned(now: now)
            }
            // The poll's list: SDL's kept descriptors our reader does not hold, the extra ones,
            // the wake descriptor last (one array kept between waits: no allocation a frame).
            let readers = readerDescriptors()
            pollSet.removeAll(keepingCapacity: true)
            for fd in sdlDescriptors where !readers.contains(fd) { pollSet.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0)) }
            let kept = pollSet.count
            for fd in extra { pollSet.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0)) }
            pollSet.append(pollfd(fd: wake.pointee, events: Int16(POLLIN), revents: 0))
            // SDL's own input is looked at every second awake and every minute asleep; with our
            // own reader nothing needs a look, and the wait lasts until a descriptor or `timeout`.
            let look = lookForDevices ? Int64(Self.hotplugMilliseconds) : Self.asleepMilliseconds
            let cap = sdlInput ? look : Int64(Int32.max)
            let left = deadline == UInt64.max ? (sdlInput ? cap : -1) : min(Int64(deadline - now), cap)
            _ = poll(&pollSet, nfds_t(pollSet.count), Int32(left))
            // The seat has something to say (a VT switch): back to the loop, which handles it.
            if pollSet[kept..<(kept + extra.count)].contains(where: { $0.revents != 0 }) { return 0 }
            keptWoke = pollSet[..<kept].contains { $0.revents != 0 }
            wakeDescriptor.drain()
        }
    }

    /// Our descriptors open on /dev/input/* (SDL's evdev devices).
    static func inputDescriptors() -> [Int32] {
        guard let dir = opendir("/proc/self/fd") else { return [] }
        defer { closedir(dir) }
        var out: [Int32] = []
        var target = [CChar](repeating: 0, count: 64)
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            guard let fd = Int32(name) else { continue }
            let n = readlink("/proc/self/fd/" + name, &target, target.count - 1)
            guard n > 0 else { continue }
            if String(decoding: target[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self).hasPrefix("/dev/input/") { out.append(fd) }
        }
        return out
    }
}
