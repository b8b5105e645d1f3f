import Appearance

/// The GNOME accessibility keys (`GnomeAccessibilityKeys`) through the same portal Settings
/// interface as `PortalClient`, on the runner thread beside it: `attach` subscribes to their
/// `SettingChanged` and to the portal's coming and going, `refreshIfNeeded` reads them (with
/// `Read`, which every portal version has). Kept apart from `PortalClient` so that the
/// freedesktop keys' client stays as it is; the runner merges the two (`fill`).
final class GnomeSettingsClient {
    private(set) var keys = GnomeAccessibilityKeys()
    private var needsRead = false
    let timeoutUSec: UInt64
    let log: (String) -> Void

    init(timeoutUSec: UInt64, log: @escaping (String) -> Void) {
        self.timeoutUSec = timeoutUSec
        self.log = log
    }

    func attach(_ bus: Bus) {
        for namespace in Set(GnomeAccessibilityKeys.keys.map(\.namespace)) {
            let rule = "type='signal',interface='\(PortalClient.interface)',member='SettingChanged',path='\(PortalClient.path)',arg0='\(namespace)'"
            if let e = bus.addMatch(rule, { [weak self] m in self?.settingChanged(m) }) { log("portal: \(e)") }
        }
        let owner = "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(PortalClient.name)'"
        if let e = bus.addMatch(owner, { [weak self] m in self?.ownerChanged(m) }) { log("portal: \(e)") }
        needsRead = true
    }

    /// The portal's hints with the absent ones taken from the GNOME keys.
    func fill(_ hints: AccessibilityHints) -> AccessibilityHints { keys.filling(hints) }

    private func settingChanged(_ m: BusMessage) {
        guard let args = m.readAll(), args.count == 3, let namespace = args[0].string, let key = args[1].string else { return }
        keys.apply(namespace: namespace, key: key, bool: args[2].bool)
        keys.apply(namespace: namespace, key: key, double: args[2].double)
    }

    private func ownerChanged(_ m: BusMessage) {
        guard let args = m.readAll(), args.count == 3, let newOwner = args[2].string else { return }
        if newOwner.isEmpty { lost() } else { needsRead = true }
    }

    /// Reads every key when start, or the portal's return, asked for it. A key the portal does
    /// not have (or no portal) is absent.
    func refreshIfNeeded(_ bus: Bus) {
        guard needsRead else { return }
        needsRead = false
        for (namespace, key) in GnomeAccessibilityKeys.keys {
            let r = bus.call(destination: PortalClient.name, path: PortalClient.path, interface: PortalClient.interface, member: "Read",
                             args: [.string(namespace), .string(key)], timeoutUSec: timeoutUSec) { $0.readOne() }
            switch r {
            case .success(let v):
                keys.apply(namespace: namespace, key: key, bool: v?.bool)
                keys.apply(namespace: namespace, key: key, double: v?.double)
            case .failure:
                keys.apply(namespace: namespace, key: key, bool: nil)
                keys.apply(namespace: namespace, key: key, double: nil)
            }
        }
    }

    /// The session bus or the portal is gone: every key absent.
    func lost() { keys = GnomeAccessibilityKeys() }
}
