@testable import KioskHost
import Testing

@Suite struct InputScanScheduleTests {
    @Test func scansFirstThenOncePerInterval() {
        var s = InputScanSchedule(interval: 1000)
        #expect(s.due(now: 5))
        s.scanned(now: 5)
        #expect(!s.due(now: 5))
        #expect(!s.due(now: 1004))
        #expect(s.due(now: 1005))
        s.scanned(now: 1005)
        #expect(!s.due(now: 1500))
    }

    @Test func aKeptDescriptorThatWakesForNothingIsLookedForAgainAtOnce() {
        var s = InputScanSchedule(interval: 1000)
        s.scanned(now: 0)
        // Input SDL turned into an event: the list holds.
        s.woke(byKeptDescriptor: true, sdlHadEvent: true)
        #expect(!s.due(now: 1))
        // Woken by something else (the wake descriptor, a timeout): the list holds.
        s.woke(byKeptDescriptor: false, sdlHadEvent: false)
        #expect(!s.due(now: 2))
        // A kept descriptor ended the poll and SDL had nothing (closed, or reused by a file).
        s.woke(byKeptDescriptor: true, sdlHadEvent: false)
        #expect(s.due(now: 3))
        s.scanned(now: 3)
        #expect(!s.due(now: 4))
    }

    @Test func aClockThatSeemsToGoBackScansAgain() {
        var s = InputScanSchedule(interval: 1000)
        s.scanned(now: 5000)
        #expect(s.due(now: 4000))
    }
}
