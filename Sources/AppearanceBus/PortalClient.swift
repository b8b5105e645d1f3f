import Appearance
import SDBus

/// The desktop's appearance through xdg-desktop-portal's Settings interface on the session
/// bus. Lives on the runner thread: `attach` subscribes, the bus's `process` feeds signals and
/// replies, the runner reads `reading`/`hints` after each turn.
///
/// Only the portal is believed (issue 32, item 7): `SettingChanged` is matched with the
/// sender set to the unique name that owns `org.freedesktop.portal.Desktop` (found with
/// GetNameOwner, followed through NameOwnerChanged; the rule is replaced when the owner
/// changes), and the handler drops any message whose sender is not that name (a unicast
/// signal reaches a connection whatever its match rules). Reads are asynchronous (item 15): a
/// portal that takes 1.9 s to answer delays only its own reading, not the other sources.
final class PortalClient {
    static let name = "org.freedesktop.portal.Desktop"
    static let path = "/org/freedesktop/portal/desktop"
    static let interface = "org.freedesktop.portal.Settings"
    static let namespace = "org.freedesktop.appearance"
    static let keys = ["color-scheme", "contrast", "reduced-motion"]

    private(set) var reading: SourceReading = .absent
    private(set) var hints = AccessibilityHints()
    /// False until the first answer is in: the portal's owner is known and, when it has one,
    /// its three reads have answered (or color-scheme's failed). The runner holds its first
    /// event till then.
    var settled: Bool { ownerKnown && (unanswered.isEmpty || colorSchemeFailed) }
    private var ownerKnown = false
    /// The keys of this owner's first reads still waiting for an answer.
    private var unanswered: Set<String> = []
    private var useReadOne = true
    private let owner = NameOwnerWatch(name: PortalClient.name)
    private var signalMatch: BusConnection.Match?
    /// Bumped on each owner change: replies to an earlier owner's reads are dropped.
    private var generation = 0
    private var colorSchemeFailed = false
    let timeoutUSec: UInt64
    let faults: FaultLog

    init(timeoutUSec: UInt64, faults: FaultLog) {
        self.timeoutUSec = timeoutUSec
        self.faults = faults
    }

    func attach(_ bus: BusConnection) {
        owner.start(bus, timeoutUSec: timeoutUSec, log: { [faults] in faults.note("portal: \($0)") },
                    spoofed: { [faults] sender in
                        faults.note("portal: ignored a NameOwnerChanged not sent by the bus", "(from \(sender))")
                    },
                    changed: { [weak self] new, first in self?.ownerChanged(bus, new, first: first) })
    }

    private func ownerChanged(_ bus: BusConnection, _ new: String?, first: Bool) {
        generation += 1
        ownerKnown = true
        unanswered = []
        if let m = signalMatch { bus.remove(m); signalMatch = nil }
        guard let new else {
            if first {
                faults.note("portal: no appearance settings on the session bus", "(\(Self.name) is not running); skipping it until it appears")
            } else if reading != .absent || hints != AccessibilityHints() {
                faults.note("portal: \(Self.name) left the session bus; skipping it")
            }
            markGone()
            return
        }
        if !first { faults.note("portal: \(Self.name) appeared on the session bus", "(\(new))") }
        let rule = "type='signal',sender='\(new)',path='\(Self.path)',interface='\(Self.interface)',"
            + "member='SettingChanged',arg0='\(Self.namespace)'"
        signalMatch = bus.addMatch(rule, installFailed: { [faults] in faults.note("portal: \($0)") }) { [weak self] m in
            self?.settingChanged(m)
        }
        useReadOne = true
        colorSchemeFailed = false
        unanswered = Set(Self.keys)
        for key in Self.keys { read(bus, key, generation: generation) }
    }

    private func settingChanged(_ m: BusMessage) {
        guard let from = m.sender, from == owner.owner else {
            faults.note("portal: ignored a SettingChanged not sent by the portal", "(from \(m.sender ?? "?"), the portal is \(owner.owner ?? "not running"))")
            return
        }
        guard let args = m.readAll(), args.count == 3, args[0].string == Self.namespace, let key = args[1].string else {
            faults.note("portal: ignored a malformed SettingChanged")
            return
        }
        apply(key: key, value: args[2])
    }

    func markGone() {
        reading = .absent
        hints = AccessibilityHints()
    }

    private func apply(key: String, value: BusValue) {
        switch key {
        case "color-scheme":
            switch value.uint32 {
            case 1?: reading = .scheme(.dark)
            case 2?: reading = .scheme(.light)
            case 0?: reading = .scheme(.noPreference)
            default:
                faults.note("portal: color-scheme has an unexpected value", "\(value.brief()); treating it as no preference")
                reading = .scheme(.noPreference)
            }
        case "contrast", "reduced-motion":
            let flag = value.uint32.map { $0 == 1 }
            if flag == nil, value != .other("-") {
                faults.note("portal: \(key) has an unexpected value", "\(value.brief()); treating it as unset")
            }
            if key == "contrast" { hints.highContrast = flag } else { hints.reducedMotion = flag }
        default: break
        }
    }

    /// One setting, asynchronously: `ReadOne`, or `Read` on portals before 1.18 (Debian 12's).
    private func read(_ bus: BusConnection, _ key: String, generation: Int) {
        let member = useReadOne ? "ReadOne" : "Read"
        let error = bus.callAsync(BusTarget(Self.name, Self.path, Self.interface, member), timeoutUSec: timeoutUSec,
                                  args: { $0.string(Self.namespace); $0.string(key) }) { [weak self] r in
            guard let self, generation == self.generation else { return }
            if !(r.failureName == BusError.unknownMethod && member == "ReadOne") { self.unanswered.remove(key) }
            switch r {
            case .success(let m):
                let v = m.readOne()
                if key == "color-scheme" {
                    if let v { self.apply(key: key, value: v) } else { self.reading = .scheme(.noPreference) }
                } else if !self.colorSchemeFailed {
                    self.apply(key: key, value: v ?? .other("-"))
                }
            case .failure(let e) where e.name == BusError.unknownMethod && member == "ReadOne":
                self.useReadOne = false
                self.read(bus, key, generation: generation)
            case .failure(let e) where e.name == "org.freedesktop.portal.Error.NotFound":
                if key == "color-scheme" { self.reading = .scheme(.noPreference) }
                else if !self.colorSchemeFailed { self.apply(key: key, value: .other("-")) }
            case .failure(let e):
                guard key == "color-scheme" else { return }
                self.colorSchemeFailed = true
                self.markGone()
                self.faults.note("portal: no appearance settings on the session bus",
                                 "(\(e.isNoOwner ? "\(Self.name) is not running" : e.description)); skipping it until it appears")
            }
        }
        if let error {
            faults.note("portal: a read could not be sent", "(\(error))")
            unanswered.remove(key)
            if key == "color-scheme" { colorSchemeFailed = true; markGone() }
        }
    }
}

extension Result where Failure == BusError {
    var failureName: String? { if case .failure(let e) = self { return e.name }; return nil }
}

extension PortalClient {
    /// The session bus connection is gone.
    func lost() {
        markGone()
        ownerKnown = true
        unanswered = []
    }
}
