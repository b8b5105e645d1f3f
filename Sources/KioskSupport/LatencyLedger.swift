/// Input-to-screen latency, frame by frame: which input each presented frame is the first to
/// show, and how long it took to reach the screen. Pure bookkeeping; the host (or the bench's
/// simulated display) says when inputs happened and when frames reached the screen, both on
/// one clock (seconds).
///
/// Three kinds are kept apart: a **tap** (a touch-down, or a key: the first frame that shows the
/// pressed toggle), a **drag** (each move of a pressed pointer: the frame that shows it) and a
/// fleet **command** (an MQTT appearance command that changed the page, from its arrival in the
/// client thread: the first frame that shows the new theme).
/// A frame shows every input delivered before it began; the latency it records per kind is
/// that of the *oldest* such input not yet shown (the one that waited longest), once.
///
/// How good the stamps are differs by path, so every sample carries its labels: the input's
/// stamp (`kernel`: the kernel's CLOCK_MONOTONIC through libinput/evdev; `received`: when SDL
/// queued the event) and the frame's (`flip`: the DRM page-flip event's vblank time;
/// `submitted`: DIRTYFB returned, drawn in place; `presented`: the present call returned;
/// `compositor`: `wp_presentation` feedback, when the compositor showed the frame;
/// `simulated`: the bench's virtual display). cage 0.1.4, the compositor the kiosk's unit runs
/// (Debian 12), does not offer `wp_presentation`: under it the present's return is the stamp.
public struct LatencyLedger: Sendable {
    public enum Kind: String, Sendable, CaseIterable {
        case tap, drag, command
        /// The kinds a pointer or key makes (the bench's simulated inputs).
        public static let pointer: [Kind] = [.tap, .drag]
    }
    public enum InputStamp: String, Sendable { case kernel, received, simulated }
    public enum ScreenStamp: String, Sendable { case flip, submitted, presented, compositor, simulated }

    /// One frame's latency for one kind.
    public struct Sample: Equatable, Sendable {
        public var kind: Kind
        public var input: InputStamp
        public var screen: ScreenStamp
        /// When the input happened and when its frame reached the screen (seconds).
        public var inputAt: Double
        public var shownAt: Double
        public var seconds: Double { shownAt - inputAt }
    }

    /// The path a sample was measured on: its kind and both stamps, e.g. "tap kernel→flip".
    public struct Path: Hashable, Comparable, Sendable {
        public var kind: Kind
        public var input: InputStamp
        public var screen: ScreenStamp
        public var label: String { "\(kind.rawValue) \(input.rawValue)→\(screen.rawValue)" }
        public static func < (a: Path, b: Path) -> Bool { a.label < b.label }
    }

    /// n and percentiles of a set of samples, milliseconds.
    public struct Summary: Equatable, Sendable {
        public var count: Int
        public var p50, p95, p99, max: Double

        /// Nil for no values.
        public init?(milliseconds values: [Double]) {
            guard !values.isEmpty else { return nil }
            let s = values.sorted()
            count = s.count
            p50 = percentile(sorted: s, 0.5)!
            p95 = percentile(sorted: s, 0.95)!
            p99 = percentile(sorted: s, 0.99)!
            max = s.last!
        }

        /// "n 120, p50 9.1, p95 15.2, p99 16.4, max 17.0 ms".
        public var text: String {
            "n \(count), p50 \(fixed(p50, 1)), p95 \(fixed(p95, 1)), p99 \(fixed(p99, 1)), max \(fixed(max, 1)) ms"
        }
    }

    /// Inputs delivered but not yet in a frame that began: the oldest of each kind.
    private var pending: [Kind: (at: Double, stamp: InputStamp)] = [:]
    /// Inputs delivered before the frame now being made began (taken by `frameBegan`).
    private var inFrame: [Kind: (at: Double, stamp: InputStamp)] = [:]
    /// Every sample, oldest first, up to `capacity` (later ones are dropped, counted).
    public private(set) var samples: [Sample] = []
    public private(set) var dropped = 0
    public let capacity: Int

    public init(capacity: Int = 100_000) {
        self.capacity = capacity
    }

    /// An input of `kind` happened at `at`; the next frame to begin will show it.
    public mutating func input(_ kind: Kind, at: Double, stamp: InputStamp) {
        if let old = pending[kind], old.at <= at { return }
        pending[kind] = (at, stamp)
    }

