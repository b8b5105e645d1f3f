/// The `/dev/input` folder as the evdev reader follows it, pure: which nodes are event devices,
/// what inotify said about them, and what to open or close in answer.
enum InputNodeName {
    /// True for `event<N>` (N decimal digits, at most 6): the nodes the reader opens. `mice`,
    /// `mouse0`, `js0`, `by-id/…` and anything else are not evdev devices of their own.
    static func isEventNode(_ name: String) -> Bool {
        guard name.hasPrefix("event") else { return false }
        let digits = name.dropFirst(5)
        return !digits.isEmpty && digits.count <= 6 && digits.allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// A device's name as the kernel reports it (any bytes a uinput program chose) made safe
    /// for one log line: control characters and quotes become `?`, at most 80 characters.
    static func printable(_ name: String) -> String {
        let cleaned = name.unicodeScalars.map { s -> Character in
            s.value < 0x20 || s.value == 0x7F || s == "\"" || (0x80...0x9F).contains(s.value) || s.properties.generalCategory == .lineSeparator
                || s.properties.generalCategory == .paragraphSeparator ? "?" : Character(s)
        }
        let text = String(cleaned)
        return text.count > 80 ? String(text.prefix(79)) + "…" : text
    }
}

/// One inotify record on the watched folder (`struct inotify_event`: wd, mask, cookie, len, name).
struct InotifyRecord: Sendable, Equatable {
    var mask: UInt32
    var name: String

    // The mask bits the reader asks for (sys/inotify.h).
    static let attrib: UInt32 = 0x0000_0004, movedFrom: UInt32 = 0x0000_0040, movedTo: UInt32 = 0x0000_0080
    static let create: UInt32 = 0x0000_0100, delete: UInt32 = 0x0000_0200, deleteSelf: UInt32 = 0x0000_0400
    static let overflow: UInt32 = 0x0000_4000, ignored: UInt32 = 0x0000_8000
    static let watched: UInt32 = attrib | movedFrom | movedTo | create | delete | deleteSelf

    /// The records of one `read` of an inotify descriptor (whole records only; a truncated
    /// tail, which the kernel never writes, is ignored). Names are NUL-padded to `len`.
    static func parse(_ bytes: [UInt8]) -> [InotifyRecord] {
        var out: [InotifyRecord] = []
        var i = 0
        func u32(_ at: Int) -> UInt32 {
            UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
        }
        while i + 16 <= bytes.count {
            let mask = u32(i + 4), len = Int(u32(i + 12))
            guard len <= bytes.count - (i + 16) else { break }
            let raw = bytes[(i + 16)..<(i + 16 + len)].prefix { $0 != 0 }
            out.append(InotifyRecord(mask: mask, name: String(decoding: raw, as: UTF8.self)))
            i += 16 + len
        }
        return out
    }
}

/// Which `/dev/input/event*` nodes the reader has open, and what to do when the folder changes.
/// A node is in one of three states: read (open), left alone (not a pointer or touch device:
/// not opened again until it is replaced), or waiting (it could not be opened: permission, a
/// node that is not ready yet): tried again when its attributes change (`IN_ATTRIB`: mdev or a
/// rule sets the group and mode after creating it) or it is created again.
struct InputNodeTracker: Sendable, Equatable {
    enum Action: Sendable, Equatable {
        /// Try to open and classify the node (then report with `opened`).
        case open(String)
        /// The node is gone (or the folder must be read again): stop reading it.
        case close(String)
        /// The folder's events were lost (`IN_Q_OVERFLOW`) or it went away: list it again.
        case rescan
    }
    enum Outcome: Sendable, Equatable { case reading, leftAlone, waiting }

    private(set) var reading: Set<String> = []
    private(set) var leftAlone: Set<String> = []
    private(set) var waiting: Set<String> = []

    /// The nodes a listing of the folder found: opens the new ones, closes the vanished ones.
    mutating func listed(_ names: [String]) -> [Action] {
        let present = Set(names.filter(InputNodeName.isEventNode))
        var actions: [Action] = []
        for gone in (reading.union(leftAlone).union(waiting)).subtracting(present).sorted() {
            actions += forget(gone)
        }
        for name in present.sorted() where !reading.contains(name) && !leftAlone.contains(name) {
            waiting.remove(name)
            actions.append(.open(name))
        }
        return actions
    }

    /// One inotify record.
    mutating func handle(_ r: InotifyRecord) -> [Action] {
        if r.mask & (InotifyRecord.overflow | InotifyRecord.deleteSelf) != 0 { return [.rescan] }
        guard InputNodeName.isEventNode(r.name) else { return [] }
        if r.mask & (InotifyRecord.delete | InotifyRecord.movedFrom) != 0 { return forget(r.name) }
        if r.mask & (InotifyRecord.create | InotifyRecord.movedTo) != 0 {
            // A node created again under a known name is a new device: the old one is gone.
            var actions = reading.contains(r.name) || leftAlone.contains(r.name) ? forget(r.name) : []
            waiting.remove(r.name)
            actions.append(.open(r.name))
            return actions
        }
        if r.mask & InotifyRecord.attrib != 0, waiting.contains(r.name) {
            waiting.remove(r.name)
            return [.open(r.name)]
        }
        return []
    }

    /// What became of an `.open`.
    mutating func opened(_ name: String, _ outcome: Outcome) {
        waiting.remove(name)
        switch outcome {
        case .reading: reading.insert(name)
        case .leftAlone: leftAlone.insert(name)
        case .waiting: waiting.insert(name)
        }
    }

    /// A node whose reads fail (`ENODEV`: unplugged before its node is removed): stop reading it;
    /// its node's removal then changes nothing.
    mutating func lost(_ name: String) {
        reading.remove(name)
    }

    private mutating func forget(_ name: String) -> [Action] {
        let wasRead = reading.remove(name) != nil
        leftAlone.remove(name)
        waiting.remove(name)
        return wasRead ? [.close(name)] : []
    }
}
