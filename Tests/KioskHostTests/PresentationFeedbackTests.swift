import Testing
@testable import KioskHost

/// The pure parts of the compositor's presentation feedback (`wp_presentation`): its split time,
/// its flags, and which screen time each answered commit gets.
@Suite struct PresentationFeedbackTests {
    @Test func theSplitTimeIsSecondsAndNanoseconds() {
        #expect(FrameFeedback.seconds(secHi: 0, secLo: 12, nsec: 500_000_000) == 12.5)
        // The high half counts 2^32 seconds.
        #expect(FrameFeedback.seconds(secHi: 1, secLo: 0, nsec: 0) == 4_294_967_296)
        #expect(abs(FrameFeedback.seconds(secHi: 0, secLo: 86_400, nsec: 16_666_667) - 86_400.016666667) < 1e-9)
    }

    @Test func flagsByName() {
        #expect(FrameFeedback.flagText(0) == "none")
        #expect(FrameFeedback.flagText(1) == "vsync")
        #expect(FrameFeedback.flagText(0xF) == "vsync, hw_clock, hw_completion, zero_copy")
        #expect(FrameFeedback.flagText(0x10 | 2) == "hw_clock")   // an unknown bit is left out
    }

    @Test func aDiscardedCommitTakesTheTimeOfTheNextOneShown() {
        var order = FeedbackOrder()
        #expect(order.answered(serial: 1, shownAt: 10.0) == [LateScreenTime(serial: 1, shownAt: 10.0)])
        #expect(order.answered(serial: 2, shownAt: nil).isEmpty)     // replaced before a repaint
        #expect(order.answered(serial: 3, shownAt: nil).isEmpty)
        #expect(order.replaced == [2, 3])
        #expect(order.answered(serial: 4, shownAt: 10.05)
                == [LateScreenTime(serial: 2, shownAt: 10.05), LateScreenTime(serial: 3, shownAt: 10.05),
                    LateScreenTime(serial: 4, shownAt: 10.05)])
        #expect(order.replaced.isEmpty)
        #expect(order.answered(serial: 5, shownAt: 10.07) == [LateScreenTime(serial: 5, shownAt: 10.07)])
    }
}
