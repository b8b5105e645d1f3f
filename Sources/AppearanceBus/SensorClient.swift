import Appearance
import SDBus

/// Ambient light through iio-sensor-proxy on the system bus: claims the light sensor, follows
/// `LightLevel` through PropertiesChanged, and feeds the hysteresis. Lives on the runner thread.
///
/// Only the sensor proxy is believed (issue 32, item 7): PropertiesChanged is matched with the
/// sender set to the unique name owning `net.hadess.SensorProxy` (GetNameOwner, then
/// NameOwnerChanged; the rule is replaced when the owner changes) and the handler drops
/// messages from any other sender. GetAll/ClaimLight go out asynchronously (item 15): a slow
/// proxy delays only the light sensor's reading.
final class SensorClient {
    static let name = "net.hadess.SensorProxy"
    static let path = "/net/hadess/SensorProxy"
    static let interface = "net.hadess.SensorProxy"

    private(set) var hysteresis: LightSensorHysteresis
    private(set) var present = false
    private(set) var claimed = false
    private(set) var unit = "lux"
    /// False until the first answer is in (owner known; when owned, the first refresh done).
    private(set) var settled = false
    private let owner = NameOwnerWatch(name: SensorClient.name)
    private var signalMatch: BusConnection.Match?
    private var generation = 0
    private var refreshing = false
    private var refreshAgain = false
    let timeoutUSec: UInt64
    let faults: FaultLog
    let now: () -> Double

    var reading: SourceReading { present && claimed ? .scheme(hysteresis.scheme) : .absent }
    var lux: Double? { hysteresis.lastLux }

    init(settings: LightSensorSettings, timeoutUSec: UInt64, now: @escaping () -> Double, faults: FaultLog) {
        hysteresis = LightSensorHysteresis(settings: settings)
        self.timeoutUSec = timeoutUSec
        self.now = now
        self.faults = faults
    }

    func attach(_ bus: BusConnection) {
        owner.start(bus, timeoutUSec: timeoutUSec, log: { [faults] in faults.note("light sensor: \($0)") },
                    spoofed: { [faults] sender in
                        faults.note("light sensor: ignored a NameOwnerChanged not sent by the bus", "(from \(sender))")
                    },
                    changed: { [weak self] new, first in self?.ownerChanged(bus, new, first: first) })
    }

    private func ownerChanged(_ bus: BusConnection, _ new: String?, first: Bool) {
        generation += 1
        refreshing = false
        refreshAgain = false
        if let m = signalMatch { bus.remove(m); signalMatch = nil }
        let wasPresent = present
        present = false
        claimed = false // a new owner has no claim of ours
        hysteresis.reset()
        guard let new else {
            if first {
                faults.note("light sensor: \(Self.name) is not running; skipping it until it appears")
            } else if wasPresent {
                faults.note("light sensor: \(Self.name) left the system bus; skipping it")
            }
            settled = true
            return
        }
        if !first { faults.note("light sensor: \(Self.name) appeared on the system bus", "(\(new))") }
        let rule = "type='signal',sender='\(new)',path='\(Self.path)',interface='org.freedesktop.DBus.Properties',"
            + "member='PropertiesChanged',arg0='\(Self.interface)'"
        signalMatch = bus.addMatch(rule, installFailed: { [faults] in faults.note("light sensor: \($0)") }) { [weak self] m in
            self?.propertiesChanged(bus, m)
        }
        refresh(bus)
    }

    private func propertiesChanged(_ bus: BusConnection, _ m: BusMessage) {
        guard let from = m.sender, from == owner.owner else {
            faults.note("light sensor: ignored a PropertiesChanged not sent by the sensor proxy",
                        "(from \(m.sender ?? "?"), the proxy is \(owner.owner ?? "not running"))")
            return
        }
        guard let args = m.readAll(), args.count >= 2, let changed = args[1].dictionary else {
            faults.note("light sensor: ignored a malformed PropertiesChanged")
            return
        }
        if let has = changed["HasAmbientLight"]?.bool, has != present {
            refresh(bus) // appeared or vanished: re-read and claim
        }
        if let u = changed["LightLevelUnit"]?.string { unit = u }
        if let level = changed["LightLevel"] {
            if let lux = level.double {
                if claimed { hysteresis.observe(lux: lux, at: now()) }
            } else {
                faults.note("light sensor: LightLevel is not a number", level.brief())
            }
        }
    }

