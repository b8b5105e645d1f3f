/// When `IdleWait` looks again for the input devices SDL holds open. Finding them is a scan
/// of /proc/self/fd with a `readlink` per descriptor — some forty system calls, which the loop
/// paid before every frame it waited for (60 a second while the clouds drift on the DRM
/// presenter). The list is kept instead and looked for again:
/// - once every `interval` ms (a device SDL opened meanwhile: SDL itself notices one only
///   when it pumps, which the wait does at least that often while SDL reads the input);
/// - at once after a poll that one of the kept descriptors ended while SDL then had no event:
///   a number SDL closed (a device unplugged) may now name nothing (POLLNVAL) or another file
///   (always readable), and either would end every poll at once until the next look.
struct InputScanSchedule: Equatable {
    let interval: UInt64
    private var scannedAt: UInt64?
    private var distrusted = false

    init(interval: UInt64) { self.interval = interval }

    /// Whether the kept list is to be made again now (`now` in ms, a monotonic clock).
    func due(now: UInt64) -> Bool {
        guard let scannedAt else { return true }
        return distrusted || now < scannedAt || now - scannedAt >= interval
    }

    /// The list was just made.
    mutating func scanned(now: UInt64) {
        scannedAt = now
        distrusted = false
    }

    /// After a poll: whether a kept descriptor ended it, and whether SDL then had an event.
    /// Woken by one with nothing to show for it: the list is not trusted until made again.
    mutating func woke(byKeptDescriptor: Bool, sdlHadEvent: Bool) {
        if byKeptDescriptor && !sdlHadEvent { distrusted = true }
    }
}
