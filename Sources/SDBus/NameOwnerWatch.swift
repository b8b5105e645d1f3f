/// The unique name owning a well-known name, followed across owner changes: `GetNameOwner`
/// at start (sent without waiting) and `NameOwnerChanged` from the bus itself after. Signals
/// that claim to come from the bus but do not (a unicast spoof) are dropped: the handler
/// checks the sender, not only the match rule.
public final class NameOwnerWatch {
    public static let busName = "org.freedesktop.DBus"
    public let name: String
    /// The owner now; nil while nobody owns the name (or before the first answer).
    public private(set) var owner: String?
    /// True once GetNameOwner answered (or failed): the owner is known.
    public private(set) var known = false

    public init(name: String) { self.name = name }

    /// Starts following; `changed(owner, first)` runs on each change of owner and once for
    /// the first answer (`first` true). Returns an error line when a request could not be sent.
    public func start(_ bus: BusConnection, timeoutUSec: UInt64, log: @escaping (String) -> Void,
               spoofed: @escaping (String) -> Void, changed: @escaping (String?, Bool) -> Void) {
        let rule = "type='signal',sender='\(Self.busName)',path='/org/freedesktop/DBus',interface='org.freedesktop.DBus',"
            + "member='NameOwnerChanged',arg0='\(name)'"
        bus.addMatch(rule, installFailed: log) { [weak self] m in
            guard let self else { return }
            guard m.sender == Self.busName else { spoofed(m.sender ?? "?"); return }
            guard let args = m.readAll(), args.count == 3, args[0].string == self.name, let new = args[2].string else { return }
            let next: String? = new.isEmpty ? nil : new
            self.settle(next, changed)
        }
        let sent = bus.callAsync(BusTarget(Self.busName, "/org/freedesktop/DBus", Self.busName, "GetNameOwner"),
                                 timeoutUSec: timeoutUSec, args: { [name] in $0.string(name) }) { [weak self] r in
            // Applied in arrival order: the bus answers after any NameOwnerChanged it sent us
            // before, so this answer is at least as new as those.
            guard let self else { return }
            let next: String?
            switch r {
            case .success(let m): next = m.readOne()?.string
            case .failure: next = nil // NameHasNoOwner (or the bus did not answer)
            }
            self.settle(next, changed)
        }
        if let sent { log("GetNameOwner(\(name)): \(sent)"); known = true; changed(nil, true) }
    }

    /// Takes `next` as the owner; tells `changed` when it differs or is the first answer.
    private func settle(_ next: String?, _ changed: (String?, Bool) -> Void) {
        let first = !known
        known = true
        if next != owner || first {
            owner = next
            changed(next, first)
        }
    }
}
