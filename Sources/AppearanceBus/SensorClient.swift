import Appearance

/// Ambient light through iio-sensor-proxy on the system bus: claims the light sensor, follows
/// `LightLevel` through PropertiesChanged, and feeds the hysteresis. Lives on the runner thread.
final class SensorClient {
    static let name = "net.hadess.SensorProxy"
    static let path = "/net/hadess/SensorProxy"
    static let interface = "net.hadess.SensorProxy"

    private(set) var hysteresis: LightSensorHysteresis
    private(set) var present = false
    private(set) var claimed = false
    private(set) var unit = "lux"
    private var needsRead = false
    private var loggedAbsent = false
    let timeoutUSec: UInt64
    let log: (String) -> Void
    let now: () -> Double

    var reading: SourceReading { present && claimed ? .scheme(hysteresis.scheme) : .absent }
    var lux: Double? { hysteresis.lastLux }

    init(settings: LightSensorSettings, timeoutUSec: UInt64, now: @escaping () -> Double, log: @escaping (String) -> Void) {
        hysteresis = LightSensorHysteresis(settings: settings)
        self.timeoutUSec = timeoutUSec
        self.now = now
        self.log = log
    }

    func attach(_ bus: Bus) {
        let props = "type='signal',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',path='\(Self.path)',arg0='\(Self.interface)'"
        if let e = bus.addMatch(props, { [weak self] m in self?.propertiesChanged(m) }) { log("light sensor: \(e)") }
        let owner = "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(Self.name)'"
        if let e = bus.addMatch(owner, { [weak self] m in self?.ownerChanged(m) }) { log("light sensor: \(e)") }
        needsRead = true
    }

    private func propertiesChanged(_ m: BusMessage) {
        guard let args = m.readAll(), args.count >= 2, let changed = args[1].dictionary else { return }
        if let has = changed["HasAmbientLight"]?.bool, has != present {
            needsRead = true // appeared or vanished: re-read and claim
        }
        if let u = changed["LightLevelUnit"]?.string { unit = u }
        if let level = changed["LightLevel"]?.double, claimed {
            hysteresis.observe(lux: level, at: now())
        }
    }

    private func ownerChanged(_ m: BusMessage) {
        guard let args = m.readAll(), args.count == 3, let newOwner = args[2].string else { return }
        if newOwner.isEmpty {
            if present { log("light sensor: \(Self.name) left the system bus; skipping it") }
            present = false
            claimed = false
            hysteresis.reset()
            loggedAbsent = true
        } else {
            log("light sensor: \(Self.name) appeared on the system bus")
            needsRead = true
        }
    }

    func refreshIfNeeded(_ bus: Bus) {
        guard needsRead else { return }
        needsRead = false
        guard case .success(let props) = getAll(bus), let has = props["HasAmbientLight"]?.bool else {
            markAbsent("\(Self.name) is not running")
            return
        }
        guard has else {
            if claimed { _ = release(bus) }
            markAbsent("no ambient light sensor")
            return
        }
        if !claimed {
            let r = bus.call(destination: Self.name, path: Self.path, interface: Self.interface, member: "ClaimLight",
                             timeoutUSec: timeoutUSec) { _ in () }
            if case .failure(let e) = r { markAbsent("ClaimLight failed: \(e)"); return }
            claimed = true
        }
        present = true
        loggedAbsent = false
        // Read again after claiming: the level is only kept current for claimants.
        if case .success(let p) = getAll(bus) {
            if let u = p["LightLevelUnit"]?.string {
                // iio-sensor-proxy says "lux" or "vendor"; vendor units are compared as they are.
                if u != "lux" && u != unit { log("light sensor: levels are in \(u) units, not lux; thresholds compared as they are") }
                unit = u
            }
            if let level = p["LightLevel"]?.double { hysteresis.observe(lux: level, at: now()) }
        }
    }

    /// ReleaseLight, on stop.
    @discardableResult
    func release(_ bus: Bus) -> Bool {
        guard claimed else { return true }
        claimed = false
        let r = bus.call(destination: Self.name, path: Self.path, interface: Self.interface, member: "ReleaseLight",
                         timeoutUSec: timeoutUSec) { _ in () }
        if case .success = r { return true }
        return false
    }

    /// Moves a pending change whose hold time passed; returns the next deadline (monotonic s).
    func advance(to t: Double) -> Double? { hysteresis.advance(to: t) }
    var deadline: Double? { hysteresis.deadline }

    private func getAll(_ bus: Bus) -> Result<[String: BusValue], BusError> {
        bus.call(destination: Self.name, path: Self.path, interface: "org.freedesktop.DBus.Properties", member: "GetAll",
                 args: [.string(Self.interface)], timeoutUSec: timeoutUSec) { $0.readOne()?.dictionary ?? [:] }
    }

    private func markAbsent(_ why: String) {
        present = false
        claimed = false
        hysteresis.reset()
        if !loggedAbsent {
            log("light sensor: \(why); skipping it until it appears")
            loggedAbsent = true
        }
    }
}

extension SensorClient {
    /// The system bus connection is gone.
    func lost() {
        present = false
        claimed = false
        hysteresis.reset()
    }
}
