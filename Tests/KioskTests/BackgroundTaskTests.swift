#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import KioskSupport

@Suite struct BackgroundTaskTests {
    /// The work runs on another thread, and `value()` waits for it.
    @Test func runsElsewhereAndValueWaits() {
        let caller = pthread_self()
        let task = BackgroundTask { () -> (onCaller: Bool, sum: Int) in
            usleep(50_000)
            return (pthread_equal(pthread_self(), caller) != 0, (1...1000).reduce(0, +))
        }
        let v = task.value()
        #expect(!v.onCaller)
        #expect(v.sum == 500_500)
        #expect(task.value().sum == 500_500)  // a second call returns the same, no second join
    }
}
