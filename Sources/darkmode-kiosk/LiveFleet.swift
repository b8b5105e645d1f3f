import Appearance
import Fleet
import FleetMQTT
import KioskEngine
import KioskHost
import KioskSupport
import KioskTools
import LogLimit
import Log
import Threads

/// The fleet in `run` (issue 43, docs/fleet.md): an `MQTTClient` on its own thread; its
/// commands arrive in a `Mailbox` (typed `FleetCommandArrival`s) that wakes the frame loop,
/// which applies them as a person's choice (`KioskApp.choosePreference`: animates, and the
/// output goes to the saver like a tap's). After each loop pass (`pageShown`) the state is
/// compared with the last one sent; when it differs in substance the new state JSON goes to the
/// client thread (`publishState`), which publishes it at once (the loop never waits on the
/// network). Display commands (`display/set`: `on`, `sleep`) go to the loop's screen sleep
/// (`takeDisplayRequest`); the state says what the display does (`hostShown`). The frame
/// statistics cover exactly the last minute of `framePresented` times (`FrameTimeWindow`) and
/// are sent with each state, and with a refresh once a minute.
final class LiveFleet: HostEventHandler {
    let client: MQTTClient
    private let onCommit: (KioskOutput) -> Void
    private let logs: SharedLogLimiter
    private let version: String
    private let startedAt = MonotonicClock.seconds()
    private var sent: FleetState?
    private var sentAt = 0.0
    /// The times between the frames presented in exactly the last minute (ms): O(1) a frame.
    private var frameTimes = FrameTimeWindow(seconds: 60)
    private var lastPresent: Double?
    /// Seconds between refreshes of the state (uptime, frame statistics) when nothing changes.
    static let refreshSeconds = 60.0

    init(setup: FleetSetup, version: String, logs: SharedLogLimiter, onCommit: @escaping (KioskOutput) -> Void) {
        let options = MQTTClientOptions(settings: setup.settings, clientId: setup.clientId, password: setup.password, version: version)
        client = MQTTClient(options: options, log: { Log.info($0) }, faults: logs)
        self.onCommit = onCommit
        self.logs = logs
        self.version = version
        let b = setup.settings.broker
        if !b.tls && !b.isLoopback {
            Log.warning("mqtt: plain mqtt:// to \(b.host), which is not this machine: commands and the password cross the network unencrypted; use mqtts://")
        }
    }

    func start() {
        if !client.start() { Log.error("mqtt: could not start its thread; the fleet is off") }
    }

    // MARK: HostEventHandler

    func start(app: KioskApp, poster: HostEventPoster, now: Double) {
        client.commands.attach { poster.wake() }
    }

    func handle(app: KioskApp, now: Double) {
        for c in client.commands.drain() {
            let from: String
            switch (c.addressee, c.order) {
            case (.kiosk, .appearance): from = client.topics.command
            case (.kiosk, .display): from = client.topics.displayCommand
            case (.group(let g), .appearance): from = client.topics.groupCommand(g)
            case (.group(let g), .display): from = client.topics.groupDisplayCommand(g)
            }
            switch c.order {
            case .appearance(let choice):
                let preference: AppearancePreference
                switch choice {
                case .system: preference = .system
                case .light: preference = .light
                case .dark: preference = .dark
                }
                if let output = app.choosePreference(preference, at: now) {
                    commandArrival = min(commandArrival ?? c.at, c.at)
                    logs.note(key: "mqtt command", line: "mqtt: \(choice.rawValue) from \(from)")
                    onCommit(output)
                }
            case .display(let d):
                logs.note(key: "mqtt display command", line: "mqtt: display \(d.rawValue) from \(from)")
                displayRequest = d == .on ? .on : .sleep
            }
        }
    }

    /// The oldest arrival (client thread, CLOCK_MONOTONIC) of the commands just handled that
    /// changed the page: the latency ledger's `command` kind.
    private var commandArrival: Double?

    func takeCommandArrival() -> Double? {
        defer { commandArrival = nil }
        return commandArrival
    }

    /// The last display command of the commands just handled, for the loop.
    private var displayRequest: DisplayRequest?
    /// What the display does, as the loop last said.
    private var display: DisplayState = .on

    var controlsDisplay: Bool { true }

    func takeDisplayRequest() -> DisplayRequest? {
        defer { displayRequest = nil }
        return displayRequest
    }

    func hostShown(_ facts: HostFacts) { display = facts.display }

    func framePresented() {
        let t = MonotonicClock.seconds()
        if let last = lastPresent, t - last < 1 {
            frameTimes.add(at: t, milliseconds: (t - last) * 1000)
        }
        lastPresent = t
    }

    func pageShown(app: KioskApp, placement: ScreenPlacement) {
        let choice: FleetAppearance
        switch app.appearancePreference {
        case .system: choice = .system
        case .light: choice = .light
        case .dark: choice = .dark
        }
        var state = FleetState(preference: choice, dark: app.isDarkMode, source: app.appearanceDecider, version: version)
        state.display = display.rawValue
        let now = MonotonicClock.seconds()
        if let sent, !state.differsInSubstance(from: sent), now - sentAt < Self.refreshSeconds { return }
        state.uptime = now - startedAt
        state.frames = frameTimes.statistics(now: now)
        sent = state
        sentAt = now
        client.publishState(state.json.text)
    }

    func passEnded() -> Double? {
        guard sent != nil else { return nil }
        return max(0, sentAt + Self.refreshSeconds - MonotonicClock.seconds())
    }

    func stop() { client.stop() }
}
