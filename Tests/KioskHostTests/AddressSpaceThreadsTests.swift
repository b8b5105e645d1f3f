import KioskSupport
import Testing
import Threads
@testable import KioskHost

/// The address space the kiosk says it needs counts the stacks of the threads it will start
/// (issue 43): a limit that leaves room for the display but not for those stacks is refused
/// in one line up front, before any thread starts.
@Suite struct AddressSpaceThreadsTests {
    let mapped = 45 << 20
    let pixels = 1024 * 768

    @Test func everyThreadAddsItsStack() {
        let none = ProcessLimits.addressSpaceForRun(pixels: pixels, mappedNow: mapped, threads: 0)
        let seven = ProcessLimits.addressSpaceForRun(pixels: pixels, mappedNow: mapped, threads: 7)
        #expect(seven - none == 7 * ProcessLimits.threadStackReservation)
        #expect(ProcessLimits.threadStackReservation > ThreadStacks.bytes)
        #expect(ProcessLimits.addressSpaceForRun(pixels: pixels, mappedNow: mapped) == none)
    }

    /// The run's threads: the caller's (appearance runner, writer, screen-reader bridge, fleet
    /// client), the render helpers (lanes - 1) and the host's (first page, input reader).
    @Test func theRunCountsItsThreads() {
        #expect(SDLHost.threadsForRun(callerThreads: 4, lanes: 2) == 4 + 1 + SDLHost.ownThreads)
        #expect(SDLHost.threadsForRun(callerThreads: 3, lanes: 1) == 3 + SDLHost.ownThreads)
        #expect(SDLHost.threadsForRun(callerThreads: 4, lanes: 8) - SDLHost.threadsForRun(callerThreads: 4, lanes: 2) == 6)
    }

    /// A limit that fits the page but not the threads' stacks is refused, the line naming the
    /// threads and a need that covers them; the stated need itself is accepted.
    @Test func aLimitWithoutRoomForTheStacksIsRefused() throws {
        let threads = SDLHost.threadsForRun(callerThreads: 4, lanes: 2)
        let withoutStacks = ProcessLimits.addressSpaceForRun(pixels: pixels, mappedNow: mapped, threads: 0)
        let need = ProcessLimits.addressSpaceForRun(pixels: pixels, mappedNow: mapped, threads: threads)
        let limit = UInt64(withoutStacks + (need - withoutStacks) / 2)
        let what = "a 1024x768 output and \(threads) threads"
        #expect(ProcessLimits.addressSpaceShortfall(need: withoutStacks, limit: limit, for: what) == nil)
        let line = try #require(ProcessLimits.addressSpaceShortfall(need: need, limit: limit, for: what))
        #expect(line.contains("\(threads) threads") && line.contains("LimitAS="), "\(line)")
        let mib = (need + (1 << 20) - 1) >> 20
        #expect(line.contains("needs at least \(mib) MiB"), "\(line)")
        #expect(ProcessLimits.addressSpaceShortfall(need: need, limit: UInt64(mib) << 20, for: what) == nil)
    }
}
