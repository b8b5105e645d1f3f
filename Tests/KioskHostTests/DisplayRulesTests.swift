import Testing
@testable import KioskHost

/// A display that comes and goes, by the pure rules: which kernel uevents ask for a rescan, a
/// burst read as one, which connector the page goes to, what a rescan means.
@Suite struct DisplayRulesTests {
    static func uevent(_ header: String, _ pairs: [String]) -> [UInt8] {
        ([header] + pairs).flatMap { Array($0.utf8) + [0] }
    }

    static let hotplug = uevent("change@/devices/pci0000:00/0000:00:02.0/drm/card0",
                                ["ACTION=change", "DEVPATH=/devices/pci0000:00/0000:00:02.0/drm/card0", "SUBSYSTEM=drm",
                                 "HOTPLUG=1", "CONNECTOR=35", "DEVNAME=dri/card0", "SEQNUM=2811"])

    @Test func aKernelUeventIsParsedIntoItsProperties() throws {
        let e = try #require(DisplayRules.parseUevent(Self.hotplug))
        #expect(e["ACTION"] == "change")
        #expect(e["SUBSYSTEM"] == "drm")
        #expect(e["HOTPLUG"] == "1")
        #expect(e["CONNECTOR"] == "35")
    }

    @Test func udevdsOwnMessagesAndGarbageAreNotUevents() {
        #expect(DisplayRules.parseUevent(Array("libudev".utf8) + [0, 0xfe, 0xed, 0xca, 0xfe]) == nil)
        #expect(DisplayRules.parseUevent([]) == nil)
        #expect(DisplayRules.parseUevent(Self.uevent("change@/x", ["SUBSYSTEM=drm"])) == nil)  // no ACTION
    }

    @Test func aDrmChangeWithHotplugOrASyntheticOneAsksForARescan() throws {
        #expect(DisplayRules.asksForRescan(try #require(DisplayRules.parseUevent(Self.hotplug))))
        let synthetic = Self.uevent("change@/devices/x/drm/card0", ["ACTION=change", "SUBSYSTEM=drm", "SYNTH_UUID=0"])
        #expect(DisplayRules.asksForRescan(try #require(DisplayRules.parseUevent(synthetic))))
    }

    @Test func otherEventsDoNot() throws {
        let cases: [[String]] = [
            ["ACTION=add", "SUBSYSTEM=drm", "HOTPLUG=1"],                // a card added: opened at start or not at all
            ["ACTION=change", "SUBSYSTEM=drm"],                          // a change without HOTPLUG (e.g. a lease)
            ["ACTION=change", "SUBSYSTEM=drm", "HOTPLUG=0"],
            ["ACTION=change", "SUBSYSTEM=input", "HOTPLUG=1"],
            ["ACTION=remove", "SUBSYSTEM=drm", "SYNTH_UUID=0"],
        ]
        for pairs in cases {
            let e = try #require(DisplayRules.parseUevent(Self.uevent("x@/y", pairs)))
            #expect(!DisplayRules.asksForRescan(e), "\(pairs)")
        }
    }

    @Test func aBurstOfFiftyEventsIsOneRescanAfterItSettles() {
        var c = DisplayRules.RescanCoalescer()
        #expect(c.deadline == nil)
        var due = c.take(at: 10)
        #expect(!due)
        for i in 0..<50 { c.event(at: 10 + Double(i) * 0.001) }
        #expect(c.pending == 50)
        due = c.take(at: 10.1)
        #expect(!due)                                               // 0.051 s after the last: not yet
        #expect(c.deadline == 10.049 + DisplayRules.RescanCoalescer.quiet)
        due = c.take(at: 10.15)
        #expect(due)
        due = c.take(at: 10.2)
        #expect(!due)                                               // once
        #expect(c.deadline == nil && c.pending == 0)
    }

    @Test func aBurstThatNeverEndsIsStillReadWithinTheLongestWait() {
        var c = DisplayRules.RescanCoalescer()
        var rescans = 0
        var t = 0.0
        while t < 2 {
            c.event(at: t)
            if c.take(at: t) { rescans += 1 }
            t += 0.05
        }
        // An event every 50 ms for 2 s: the quiet gap never comes, the longest wait (0.5 s) does.
        #expect(rescans == 3)
    }

    @Test func theNamedConnectorWinsWhenConnectedElseTheFirstConnected() {
        let all = [DisplayRules.Connector(name: "HDMI-A-1", usable: false),
                   DisplayRules.Connector(name: "HDMI-A-2", usable: true),
                   DisplayRules.Connector(name: "DP-1", usable: true)]
        #expect(DisplayRules.pickConnector(all, wanted: "DP-1") == 2)
        #expect(DisplayRules.pickConnector(all, wanted: nil) == 1)
        // The named one is gone: the page moves to another that is connected.
        #expect(DisplayRules.pickConnector(all, wanted: "HDMI-A-1") == 1)
        #expect(DisplayRules.pickConnector(all, wanted: "VGA-9") == 1)
        #expect(DisplayRules.pickConnector(all.map { .init(name: $0.name, usable: false) }, wanted: nil) == nil)
        #expect(DisplayRules.pickConnector([], wanted: "DP-1") == nil)
    }

    @Test func connectorNamesAreTheKernels() {
        #expect(DisplayRules.connectorName(type: 11, typeID: 1) == "HDMI-A-1")
        #expect(DisplayRules.connectorName(type: 15, typeID: 1) == "Virtual-1")
        #expect(DisplayRules.connectorName(type: 14, typeID: 2) == "eDP-2")
        #expect(DisplayRules.connectorName(type: 99, typeID: 3) == "Unknown-3")
    }

    @Test func whatARescanMeans() {
        typealias O = DisplayRules.Output
        let tv = O(connector: "HDMI-A-1", width: 1920, height: 1080, refresh: 60)
        let drawn = (width: 1920, height: 1080)
        #expect(DisplayRules.change(before: tv, after: tv, drawnFor: drawn) == .unchanged)
        #expect(DisplayRules.change(before: tv, after: nil, drawnFor: drawn) == .lost)
        #expect(DisplayRules.change(before: nil, after: nil, drawnFor: drawn) == .unchanged)
        // Back after a loss, the same mode: the buffers stay.
        #expect(DisplayRules.change(before: nil, after: tv, drawnFor: drawn) == .found(resized: false))
        // Another connector with the same mode: a modeset, no new layout.
        var other = tv
        other.connector = "HDMI-A-2"
        #expect(DisplayRules.change(before: tv, after: other, drawnFor: drawn) == .found(resized: false))
        // Another mode: laid out again.
        let small = O(connector: "HDMI-A-1", width: 1280, height: 720, refresh: 60)
        #expect(DisplayRules.change(before: tv, after: small, drawnFor: drawn) == .found(resized: true))
        // The first display after a start without one (drawn for the stand-in size).
        #expect(DisplayRules.change(before: nil, after: tv, drawnFor: DisplayRules.standInSize) == .found(resized: true))
    }
}
