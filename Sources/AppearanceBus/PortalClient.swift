import Appearance

/// The desktop's appearance through xdg-desktop-portal's Settings interface on the session
/// bus. Lives on the runner thread: `attach` subscribes, the bus's `process` feeds signals, the
/// runner reads `reading`/`hints` after each turn.
final class PortalClient {
    static let name = "org.freedesktop.portal.Desktop"
    static let path = "/org/freedesktop/portal/desktop"
    static let interface = "org.freedesktop.portal.Settings"
    static let namespace = "org.freedesktop.appearance"

    private(set) var reading: SourceReading = .absent
    private(set) var hints = AccessibilityHints()
    /// Set by signal handlers; the runner calls `refreshIfNeeded` after processing the bus.
    private var needsRead = false
    private var useReadOne = true
    private var loggedAbsent = false
    let timeoutUSec: UInt64
    let log: (String) -> Void

    init(timeoutUSec: UInt64, log: @escaping (String) -> Void) {
        self.timeoutUSec = timeoutUSec
        self.log = log
    }

    func attach(_ bus: Bus) {
        let changed = "type='signal',interface='\(Self.interface)',member='SettingChanged',path='\(Self.path)',arg0='\(Self.namespace)'"
        if let e = bus.addMatch(changed, { [weak self] m in self?.settingChanged(m) }) { log("portal: \(e)") }
        let owner = "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(Self.name)'"
        if let e = bus.addMatch(owner, { [weak self] m in self?.ownerChanged(m) }) { log("portal: \(e)") }
        needsRead = true
    }

    private func settingChanged(_ m: BusMessage) {
        guard let args = m.readAll(), args.count == 3, args[0].string == Self.namespace, let key = args[1].string else { return }
        apply(key: key, value: args[2])
    }

    private func ownerChanged(_ m: BusMessage) {
        guard let args = m.readAll(), args.count == 3, let newOwner = args[2].string else { return }
        if newOwner.isEmpty {
            if reading != .absent { log("portal: \(Self.name) left the session bus; skipping it") }
            reading = .absent
            hints = AccessibilityHints()
            loggedAbsent = true
        } else {
            log("portal: \(Self.name) appeared on the session bus")
            useReadOne = true
            needsRead = true
        }
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
                log("portal: color-scheme has an unexpected value \(value); treating it as no preference")
                reading = .scheme(.noPreference)
            }
        case "contrast": hints.highContrast = value.uint32.map { $0 == 1 }
        case "reduced-motion": hints.reducedMotion = value.uint32.map { $0 == 1 }
        default: break
        }
    }

    /// Reads color-scheme, contrast and reduced-motion when a signal or start asked for it.
    func refreshIfNeeded(_ bus: Bus) {
        guard needsRead else { return }
        needsRead = false
        switch read(bus, "color-scheme") {
        case .success(let v?):
            apply(key: "color-scheme", value: v)
            loggedAbsent = false
        case .success(nil):
            reading = .scheme(.noPreference)
        case .failure(let e):
            reading = .absent
            hints = AccessibilityHints()
            if !loggedAbsent {
                log("portal: no appearance settings on the session bus (\(e.isNoOwner ? "\(Self.name) is not running" : e.description)); skipping it until it appears")
                loggedAbsent = true
            }
            return
        }
        for key in ["contrast", "reduced-motion"] {
            if case .success(let v) = read(bus, key) {
                if let v { apply(key: key, value: v) } else { apply(key: key, value: .other("-")) }
            }
        }
    }

    /// One setting: `.success(nil)` when the portal does not have it.
    private func read(_ bus: Bus, _ key: String) -> Result<BusValue?, BusError> {
        let args: [Bus.Arg] = [.string(Self.namespace), .string(key)]
        if useReadOne {
            let r = bus.call(destination: Self.name, path: Self.path, interface: Self.interface, member: "ReadOne",
                             args: args, timeoutUSec: timeoutUSec) { $0.readOne() }
            switch r {
            case .success(let v): return .success(v)
            case .failure(let e) where e.name == BusError.unknownMethod:
                useReadOne = false // portals before 1.18 (Debian 12's): only Read
            case .failure(let e) where e.name == "org.freedesktop.portal.Error.NotFound": return .success(nil)
            case .failure(let e): return .failure(e)
            }
        }
        let r = bus.call(destination: Self.name, path: Self.path, interface: Self.interface, member: "Read",
                         args: args, timeoutUSec: timeoutUSec) { $0.readOne() }
        switch r {
        case .success(let v): return .success(v)
        case .failure(let e) where e.name == "org.freedesktop.portal.Error.NotFound": return .success(nil)
        case .failure(let e): return .failure(e)
        }
    }
}

extension PortalClient {
    /// The session bus connection is gone.
    func lost() {
        markGone()
    }
}
