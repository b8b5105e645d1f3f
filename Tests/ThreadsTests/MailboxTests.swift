import Synchronization
import Testing
import Threads

@Suite struct MailboxTests {
    /// Counts wake-ups (from any thread).
    final class Wakes: Sendable {
        let n = Mutex(0)
        var count: Int { n.withLock { $0 } }
        func wake() { n.withLock { $0 += 1 } }
    }

    @Test func eventsComeOutInTheOrderPosted() {
        let box = Mailbox<Int>()
        for i in 0..<5 { box.post(i) }
        #expect(box.drain() == [0, 1, 2, 3, 4])
        #expect(box.drain().isEmpty)
    }

    @Test func aBatchWakesTheLoopOnceAndTheNextBatchAgain() {
        let box = Mailbox<String>()
        let wakes = Wakes()
        box.attach(wakes.wake)
        #expect(wakes.count == 0, "nothing waiting: attaching does not wake")
        box.post("a"); box.post("b"); box.post("c")
        #expect(wakes.count == 1, "one wake-up for the three")
        #expect(box.drain() == ["a", "b", "c"])
        box.post("d")
        #expect(wakes.count == 2, "after a drain the next post wakes again")
    }

    @Test func eventsPostedBeforeAttachWaitAndAttachingWakes() {
        let box = Mailbox<Int>()
        box.post(7)
        box.post(8)
        let wakes = Wakes()
        box.attach(wakes.wake)
        #expect(wakes.count == 1)
        #expect(box.drain() == [7, 8])
    }

    @Test func theLimitRefusesAllButOverLimitEvents() {
        let box = Mailbox<Int>(limit: 2)
        #expect(box.post(1))
        #expect(box.post(2))
        #expect(!box.post(3), "full")
        #expect(box.post(4, overLimit: true), "must get through")
        #expect(box.drain() == [1, 2, 4])
        #expect(box.post(5), "room again after the drain")
    }

    @Test func postsFromManyThreadsAreAllDeliveredInEachThreadsOrder() async {
        let box = Mailbox<(Int, Int)>()
        await withTaskGroup(of: Void.self) { group in
            for t in 0..<4 { group.addTask { for i in 0..<500 { box.post((t, i)) } } }
        }
        let all = box.drain()
        #expect(all.count == 2000)
        for t in 0..<4 { #expect(all.filter { $0.0 == t }.map(\.1) == Array(0..<500)) }
    }
}
