import Foundation
import Testing
import Threads

/// What the lanes did, recorded under a lock.
final class LaneLog: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var worked: [(item: Int, lane: Int, thread: UInt)] = []
    func work(_ item: Int, _ lane: Int) {
        let t = UInt(pthread_self())
        lock.lock(); worked.append((item, lane, t)); lock.unlock()
    }
}

@Suite struct HelperLanesTests {
    @Test func everyItemRunsOnceAndIsReportedOnTheCallersThread() {
        let lanes = HelperLanes(helpers: 1)
        #expect(lanes.helpers == 1)
        #expect(lanes.lanes == 2)
        let caller = UInt(pthread_self())
        for count in [0, 1, 2, 3, 17, 200] {
            let log = LaneLog()
            var reported: [Int] = []
            var reportThreads = Set<UInt>()
            lanes.run(count: count, work: { item, lane in
                // Uneven work, so the helper takes some items.
                var x = 0.0
                for k in 0..<((item % 3) * 2000) { x += Double(k).squareRoot() }
                if x < 0 { print(x) }
                log.work(item, lane)
            }, finished: { item in
                reported.append(item)
                reportThreads.insert(UInt(pthread_self()))
            })
            #expect(log.worked.map(\.item).sorted() == Array(0..<count), "count \(count)")
            #expect(reported.sorted() == Array(0..<count), "count \(count)")
            if count > 0 { #expect(reportThreads == [caller]) }
            // Lane 0 is the caller's thread; any other lane is another thread.
            for w in log.worked {
                #expect((w.lane == 0) == (w.thread == caller))
                #expect(w.lane >= 0 && w.lane < lanes.lanes)
            }
        }
    }

    @Test func theHelperTakesItemsWhenTheCallerIsBusy() {
        let lanes = HelperLanes(helpers: 1)
        let log = LaneLog()
        // The caller's first item waits until some other lane has worked: only a helper can.
        let started = NSCondition()
        var helperWorked = false
        lanes.run(count: 8, work: { item, lane in
            if lane != 0 {
                started.lock(); helperWorked = true; started.broadcast(); started.unlock()
            } else if item == 0 {
                started.lock()
                let deadline = Date(timeIntervalSinceNow: 5)
                while !helperWorked { if !started.wait(until: deadline) { break } }
                started.unlock()
            }
            log.work(item, lane)
        }, finished: { _ in })
        #expect(helperWorked)
        #expect(log.worked.contains { $0.lane == 1 })
        #expect(log.worked.map(\.item).sorted() == Array(0..<8))
    }

    @Test func withoutHelpersEverythingRunsInOrderOnTheCaller() {
        let lanes = HelperLanes(helpers: 0)
        #expect(lanes.helpers == 0 && lanes.lanes == 1)
        var order: [String] = []
        lanes.run(count: 3, work: { item, lane in order.append("w\(item)@\(lane)") }, finished: { order.append("f\($0)") })
        #expect(order == ["w0@0", "f0", "w1@0", "f1", "w2@0", "f2"])
    }

    @Test func manyFramesInARow() {
        // Jobs follow each other closely (as frames do): none is lost, none runs twice.
        let lanes = HelperLanes(helpers: 2)
        for frame in 0..<500 {
            let log = LaneLog()
            var reported = 0
            lanes.run(count: 1 + frame % 9, work: { log.work($0, $1) }, finished: { _ in reported += 1 })
            #expect(log.worked.map(\.item).sorted() == Array(0..<(1 + frame % 9)))
            #expect(reported == 1 + frame % 9)
        }
    }
}
