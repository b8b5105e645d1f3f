import CSystemd
import LogLimit
import Glibc
import KioskEngine
import Synchronization
import SDBus
import Threads

/// Where the provider finds its buses and how it names itself.
public struct AccessibilityProviderOptions: Sendable {
    /// The session bus (nil: sd-bus's default, `DBUS_SESSION_BUS_ADDRESS`).
    public var sessionBusAddress: String?
    /// The accessibility bus (`AT_SPI_BUS_ADDRESS`); nil: asked of `org.a11y.Bus.GetAddress`.
    public var accessibilityBusAddress: String?
    public var toolkitName: String
    public var version: String
    /// The page's language as a POSIX locale ("en_US", "zh_CN").
    public var locale: String
    /// How long one method call to the registry or the bus launcher may take.
    public var callTimeoutSeconds: Double

    public init(sessionBusAddress: String? = nil, accessibilityBusAddress: String? = nil, toolkitName: String = "DarkModeKiosk",
                version: String = "1", locale: String = "en_US", callTimeoutSeconds: Double = 2) {
        self.sessionBusAddress = sessionBusAddress
        self.accessibilityBusAddress = accessibilityBusAddress
        self.toolkitName = toolkitName
        self.version = version
        self.locale = locale
        self.callTimeoutSeconds = callTimeoutSeconds
    }
}

/// What a screen reader asks of the page, handed to the host on the provider's thread.
public enum AccessibilityRequest: Equatable, Sendable {
    /// `DoAction`: activate the control exactly as a tap does.
    case activate(PageControl)
    /// `GrabFocus`: move the keyboard focus (and its ring) to the control.
    case focus(PageControl)
    /// The provider became active: send a snapshot now (nothing needs sending while inactive).
    case snapshotWanted
}

/// The page's AT-SPI2 tree on the accessibility bus, served from ONE helper thread that sleeps in
/// `poll()` (as `AppearanceRunner` does), so a registry that answers slowly or vanishes never
/// holds up a frame.
///
/// It joins while an accessibility bus exists and `org.a11y.Status.IsEnabled` is true on the
/// session bus, both watched (a screen reader started or stopped later turns it on or off):
/// connects to the bus (`AT_SPI_BUS_ADDRESS`, else `org.a11y.Bus.GetAddress`), serves the
/// objects under `/org/a11y/atspi`, embeds its root in the registry's (`Socket.Embed`), and
/// announces its frame (`Window:Activate`). The host hands it a snapshot of the page
/// (`update`, cheap: a lock and a wake-up) whenever the page changed; the provider emits the
/// events that turn the old tree into the new one. It leaves (`Socket.Unembed`, connection
/// closed) when IsEnabled turns false and at `stop()`.
public final class AccessibilityProvider: Sendable {
    public let options: AccessibilityProviderOptions
    private let onRequest: @Sendable (AccessibilityRequest) -> Bool
    private let log: @Sendable (String, Bool) -> Void
    private let shared = Mutex(Shared())
    private let service = ServiceThread()

    struct Shared: Sendable {
        var snapshot: AccessibleSnapshot?
        /// An accessibility bus exists: the host's snapshots are wanted.
        var wanted = false
        var active = false
        var threadID: Int32 = 0
    }

    /// `log` gets the lines worth a journal entry (joining, leaving, failures), each with
    /// whether it is only a debug line (a missing accessibility bus: one line, once).
    /// `onRequest` says whether the host took the request: `DoAction` and `GrabFocus` answer
    /// false when it did not (its queue is full: a client that floods them gets refusals, the
    /// frame loop a bounded amount of work).
    public init(options: AccessibilityProviderOptions, log: @escaping @Sendable (_ line: String, _ debug: Bool) -> Void,
                onRequest: @escaping @Sendable (AccessibilityRequest) -> Bool) {
        self.options = options
        self.log = log
        self.onRequest = onRequest
    }

    /// True while registered with the registry.
    public var isActive: Bool { shared.withLock { $0.active } }
    /// True while an accessibility bus exists (the host sends snapshots only then: with none,
    /// nothing of this runs on the frame path).
    public var wantsSnapshots: Bool { shared.withLock { $0.wanted } }
    /// The thread's kernel id, 0 before it runs (for CPU checks).
    public var threadID: Int32 { shared.withLock { $0.threadID } }

