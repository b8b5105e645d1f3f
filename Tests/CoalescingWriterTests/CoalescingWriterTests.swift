import Foundation
import Testing
import CoalescingWriter

/// What the injected save saw, in order (thread-safe).
final class SaveLog: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Int] = []
    func append(_ v: Int) { lock.lock(); values.append(v); lock.unlock() }
    var saved: [Int] { lock.lock(); defer { lock.unlock() }; return values }
}

/// A gate the save waits at, so a test controls exactly when a save finishes.
final class Gate: @unchecked Sendable {
    private let condition = NSCondition()
    private var open = false
    private var waiting = 0
    func pass() {
        condition.lock()
        waiting += 1
        condition.broadcast()
        while !open { condition.wait() }
        condition.unlock()
    }
    func openGate() { condition.lock(); open = true; condition.broadcast(); condition.unlock() }
    /// Waits (up to 5 s) until a save is parked at the gate.
    func awaitWaiter() -> Bool {
        let deadline = Date(timeIntervalSinceNow: 5)
        condition.lock(); defer { condition.unlock() }
        while waiting == 0 { if !condition.wait(until: deadline) { return false } }
        return true
    }
}

struct DiskFull: Error, CustomStringConvertible { var description: String { "no space left on device" } }

@Suite struct CoalescingWriterTests {
    @Test func manySubmitsDuringASlowSaveEndWithTheLastValueSavedOnce() throws {
        let log = SaveLog()
        // 200 ms per save: the injected slow fsync of issue 15.
        let writer = CoalescingWriter<Int>(save: { v in usleep(200_000); log.append(v) })
        for v in 1...50 { writer.submit(v); usleep(2_000) }  // 50 commits in ~100 ms
        #expect(writer.flush(timeout: 10) == .written)
        let saved = log.saved
        #expect(saved.last == 50)
        // The first save started with an early value; everything after it coalesced into one.
        #expect(saved.count <= 3, "saved \(saved)")
        #expect(saved == saved.sorted(), "saves out of order: \(saved)")
        #expect(writer.statistics.submitted == 50)
        #expect(writer.statistics.saves == saved.count)
    }

    @Test func submitDoesNotWaitForARunningSave() throws {
        let log = SaveLog()
        let gate = Gate()
        let writer = CoalescingWriter<Int>(save: { v in gate.pass(); log.append(v) })
        writer.submit(1)
        #expect(gate.awaitWaiter(), "the first save never started")
        // The save is parked at the gate: these return only because submit does not wait for it.
        for v in 2...5 { writer.submit(v) }
        #expect(log.saved.isEmpty)
        #expect(writer.flush(timeout: 0.05) == .timedOut)
        gate.openGate()
        #expect(writer.flush(timeout: 10) == .written)
        #expect(log.saved == [1, 5])
    }

    @Test func flushWaitsForTheSaveInProgress() throws {
        let log = SaveLog()
        let writer = CoalescingWriter<Int>(save: { v in usleep(200_000); log.append(v) })
        writer.submit(7)
        // Returning .written means the save finished before flush returned.
        #expect(writer.flush(timeout: 10) == .written)
        #expect(log.saved == [7])
    }

    @Test func flushWithNothingSubmittedReturnsAtOnce() {
        let writer = CoalescingWriter<Int>(save: { _ in Issue.record("nothing to save") })
        #expect(writer.flush(timeout: 0) == .written)
        #expect(writer.statistics == .init())
    }

    @Test func aValueEqualToTheSavedOneIsNotSavedAgain() throws {
        let log = SaveLog()
        let gate = Gate()
        let writer = CoalescingWriter<Int>(save: { v in gate.pass(); log.append(v) })
        writer.submit(1)
        #expect(gate.awaitWaiter())
        writer.submit(0)  // toggled off …
        writer.submit(1)  // … and on again while 1 was being saved: the file already says 1
        gate.openGate()
        #expect(writer.flush(timeout: 10) == .written)
        #expect(log.saved == [1])
        #expect(writer.statistics.skippedAsSame == 1)
        writer.submit(1)
        #expect(writer.flush(timeout: 10) == .written)
        #expect(log.saved == [1])
        writer.submit(0)
        #expect(writer.flush(timeout: 10) == .written)
        #expect(log.saved == [1, 0])
    }

    @Test func aFailedSaveIsReportedAndTheNextValueIsStillSaved() throws {
        let log = SaveLog()
        let failing = SaveLog()  // values whose save should fail
        failing.append(2)
        let errors = SaveLog()
        let writer = CoalescingWriter<Int>(
            save: { v in if failing.saved.contains(v) { throw DiskFull() }; log.append(v) },
            onError: { _ in errors.append(1) })
        writer.submit(2)
        #expect(writer.flush(timeout: 10) == .failed("no space left on device"))
        #expect(errors.saved.count == 1)
        writer.submit(3)
        #expect(writer.flush(timeout: 10) == .written)
        #expect(log.saved == [3])
    }

    @Test func afterAFailureAnEqualValueIsSavedAgain() throws {
        let attempts = SaveLog()
        let writer = CoalescingWriter<Int>(save: { v in
            attempts.append(v)
            if attempts.saved.count == 2 { throw DiskFull() }
        })
        writer.submit(1)
        #expect(writer.flush(timeout: 10) == .written)
        writer.submit(2)
        #expect(writer.flush(timeout: 10) == .failed("no space left on device"))
        writer.submit(2)  // the disk state after a failed save is unknown: try again
        #expect(writer.flush(timeout: 10) == .written)
        #expect(attempts.saved == [1, 2, 2])
    }

    @Test func closeFlushesTheLastValueAndIgnoresLaterSubmits() throws {
        let log = SaveLog()
        let writer = CoalescingWriter<Int>(save: { v in usleep(50_000); log.append(v) })
        writer.submit(1); writer.submit(2)
        #expect(writer.close(timeout: 10) == .written)
        #expect(log.saved.last == 2)
        let before = log.saved
        writer.submit(3)
        usleep(100_000)
        #expect(log.saved == before)
    }

    @Test func theWriterThreadEndsWhenTheWriterIsReleased() throws {
        let log = SaveLog()
        weak var weakWriter: CoalescingWriter<Int>?
        do {
            let writer = CoalescingWriter<Int>(save: { v in log.append(v) })
            weakWriter = writer
            writer.submit(4)
            #expect(writer.flush(timeout: 10) == .written)
        }
        #expect(weakWriter == nil)
        #expect(log.saved == [4])
    }

    @Test func valuesThatAreNotEquatableAreAlwaysSaved() throws {
        struct Doc: Sendable { var dark: Bool }
        let count = SaveLog()
        let writer = CoalescingWriter<Doc>(save: { _ in count.append(1) })
        writer.submit(Doc(dark: true))
        #expect(writer.flush(timeout: 10) == .written)
        writer.submit(Doc(dark: true))
        #expect(writer.flush(timeout: 10) == .written)
        #expect(count.saved.count == 2)
    }
}