    /// Whether some input waits for a frame to begin.
    public var hasPending: Bool { !pending.isEmpty }

    /// A frame began: it shows every input delivered so far.
    public mutating func frameBegan() {
        for (kind, p) in pending {
            if let old = inFrame[kind], old.at <= p.at { continue }
            inFrame[kind] = p
        }
        pending.removeAll(keepingCapacity: true)
    }

    /// The frame that began last reached the screen at `at`: one sample per kind it shows
    /// (returned, and kept; where they are kept: `lastFrameSamples`). A frame that presented
    /// nothing should call `frameDropped` instead.
    @discardableResult
    public mutating func framePresented(at: Double, stamp: ScreenStamp) -> [Sample] {
        var out: [Sample] = []
        for kind in Kind.allCases {
            guard let p = inFrame[kind] else { continue }
            out.append(Sample(kind: kind, input: p.stamp, screen: stamp, inputAt: p.at, shownAt: at))
        }
        inFrame.removeAll(keepingCapacity: true)
        let first = samples.count
        for s in out {
            if samples.count < capacity { samples.append(s) } else { dropped += 1 }
        }
        lastFrameSamples = first..<samples.count
        return out
    }

    /// Where `samples` holds the samples of the last `framePresented` (empty when it showed no
    /// input, or none was kept). Samples are never removed, so the range stays valid.
    public private(set) var lastFrameSamples: Range<Int> = 0..<0

    /// A better time for a frame already counted: its samples (`lastFrameSamples` of its
    /// `framePresented`) reached the screen at `at`, as `stamp` knows it — a compositor's
    /// presentation feedback, which comes a frame or two after the present returned.
    public mutating func restamp(_ frame: Range<Int>, shownAt at: Double, stamp: ScreenStamp) {
        for i in frame.clamped(to: samples.indices) {
            samples[i].shownAt = at
            samples[i].screen = stamp
        }
    }

    /// The frame that began last showed nothing new (nothing was drawn): its inputs wait for
    /// the next frame, still the oldest.
    public mutating func frameDropped() {
        for (kind, p) in inFrame {
            if let newer = pending[kind], newer.at < p.at { continue }
            pending[kind] = p
        }
        inFrame.removeAll(keepingCapacity: true)
    }

    /// A gesture ended with nothing to show for it (cancelled: its device unplugged, the window
    /// lost): the inputs of `kinds` that no frame has begun to show yet are withdrawn, not charged
    /// to the next frame that draws something else. (A press held under reduced motion draws
    /// nothing; cancelled by an unplug, it was charged to a drag seconds later: taps of 6–7 s in
    /// Tests/vm's unplug_mid_gesture.) With several pointers down it withdraws theirs too: the
    /// ledger keeps the oldest input per kind, not per pointer.
    public mutating func withdraw(_ kinds: [Kind]) {
        for kind in kinds { pending[kind] = nil }
    }

    /// Summaries per path, in label order.
    public func summaries(since: Double = -.infinity) -> [(path: Path, summary: Summary)] {
        var byPath: [Path: [Double]] = [:]
        for s in samples where s.shownAt >= since {
            byPath[Path(kind: s.kind, input: s.input, screen: s.screen), default: []].append(s.seconds * 1000)
        }
        return byPath.keys.sorted().compactMap { path in Summary(milliseconds: byPath[path]!).map { (path, $0) } }
    }

    /// The lines `DARKMODE_KIOSK_TIMING=1` prints at exit: one per path, or one saying none.
    public func reportLines() -> [String] {
        let all = summaries()
        guard !all.isEmpty else { return ["latency: no tap, drag or fleet command reached the screen"] }
        return all.map { "latency: \($0.path.label): \($0.summary.text)" }
            + (dropped > 0 ? ["latency: \(dropped) later samples not kept (over \(capacity))"] : [])
    }

    /// Samples shown in the last `window` seconds before `now` (all kinds, all paths), milliseconds.
    public func recent(now: Double, window: Double = 1) -> [Double] {
        var out: [Double] = []
        for s in samples.reversed() {
            guard s.shownAt > now - window else { break }
            out.append(s.seconds * 1000)
        }
        return out
    }
}