    /// The page as it is now; the provider's thread sends what changed. Any thread.
    public func update(_ snapshot: AccessibleSnapshot) {
        let changed = shared.withLock { s -> Bool in
            guard s.snapshot != snapshot else { return false }
            s.snapshot = snapshot
            return s.wanted
        }
        if changed { wake() }
    }

    private func wake() { service.wake() }

    @discardableResult
    public func start() -> Bool {
        service.start(name: "accessibility") { [self] in threadMain() }
    }

    /// Leaves the registry, closes the buses and joins the thread. Safe to call twice.
    public func stop() { service.stop() }

    // MARK: - The thread

    /// How much nicer than the rest of the process the provider's thread runs: a client that
    /// floods the accessibility bus gets its answers from CPU time the frame loop leaves over.
    static let threadNiceness: Int32 = 10

    private func threadMain() {
        let tid = csystemd_gettid()
        shared.withLock { $0.threadID = tid }
        // Linux's nice value is per thread (setpriority with a thread id); raising it needs no privilege.
        errno = 0
        let current = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(tid))
        if errno == 0 { _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(tid), min(19, current + Self.threadNiceness)) }
        let session = Session(provider: self)
        session.run()
        shared.withLock { $0.active = false; $0.wanted = false }
    }

    /// The thread's state: the buses, the tree as last announced.
    private final class Session {
        let provider: AccessibilityProvider
        let timeout: UInt64
        var sessionBus: BusConnection?
        var a11y: BusConnection?
        var enabled = false
        var launcherPresent = false {
            didSet {
                guard launcherPresent != oldValue else { return }
                provider.shared.withLock { $0.wanted = launcherPresent }
                if launcherPresent { _ = provider.onRequest(.snapshotWanted) }
            }
        }
        var needsEmbed = false
        var tree: AccessibleTree?
        var desktop: (bus: String, path: String) = ("", Atspi.nullPath)
        /// The registry's unique name when it took the page (its reply's sender): a registry
        /// that starts again under another name is embedded in again, the one that started
        /// because of our own `Embed` is not.
        var registryOwner = ""
        var appID: Int32 = 0
        var saidNoBus = false
        /// Joining, leaving and failing can repeat as fast as a client switches IsEnabled.
        let throttle: LogLimiter

        init(provider: AccessibilityProvider) {
            self.provider = provider
            timeout = UInt64(max(0.01, provider.options.callTimeoutSeconds) * 1e6)
            throttle = LogLimiter(burst: 3, now: Self.now) { [unowned provider] line in provider.log("accessibility: " + line, false) }
        }

        var options: AccessibilityProviderOptions { provider.options }
        func log(_ s: String, debug: Bool = false) { provider.log("accessibility: " + s, debug) }
        /// A line that can repeat: at most a few per cause a minute, the rest summed up (`LogLimiter`).
        func log(_ s: String, cause: String) { throttle.note(key: cause, line: s) }
        static func now() -> Double { Double(MonotonicClock.microseconds()) / 1e6 }

        func run() {
            switch BusConnection.open(options.sessionBusAddress.map(BusAddress.address) ?? .session, fileDescriptors: false) {
            case .success(let b): sessionBus = b
            case .failure(let e):
                log("\(e.message); screen readers cannot see the page", debug: true)
                return
            }
            guard let session = sessionBus else { return }
            _ = session.addMatchWaiting("type='signal',sender='\(Atspi.busName)',path='\(Atspi.busPath)',interface='\(Atspi.properties)',member='PropertiesChanged'") { [unowned self] m in
                if let on = Self.isEnabled(inPropertiesChanged: m) { self.enabled = on }
            }
            _ = session.addMatchWaiting("type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(Atspi.busName)'") { [unowned self] m in
                let r = m
                _ = r.string(); _ = r.string()
                let owner = r.string() ?? ""
                if owner.isEmpty { self.enabled = false; self.launcherPresent = false } else { self.queryEnabled() }
            }
            queryEnabled()

            var fds: [pollfd] = []
            while true {
                if enabled && a11y == nil && provider.shared.withLock({ $0.snapshot != nil }) { join() }
                if !enabled && a11y != nil { leave(reason: "screen reader support was switched off") }
                if needsEmbed, let bus = a11y { embed(bus) }
                sendChanges()

                let nowUS = MonotonicClock.microseconds()
                var deadline: UInt64? = nil
                let summary = throttle.deadline.map { UInt64(max(0, $0) * 1e6) }
                for d in [sessionBus?.deadlineUSec, a11y?.deadlineUSec, summary] { if let d { deadline = min(deadline ?? d, d) } }
                let timeoutMS: Int32 = deadline.map { d in d <= nowUS ? 0 : Int32(min(UInt64(Int32.max), (d - nowUS + 999) / 1000)) } ?? -1
                fds.removeAll(keepingCapacity: true)
                fds.append(pollfd(fd: provider.service.wakeDescriptor, events: Int16(POLLIN), revents: 0))
                if let b = sessionBus { fds.append(pollfd(fd: b.fd, events: b.events, revents: 0)) }
                if let b = a11y { fds.append(pollfd(fd: b.fd, events: b.events, revents: 0)) }
                let r = poll(&fds, nfds_t(fds.count), timeoutMS)
                if r < 0 && errno != EINTR { log("poll failed: \(String(cString: strerror(errno))); stopping"); break }
                if fds[0].revents != 0 { provider.service.drainWake() }
                if provider.service.stopping { break }
                throttle.flush(at: Self.now())
                if let b = sessionBus, let e = b.processAll() {
                    log("the session bus went away (\(e.message))", cause: "session bus lost")
                    b.close(); sessionBus = nil; enabled = false
                }
                if let b = a11y, let e = b.processAll() {
                    log("the accessibility bus went away (\(e.message))", cause: "bus lost")
                    b.close(); a11y = nil; tree = nil
                    provider.shared.withLock { $0.active = false }
                    // Joined again when the launcher says the bus is back.
                    enabled = false
                }
            }
            if a11y != nil { leave(reason: nil) }
            throttle.flushAll(at: Self.now())
            sessionBus?.close()
        }

        /// Reads `org.a11y.Status.IsEnabled`; no launcher means no accessibility bus (said once).
        func queryEnabled() {
            guard let session = sessionBus else { return }
            let r = session.call(BusTarget(Atspi.busName, Atspi.busPath, Atspi.properties, "Get"), timeoutUSec: timeout, autoStart: false,
                                 args: { $0.string(Atspi.statusInterface); $0.string("IsEnabled") },
                                 read: { $0.variant("b") { $0.bool() } })
            switch r {
            case .success(let on):
                launcherPresent = true
                enabled = on
            case .failure(let e):
                enabled = false
                launcherPresent = false
                if !saidNoBus {
                    saidNoBus = true
                    log(e.isNoOwner ? "no accessibility bus (\(Atspi.busName)) on the session bus; screen readers cannot see the page"
                                    : "cannot read \(Atspi.statusInterface).IsEnabled: \(e)", debug: true)
                }
            }
        }

        /// The `IsEnabled` value in a `PropertiesChanged(s, a{sv}, as)` of `org.a11y.Status`.
        static func isEnabled(inPropertiesChanged m: BusMessage) -> Bool? {
            guard m.string() == Atspi.statusInterface else { return nil }
            return m.inside("a", "{sv}") { list -> Bool? in
                var found: Bool?
                while list.inside("e", "sv", { e -> Bool? in
                    if e.string() == "IsEnabled" { found = e.variant("b") { $0.bool() } } else { e.skip("v") }
                    return true
                }) != nil {}
                return found
            }
        }

        func join() {
            var address = options.accessibilityBusAddress
            if address == nil, let session = sessionBus {
                switch session.call(BusTarget(Atspi.busName, Atspi.busPath, Atspi.busInterface, "GetAddress"), timeoutUSec: timeout,
                                    autoStart: false, read: { $0.string() }) {
                case .success(let a):
                    guard Atspi.isSocketAddress(a) else {
                        // Whoever owns org.a11y.Bus on the session bus names the address; sd-bus
                        // would run the program of a "unixexec:" one.
                        log("the accessibility bus address from \(Atspi.busName) is not a Unix socket (\(String(a.prefix(80))));"
                            + " not connecting", cause: "address")
                        enabled = false
                        return
                    }
                    address = a
                case .failure(let e):
                    log("cannot get the accessibility bus's address: \(e)", cause: "address")
                    enabled = false
                    return
                }
            }
            guard let address, !address.isEmpty else { enabled = false; return }
            let bus: BusConnection
            switch BusConnection.open(.address(address), fileDescriptors: false) {
            case .success(let b): bus = b
            case .failure(let e): log(e.message, cause: "connect"); enabled = false; return
            }
            if case .failure(let e) = bus.addObjects(under: "/org/a11y/atspi", { [unowned self] m in self.handle(m) }) {
                log("cannot serve the tree: \(e)", cause: "serve"); bus.close(); enabled = false; return
            }
            _ = bus.addMatchWaiting("type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(Atspi.registryName)'") { [unowned self] m in
                let r = m
                _ = r.string(); _ = r.string()
                if let owner = r.string(), !owner.isEmpty, owner != self.registryOwner { self.needsEmbed = true }
            }
            a11y = bus
            tree = provider.shared.withLock { $0.snapshot }.map(AccessibleTree.init)
            provider.shared.withLock { $0.active = true }
            embed(bus)
        }

        func embed(_ bus: BusConnection) {
            needsEmbed = false
            let me = bus.uniqueName ?? ""
            switch bus.call(BusTarget(Atspi.registryName, Atspi.rootPath, Atspi.socket, "Embed"), timeoutUSec: timeout,
                            args: { $0.reference(me, Atspi.rootPath) },
                            read: { r in r.reference().map { ($0, r.sender ?? "") } }) {
            case .success(let (parent, sender)):
                desktop = parent
                registryOwner = sender
                needsEmbed = false
                log("registered with the AT-SPI registry as \(me)", cause: "join")
                if let tree { activate(tree) }
            case .failure(let e):
                // The registry may start later: its NameOwnerChanged embeds again.
                log("the AT-SPI registry did not take the page (\(e)); waiting for it", cause: "embed")
            }
        }

        /// The frame is the active window (a kiosk has no window manager to say so).
        func activate(_ tree: AccessibleTree) {
            a11y?.signal(AccessibleTree.path(AccessibleTree.frame), Atspi.windowEvent, "Activate") { w in
                w.string(""); w.int32(0); w.int32(0)
                w.container("v", "s") { $0.string(tree.snapshot.title) }
                w.container("a", "{sv}") { _ in }
            }
        }

        func leave(reason: String?) {
            guard let bus = a11y else { return }
            let me = bus.uniqueName ?? ""
            _ = bus.call(BusTarget(Atspi.registryName, Atspi.rootPath, Atspi.socket, "Unembed"), timeoutUSec: min(timeout, 500_000),
                         args: { $0.reference(me, Atspi.rootPath) }, read: { _ in () })
            bus.close()
            a11y = nil
            tree = nil
            provider.shared.withLock { $0.active = false }
            log("left the AT-SPI registry" + (reason.map { ": \($0)" } ?? ""), cause: "leave")
        }

        /// Emits what changed since the tree last announced.
        func sendChanges() {
            guard let bus = a11y, let snapshot = provider.shared.withLock({ $0.snapshot }) else { return }
            let next = AccessibleTree(snapshot)
            guard let old = tree else {
                tree = next
                if !needsEmbed, desktop.path != Atspi.nullPath { activate(next) }
                return
            }
            guard old != next else { return }
            tree = next
            for e in next.events(from: old) {
                switch e {
                case .state(let node, let state, let on):
                    bus.signal(AccessibleTree.path(node), Atspi.objectEvent, "StateChanged") { w in
                        w.string(state.eventName); w.int32(on ? 1 : 0); w.int32(0)
                        w.container("v", "i") { $0.int32(0) }
                        w.container("a", "{sv}") { _ in }
                    }
                case .name(let node, let name):
                    bus.signal(AccessibleTree.path(node), Atspi.objectEvent, "PropertyChange") { w in
                        w.string("accessible-name"); w.int32(0); w.int32(0)
                        w.container("v", "s") { $0.string(name) }
                        w.container("a", "{sv}") { _ in }
                    }
                }
            }
        }

        // MARK: Method calls

        /// Every method call under `/org/a11y/atspi`. Each gets a reply or a D-Bus error: the
        /// object, the interface, the method and the arguments' signature are checked against
        /// `Atspi`'s table before anything is read (`Atspi.resolve`), so no argument is read at a
        /// type it does not have and nothing a caller sends is answered as if it were right.
        func handle(_ m: BusMessage) -> Bool {
            guard let bus = a11y else { return false }
            let path = m.path ?? ""
            let iface = m.interface ?? ""
            let member = m.member ?? ""
            let r = m
            var id: Int? = nil
            let served: [DBusInterface]
            var children: [String] = []
            if path == Atspi.cachePath {
                served = [Atspi.cacheInterface]
            } else if let tree, let n = tree.node(at: path) {
                id = n
                served = interfaces(tree, n)
            } else if let tree, let c = Self.containerChildren(path, tree) {
                // The folders above the objects: only for `Introspect` (what is below).
                served = []
                children = c
            } else {
                return refuse(bus, m, .unknownObject(path: path))
            }
            let method: DBusMethod
            let interface: DBusInterface
            switch Atspi.resolve(path: path, interface: iface, member: member, signature: r.signature, served: served) {
            case .failure(let e): return refuse(bus, m, e)
            case .success(let (i, found)): interface = i; method = found
            }
            switch interface.name {
            case Atspi.introspectable:
                return bus.reply(to: m) { $0.string(Atspi.introspection(interfaces: served, children: children)) }
            case Atspi.cache:
                return bus.reply(to: m) { $0.container("a", "((so)(so)(so)iiassusau)") { _ in } }
            case Atspi.properties:
                return properties(bus, m, r, id, served, path, method.name)
            default:
                // Only objects of the tree serve the AT-SPI interfaces.
                guard let tree, let id else { return refuse(bus, m, .unknownInterface(interface.name, path: path)) }
                switch interface.name {
                case Atspi.accessible: return accessible(bus, m, r, tree, id, method.name)
                case Atspi.application: return bus.reply(to: m) { $0.string(options.locale) }
                case Atspi.component: return component(bus, m, r, tree, id, method.name)
                case Atspi.action: return action(bus, m, r, tree, id, method.name)
                default: return refuse(bus, m, .unknownInterface(interface.name, path: path))
                }
            }
        }

        func refuse(_ bus: BusConnection, _ m: BusMessage, _ e: DBusRefusal) -> Bool {
            bus.replyError(to: m, e.name, e.message)
        }

        /// The child node names of a folder above the objects ("/org/a11y/atspi",
        /// "/org/a11y/atspi/accessible"), nil for any other path.
        static func containerChildren(_ path: String, _ tree: AccessibleTree) -> [String]? {
            switch path {
            case "/org/a11y/atspi": return ["accessible", "cache"]
            case Atspi.objectPrefix: return tree.nodes.indices.map { AccessibleTree.path($0).split(separator: "/").last.map(String.init) ?? "" }
            default: return nil
            }
        }

        func interfaces(_ tree: AccessibleTree, _ id: Int) -> [DBusInterface] {
            var out = [Atspi.accessibleInterface]
            if id == AccessibleTree.application { out.append(Atspi.applicationInterface) }
            if tree.nodes[id].rect != nil { out.append(Atspi.componentInterface) }
            if tree.nodes[id].action != nil { out.append(Atspi.actionInterface) }
            return out
        }

        func ref(_ id: Int?, _ bus: BusConnection) -> (String, String) {
            guard let id else { return ("", Atspi.nullPath) }
            return (bus.uniqueName ?? "", AccessibleTree.path(id))
        }

        /// Writes property `name` of `iface` as a variant; false when there is none.
        func property(_ w: inout BusWriter, _ bus: BusConnection, _ tree: AccessibleTree, _ id: Int, _ iface: String, _ name: String) -> Bool {
            let n = tree.nodes[id]
            switch (iface, name) {
            case (Atspi.accessible, "Name"): w.container("v", "s") { $0.string(n.name) }
            case (Atspi.accessible, "Description"), (Atspi.accessible, "HelpText"): w.container("v", "s") { $0.string("") }
            case (Atspi.accessible, "Parent"):
                let p = n.parent.map { ref($0, bus) } ?? desktop
                w.container("v", "(so)") { $0.reference(p.0, p.1) }
            case (Atspi.accessible, "ChildCount"): w.container("v", "i") { $0.int32(Int32(clamping: n.children.count)) }
            case (Atspi.accessible, "Locale"): w.container("v", "s") { $0.string(options.locale) }
            case (Atspi.accessible, "AccessibleId"): w.container("v", "s") { $0.string(n.control?.rawValue ?? (id == 1 ? "page" : "")) }
            case (Atspi.application, "ToolkitName") where id == AccessibleTree.application: w.container("v", "s") { $0.string(options.toolkitName) }
            case (Atspi.application, "Version") where id == AccessibleTree.application: w.container("v", "s") { $0.string(options.version) }
            case (Atspi.application, "AtspiVersion") where id == AccessibleTree.application: w.container("v", "s") { $0.string("2.1") }
            case (Atspi.application, "Id") where id == AccessibleTree.application: w.container("v", "i") { $0.int32(appID) }
            case (Atspi.action, "NActions") where n.action != nil: w.container("v", "i") { $0.int32(1) }
            default: return false
            }
            return true
        }

        /// `org.freedesktop.DBus.Properties` (signature already checked): `Get` and `GetAll` of an
        /// interface the object lacks → UnknownInterface, of a property it lacks →
        /// UnknownProperty; `Set` of a read-only property → PropertyReadOnly (as sd-bus and
        /// at-spi2-core's droute answer), of a value of the wrong type → InvalidArgs.
        func properties(_ bus: BusConnection, _ m: BusMessage, _ r: BusMessage, _ id: Int?, _ served: [DBusInterface],
                        _ path: String, _ member: String) -> Bool {
            guard let iface = r.string() else { return refuse(bus, m, .invalidArgs("no interface name")) }
            switch member {
            case "Get":
                guard let name = r.string() else { return refuse(bus, m, .invalidArgs("no property name")) }
                if case .failure(let e) = Atspi.property(name, of: iface, path: path, served: served) { return refuse(bus, m, e) }
                guard let tree, let id else { return refuse(bus, m, .unknownProperty(name, interface: iface)) }
                if bus.replyIf(to: m, { property(&$0, bus, tree, id, iface, name) }) { return true }
                return refuse(bus, m, .unknownProperty(name, interface: iface))
            case "GetAll":
                let list: [DBusInterface]
                switch Atspi.propertyInterfaces(iface, path: path, served: served) {
                case .failure(let e): return refuse(bus, m, e)
                case .success(let l): list = l
                }
                return bus.reply(to: m) { w in
                    w.container("a", "{sv}") { w in
                        guard let tree, let id else { return }
                        for i in list {
                            for p in i.properties {
                                w.container("e", "sv") { e in
                                    e.string(p.name)
                                    // The table and `property` agree; a gap would make the reply unsendable (an error), never a placeholder.
                                    _ = property(&e, bus, tree, id, i.name, p.name)
                                }
                            }
                        }
                    }
                }
            case "Set":
                guard let name = r.string() else { return refuse(bus, m, .invalidArgs("no property name")) }
                let type = r.variantContents() ?? ""
                if case .failure(let e) = Atspi.property(name, of: iface, path: path, served: served, settingType: type) {
                    return refuse(bus, m, e)
                }
                // The only writable property: Application.Id, which the registry sets.
                guard let v = r.variant("i", { $0.int32() }) else { return refuse(bus, m, .invalidArgs("Id takes an int32")) }
                appID = v
                return bus.reply(to: m) { _ in }
            default:
                return refuse(bus, m, .unknownMethod(member, interface: Atspi.properties, path: path))
            }
        }

        func accessible(_ bus: BusConnection, _ m: BusMessage, _ r: BusMessage, _ tree: AccessibleTree, _ id: Int, _ member: String) -> Bool {
            let n = tree.nodes[id]
            switch member {
            case "GetChildAtIndex":
                let i = Int(r.int32() ?? -1)
                let c = n.children.indices.contains(i) ? n.children[i] : nil
                let p = ref(c, bus)
                return bus.reply(to: m) { $0.reference(p.0, p.1) }
            case "GetChildren":
                return bus.reply(to: m) { w in
                    w.container("a", "(so)") { w in for c in n.children { let p = ref(c, bus); w.reference(p.0, p.1) } }
                }
            case "GetIndexInParent":
                let i = n.parent.flatMap { tree.nodes[$0].children.firstIndex(of: id) } ?? -1
                return bus.reply(to: m) { $0.int32(Int32(clamping: i)) }
            case "GetRelationSet": return bus.reply(to: m) { $0.container("a", "(ua(so))") { _ in } }
            case "GetRole": return bus.reply(to: m) { $0.uint32(n.role.rawValue) }
            case "GetRoleName", "GetLocalizedRoleName": return bus.reply(to: m) { $0.string(n.role.name) }
            case "GetState":
                return bus.reply(to: m) { w in w.container("a", "u") { w in for v in Atspi.words(n.states) { w.uint32(v) } } }
            case "GetAttributes":
                return bus.reply(to: m) { w in
                    w.container("a", "{ss}") { w in
                        w.container("e", "ss") { $0.string("toolkit"); $0.string(options.toolkitName) }
                    }
                }
            case "GetApplication":
                let p = ref(AccessibleTree.application, bus)
                return bus.reply(to: m) { $0.reference(p.0, p.1) }
            case "GetInterfaces":
                let list = interfaces(tree, id).map(\.name)
                return bus.reply(to: m) { w in w.container("a", "s") { w in for s in list { w.string(s) } } }
            default: return refuse(bus, m, .unknownMethod(member, interface: Atspi.accessible, path: AccessibleTree.path(id)))
            }
        }

        func component(_ bus: BusConnection, _ m: BusMessage, _ r: BusMessage, _ tree: AccessibleTree, _ id: Int, _ member: String) -> Bool {
            /// The coordinate type argument's origin, or an InvalidArgs reply.
            func origin(_ type: UInt32?) -> (x: Int64, y: Int64)? { type.flatMap { tree.origin($0) } }
            let badType = DBusRefusal.invalidArgs("the coordinate type is not 0 (screen), 1 (window) or 2 (parent)")
            switch member {
            case "GetExtents", "GetPosition":
                guard let o = origin(r.uint32()) else { return refuse(bus, m, badType) }
                let e = tree.extents(of: id, origin: o)
                if member == "GetPosition" { return bus.reply(to: m) { $0.int32(e.x); $0.int32(e.y) } }
                return bus.reply(to: m) { w in w.container("r", "iiii") { $0.int32(e.x); $0.int32(e.y); $0.int32(e.width); $0.int32(e.height) } }
            case "GetSize":
                let e = tree.extents(of: id, origin: (0, 0))
                return bus.reply(to: m) { $0.int32(e.width); $0.int32(e.height) }
            case "Contains", "GetAccessibleAtPoint":
                guard let x = r.int32(), let y = r.int32(), let o = origin(r.uint32()) else { return refuse(bus, m, badType) }
                // A point beyond the 32-bit screen is outside every object.
                let p = AccessibleTree.screenPoint(x: x, y: y, origin: o)
                if member == "Contains" {
                    let inside = p.map { tree.nodes[id].rect?.contains(x: $0.x, y: $0.y) == true } ?? false
                    return bus.reply(to: m) { $0.bool(inside) }
                }
                let hit = p.flatMap { tree.node(atX: $0.x, y: $0.y, in: id) }.flatMap { $0 == id ? nil : $0 }
                let ref = ref(hit, bus)
                return bus.reply(to: m) { $0.reference(ref.0, ref.1) }
            case "GetLayer":
                // ATSPI_LAYER_WINDOW for the frame, ATSPI_LAYER_WIDGET for the controls.
                return bus.reply(to: m) { $0.uint32(id == AccessibleTree.frame ? 7 : 3) }
            case "GetMDIZOrder": return bus.reply(to: m) { $0.int16(0) }
            case "GetAlpha": return bus.reply(to: m) { $0.double(1) }
            case "GrabFocus":
                guard let c = tree.nodes[id].control else { return bus.reply(to: m) { $0.bool(false) } }
                let taken = provider.onRequest(.focus(c))
                return bus.reply(to: m) { $0.bool(taken) }
            default: return refuse(bus, m, .unknownMethod(member, interface: Atspi.component, path: AccessibleTree.path(id)))
            }
        }

        func action(_ bus: BusConnection, _ m: BusMessage, _ r: BusMessage, _ tree: AccessibleTree, _ id: Int, _ member: String) -> Bool {
            let n = tree.nodes[id]
            let name = n.action ?? ""
            switch member {
            case "GetActions":
                return bus.reply(to: m) { w in
                    w.container("a", "(sss)") { w in w.container("r", "sss") { $0.string(name); $0.string(""); $0.string("space") } }
                }
            case "GetName", "GetLocalizedName", "GetDescription", "GetKeyBinding":
                let i = r.int32() ?? -1
                let text = i != 0 ? "" : member == "GetDescription" ? "" : member == "GetKeyBinding" ? "space" : name
                return bus.reply(to: m) { $0.string(text) }
            case "DoAction":
                guard r.int32() == 0, let c = n.control else { return bus.reply(to: m) { $0.bool(false) } }
                let taken = provider.onRequest(.activate(c))
                return bus.reply(to: m) { $0.bool(taken) }
            default: return refuse(bus, m, .unknownMethod(member, interface: Atspi.action, path: AccessibleTree.path(id)))
            }
        }
    }
}
