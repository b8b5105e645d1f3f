import Appearance
import SDBus

/// The GNOME accessibility keys (`GnomeAccessibilityKeys`) through the same portal Settings
/// interface as `PortalClient`, on the runner thread beside it, with the same rules (issue 32):
/// only the unique name owning `org.freedesktop.portal.Desktop` is believed (its `SettingChanged`
/// matched with that sender and checked again in the handler, the owner followed through
/// `NameOwnerWatch`), and every read is asynchronous (`Read`, which every portal version has),
/// so a slow portal delays no other source. Kept apart from `PortalClient` so that the
/// freedesktop keys' client stays as it is; the runner merges the two (`fill`).
final class GnomeSettingsClient {
    private(set) var keys = GnomeAccessibilityKeys()
    private let owner = NameOwnerWatch(name: PortalClient.name)
    private var signalMatches: [BusConnection.Match] = []
    /// Bumped on each owner change: replies to an earlier owner's reads are dropped.
    private var generation = 0
    /// The first owner's reads still unanswered (the runner holds its first event till none).
    private var unanswered = 0
    private var ownerKnown = false
    /// False until the portal's owner is known and its first reads have answered or failed.
    var settled: Bool { ownerKnown && unanswered == 0 }
    let timeoutUSec: UInt64
    let faults: FaultLog

    init(timeoutUSec: UInt64, faults: FaultLog) {
        self.timeoutUSec = timeoutUSec
        self.faults = faults
    }

    func attach(_ bus: BusConnection) {
        owner.start(bus, timeoutUSec: timeoutUSec, log: { [faults] in faults.note("portal (GNOME keys): \($0)") },
                    spoofed: { [faults] sender in
                        faults.note("portal: ignored a NameOwnerChanged not sent by the bus", "(from \(sender))")
                    },
                    changed: { [weak self] new, _ in self?.ownerChanged(bus, new) })
    }

    /// The portal's hints with the absent ones taken from the GNOME keys.
    func fill(_ hints: AccessibilityHints) -> AccessibilityHints { keys.filling(hints) }

    private func ownerChanged(_ bus: BusConnection, _ new: String?) {
        generation += 1
        for m in signalMatches { bus.remove(m) }
        signalMatches = []
        keys = GnomeAccessibilityKeys()
        ownerKnown = true
        unanswered = 0
        guard let new else { return }
        for namespace in Set(GnomeAccessibilityKeys.keys.map(\.namespace)).sorted() {
            let rule = "type='signal',sender='\(new)',path='\(PortalClient.path)',interface='\(PortalClient.interface)',"
                + "member='SettingChanged',arg0='\(namespace)'"
            if let m = bus.addMatch(rule, installFailed: { [faults] in faults.note("portal (GNOME keys): \($0)") },
                                    { [weak self] m in self?.settingChanged(m) }) {
                signalMatches.append(m)
            }
        }
        unanswered = GnomeAccessibilityKeys.keys.count
        for (namespace, key) in GnomeAccessibilityKeys.keys { read(bus, namespace, key, generation: generation) }
    }

    private func settingChanged(_ m: BusMessage) {
        guard let from = m.sender, from == owner.owner else {
            faults.note("portal: ignored a SettingChanged not sent by the portal", "(from \(m.sender ?? "?"), the portal is \(owner.owner ?? "not running"))")
            return
        }
        guard let args = m.readAll(), args.count == 3, let namespace = args[0].string, let key = args[1].string else {
            faults.note("portal: ignored a malformed SettingChanged")
            return
        }
        keys.apply(namespace: namespace, key: key, bool: args[2].bool)
        keys.apply(namespace: namespace, key: key, double: args[2].double)
    }

    /// One key, asynchronously. A key the portal does not have (or an error) is absent.
    private func read(_ bus: BusConnection, _ namespace: String, _ key: String, generation: Int) {
        let error = bus.callAsync(BusTarget(PortalClient.name, PortalClient.path, PortalClient.interface, "Read"), timeoutUSec: timeoutUSec,
                                  args: { $0.string(namespace); $0.string(key) }) { [weak self] r in
            guard let self, generation == self.generation else { return }
            self.unanswered = max(0, self.unanswered - 1)
            let v: BusValue?
            switch r {
            case .success(let m): v = m.readOne()
            case .failure: v = nil
            }
            self.keys.apply(namespace: namespace, key: key, bool: v?.bool)
            self.keys.apply(namespace: namespace, key: key, double: v?.double)
        }
        if let error {
            faults.note("portal (GNOME keys): a read could not be sent", "(\(error))")
            unanswered = max(0, unanswered - 1)
        }
    }

    /// The session bus or the portal is gone: every key absent.
    func lost() {
        keys = GnomeAccessibilityKeys()
        ownerKnown = true
        unanswered = 0
    }
}
