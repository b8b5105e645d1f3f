import Foundation
import Testing
import CoalescingWriter

/// A switch the injected save reads: while on, saves fail (thread-safe).
final class DiskState: @unchecked Sendable {
    private let lock = NSLock()
    private var failing = true
    private var tries: [Int] = []
    private var savedValues: [Int] = []
    func set(failing f: Bool) { lock.lock(); failing = f; lock.unlock() }
    func attempt(_ v: Int) throws {
        lock.lock(); defer { lock.unlock() }
        tries.append(v)
        if failing { throw DiskFull() }
        savedValues.append(v)
    }
    var attempts: [Int] { lock.lock(); defer { lock.unlock() }; return tries }
    var saved: [Int] { lock.lock(); defer { lock.unlock() }; return savedValues }
}

/// Waits up to `seconds` for `condition`.
func eventually(_ seconds: Double, _ condition: () -> Bool) -> Bool {
    let end = Date(timeIntervalSinceNow: seconds)
    while Date() < end { if condition() { return true }; usleep(5_000) }
    return condition()
}

/// The retry rule on its own (issue 39, item 3).
@Suite struct RetryScheduleTests {
    @Test func doublesFromOneSecondUpToAMinute() {
        let s = RetrySchedule()
        #expect((1...9).map { s.delay(afterFailures: $0) } == [1, 2, 4, 8, 16, 32, 60, 60, 60])
        #expect(s.delay(afterFailures: 1_000_000) == 60)
        #expect(s.delay(afterFailures: 0) == 0)
        let t = RetrySchedule(first: 0.5, longest: 3)
        #expect((1...5).map { t.delay(afterFailures: $0) } == [0.5, 1, 2, 3, 3])
    }

    @Test func aFolderChangeBringsTheRetryForwardButNotCloserThanAQuarterSecond() {
        let s = RetrySchedule()
        // Scheduled 60 s after the last attempt at 100; a change at 130: at once.
        #expect(s.retryOnChange(now: 130, scheduled: 160, lastAttempt: 100) == 130)
        // A change 0.1 s after the last attempt: 0.25 s after it.
        #expect(s.retryOnChange(now: 100.1, scheduled: 160, lastAttempt: 100) == 100.25)
        // Never later than scheduled.
        #expect(s.retryOnChange(now: 100.1, scheduled: 100.2, lastAttempt: 100) == 100.2)
    }
}

@Suite struct CoalescingWriterRetryTests {
    final class Recovered: @unchecked Sendable {
        let lock = NSLock(); var all: [(Int, Int)] = []
        func add(_ t: Int, _ v: Int) { lock.lock(); all.append((t, v)); lock.unlock() }
        var list: [(Int, Int)] { lock.lock(); defer { lock.unlock() }; return all }
    }

    @Test func aFailedValueIsTriedAgainOnTheBackoffUntilItIsSaved() {
        let disk = DiskState()
        let recovered = Recovered()
        let writer = CoalescingWriter<Int>(retry: RetrySchedule(first: 0.05, longest: 0.2),
                                           save: { try disk.attempt($0) }, onRecovered: { recovered.add($0, $1) })
        writer.submit(7)
        #expect(writer.flush(timeout: 10) == .failed("no space left on device"))
        #expect(writer.unsavedReason == "no space left on device")
        // Retries keep coming (0.05, 0.1, 0.2, 0.2 s apart) while the disk is full.
        #expect(eventually(5) { disk.attempts.count >= 4 })
        disk.set(failing: false)
        #expect(eventually(5) { disk.saved == [7] })
        #expect(eventually(5) { recovered.list.count == 1 })
        #expect(recovered.list.first?.1 == 7)
        #expect(recovered.list.first?.0 == disk.attempts.count)
        #expect(writer.unsavedReason == nil)
        let n = disk.attempts.count
        usleep(500_000)
        #expect(disk.attempts.count == n, "a saved value is not tried again")
    }

    @Test func aNewerValueIsSavedAndTheOlderFailedOneNeverAfterIt() {
        let disk = DiskState()
        let writer = CoalescingWriter<Int>(retry: RetrySchedule(first: 0.05, longest: 0.05), save: { try disk.attempt($0) })
        writer.submit(1)  // dark, fails
        #expect(writer.flush(timeout: 10) == .failed("no space left on device"))
        #expect(eventually(5) { disk.attempts.count >= 2 })
        disk.set(failing: false)
        writer.submit(2)  // light, chosen later
        #expect(writer.flush(timeout: 10) == .written)
        usleep(300_000)
        #expect(disk.saved.last == 2)
        #expect(!disk.saved.contains(1) || disk.saved.lastIndex(of: 1)! < disk.saved.lastIndex(of: 2)!,
                "the older choice was saved after the newer one: \(disk.saved)")
        #expect(disk.saved.filter { $0 == 2 }.count == 1 && disk.saved.count <= 2)
    }

    @Test func aNewerValueArrivingDuringAFailingSaveReplacesTheRetry() {
        let disk = DiskState()
        let gate = Gate()
        let writer = CoalescingWriter<Int>(retry: RetrySchedule(first: 0.05, longest: 0.05), save: { v in
            if v == 1 { gate.pass() }
            try disk.attempt(v)
        })
        writer.submit(1)
        #expect(gate.awaitWaiter())
        writer.submit(2)   // while 1's save runs (and will fail)
        disk.set(failing: true)
        gate.openGate()
        #expect(eventually(5) { disk.attempts.count >= 2 })
        #expect(Array(disk.attempts.prefix(2)) == [1, 2])
        disk.set(failing: false)
        #expect(eventually(5) { disk.saved == [2] })
        usleep(300_000)
        #expect(!disk.attempts.dropFirst().contains(1), "1 was retried after 2 was submitted: \(disk.attempts)")
    }

    @Test func retrySoonTriesAtOnceInsteadOfAfterTheBackoff() {
        let disk = DiskState()
        let writer = CoalescingWriter<Int>(retry: RetrySchedule(first: 30, longest: 60, closest: 0), save: { try disk.attempt($0) })
        writer.submit(5)
        #expect(writer.flush(timeout: 10) == .failed("no space left on device"))
        disk.set(failing: false)
        usleep(200_000)
        #expect(disk.saved.isEmpty, "the next retry is 30 s away")
        writer.retrySoon()
        #expect(eventually(2) { disk.saved == [5] })
    }

    @Test func closeTriesOnceMoreThenSaysWhyWhenItStillFails() {
        let disk = DiskState()
        let writer = CoalescingWriter<Int>(retry: RetrySchedule(first: 30, longest: 60), save: { try disk.attempt($0) })
        writer.submit(3)
        #expect(writer.flush(timeout: 10) == .failed("no space left on device"))
        #expect(writer.close(timeout: 5) == .failed("no space left on device"))
        #expect(disk.attempts == [3, 3])

        let disk2 = DiskState()
        let writer2 = CoalescingWriter<Int>(retry: RetrySchedule(first: 30, longest: 60), save: { try disk2.attempt($0) })
        writer2.submit(4)
        #expect(writer2.flush(timeout: 10) == .failed("no space left on device"))
        disk2.set(failing: false)
        #expect(writer2.close(timeout: 5) == .written)
        #expect(disk2.saved == [4])
    }
}