    /// GetAll → (ClaimLight → GetAll) without waiting; one at a time, again when asked meanwhile.
    private func refresh(_ bus: BusConnection) {
        if refreshing { refreshAgain = true; return }
        refreshing = true
        let gen = generation
        getAll(bus, gen) { [weak self] props in
            guard let self else { return }
            guard let props, let has = props["HasAmbientLight"]?.bool else {
                return self.finish(bus, absent: "\(Self.name) does not answer")
            }
            guard has else {
                if self.claimed { self.release(bus) }
                return self.finish(bus, absent: "no ambient light sensor")
            }
            if self.claimed { return self.finish(bus, props: props) }
            let sent = bus.callAsync(BusTarget(Self.name, Self.path, Self.interface, "ClaimLight"),
                                     timeoutUSec: self.timeoutUSec) { [weak self] r in
                guard let self, gen == self.generation else { return }
                if case .failure(let e) = r { return self.finish(bus, absent: "ClaimLight failed: \(e)") }
                self.claimed = true
                // Read again after claiming: the level is only kept current for claimants.
                self.getAll(bus, gen) { [weak self] p in self?.finish(bus, props: p ?? [:]) }
            }
            if let sent { self.finish(bus, absent: "ClaimLight could not be sent: \(sent)") }
        }
    }

    private func finish(_ bus: BusConnection, props: [String: BusValue]) {
        present = true
        if let u = props["LightLevelUnit"]?.string {
            // iio-sensor-proxy says "lux" or "vendor"; vendor units are compared as they are.
            if u != "lux" && u != unit { faults.note("light sensor: levels are in \(u) units, not lux; thresholds compared as they are") }
            unit = u
        }
        if let level = props["LightLevel"]?.double { hysteresis.observe(lux: level, at: now()) }
        done(bus)
    }

    private func finish(_ bus: BusConnection, absent why: String) {
        present = false
        claimed = false
        hysteresis.reset()
        faults.note("light sensor: \(why); skipping it until it appears")
        done(bus)
    }

    private func done(_ bus: BusConnection) {
        settled = true
        refreshing = false
        if refreshAgain {
            refreshAgain = false
            refresh(bus)
        }
    }

    /// ReleaseLight without waiting (the sensor said it has no light sensor any more).
    private func release(_ bus: BusConnection) {
        claimed = false
        bus.callAsync(BusTarget(Self.name, Self.path, Self.interface, "ReleaseLight"), timeoutUSec: timeoutUSec) { _ in }
    }

    /// ReleaseLight, on stop: waits for the answer (nothing else runs then), briefly.
    @discardableResult
    func releaseOnStop(_ bus: BusConnection) -> Bool {
        guard claimed else { return true }
        claimed = false
        let r = bus.call(BusTarget(Self.name, Self.path, Self.interface, "ReleaseLight"),
                         timeoutUSec: min(timeoutUSec, 1_000_000)) { _ in () }
        if case .success = r { return true }
        return false
    }

    /// Moves a pending change whose hold time passed; returns the next deadline (monotonic s).
    func advance(to t: Double) -> Double? { hysteresis.advance(to: t) }
    var deadline: Double? { hysteresis.deadline }

    /// GetAll, answered with nil on failure; replies to an earlier owner are dropped.
    private func getAll(_ bus: BusConnection, _ gen: Int, _ done: @escaping ([String: BusValue]?) -> Void) {
        let sent = bus.callAsync(BusTarget(Self.name, Self.path, "org.freedesktop.DBus.Properties", "GetAll"), timeoutUSec: timeoutUSec,
                                  args: { $0.string(Self.interface) }) { [weak self] r in
            guard let self, gen == self.generation else { return }
            switch r {
            case .success(let m): done(m.readOne()?.dictionary ?? [:])
            case .failure: done(nil)
            }
        }
        if sent != nil { done(nil) }
    }
}

extension SensorClient {
    /// The system bus connection is gone.
    func lost() {
        present = false
        claimed = false
        hysteresis.reset()
        settled = true
    }
}
