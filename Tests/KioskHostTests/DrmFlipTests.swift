import KioskEngine
import Raster
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import KioskHost

/// A KMS card in memory: it records what the presenter asks of it and answers as the test
/// says (an errno per call, flip events that come or not, master had or not).
final class FakeCard: KMSCard {
    enum Call: Equatable {
        case setCRTC(fb: UInt32)
        case noModeset(fb: UInt32)
        case atomic(fb: UInt32, clips: [IntRect])
        case pageFlip(fb: UInt32)
        case dirty(fb: UInt32, clips: [IntRect])
        case awaitFlip
        case dropMaster
        case takeMaster
        case close
    }

    final class Buffer: ScanoutBuffer {
        let fb: UInt32
        let pitch: Int
        let memory: UnsafeMutableRawPointer
        private let byteCount: Int
        private(set) var destroyed = false

        init(fb: UInt32, pitch: Int, height: Int) {
            self.fb = fb
            self.pitch = pitch
            byteCount = pitch * height
            memory = .allocate(byteCount: byteCount, alignment: 16)
            memory.initializeMemory(as: UInt8.self, repeating: 0, count: byteCount)
        }

        func destroy() { destroyed = true }
        deinit { memory.deallocate() }

        /// The pixel at (x, y) of an XRGB8888 buffer.
        func pixel(_ x: Int, _ y: Int) -> UInt32 { memory.load(fromByteOffset: y * pitch + x * 4, as: UInt32.self) }
    }

    let path = "/dev/dri/fake"
    var width: Int
    var height: Int
    let format = ScanoutFormat.xrgb8888
    /// A display is connected.
    var hasDisplay = true
    /// What the next rescan finds (it may change `width`, `height`, `hasDisplay` first).
    var onRescan: (FakeCard) -> DisplayRules.Change = { _ in .unchanged }
    /// The CRTC already shows our mode.
    var modeIsSet = false
    /// A modeset loses what the buffer held (bochs-drm's first modeset of a display off from boot).
    var modesetLosesContent = false
    var summary: String { "fake" }
    private(set) var calls: [Call] = []
    private(set) var buffers: [Buffer] = []
    /// The errno each next call of a kind answers (0: done); when empty, done.
    var setCRTCReplies: [Int32] = []
    var atomicReplies: [Int32] = []
    var pageFlipReplies: [Int32] = []
    /// Whether a flip event arrives when waited for (false: the wait times out).
    var flipEventsCome = true
    /// Whether master can be had.
    var masterAvailable = true

    init(width: Int = 16, height: Int = 8) {
        self.width = width
        self.height = height
    }

    /// The calls that ask the display for something (waits and master aside).
    var shows: [Call] {
        calls.filter {
            switch $0 {
            case .setCRTC, .noModeset, .atomic, .pageFlip, .dirty: return true
            default: return false
            }
        }
    }

    func buffer(_ fb: UInt32) -> Buffer { buffers.first { $0.fb == fb }! }

    private func answer(_ replies: inout [Int32], _ step: String) throws(CardFailure) {
        guard !replies.isEmpty else { return }
        let code = replies.removeFirst()
        if code != 0 { throw CardFailure(step: step, code: code) }
    }

    func makeBuffer() throws(CardFailure) -> ScanoutBuffer {
        let b = Buffer(fb: UInt32(100 + buffers.count), pitch: width * 4 + 8, height: height)
        buffers.append(b)
        return b
    }

    func setCRTC(fb: UInt32) throws(CardFailure) {
        calls.append(.setCRTC(fb: fb))
        try answer(&setCRTCReplies, "drmModeSetCrtc")
        if modesetLosesContent, let b = buffers.first(where: { $0.fb == fb }) {
            b.memory.initializeMemory(as: UInt8.self, repeating: 0, count: b.pitch * height)
        }
    }

    func commitAtomic(fb: UInt32, clips: [IntRect]) throws(CardFailure) {
        calls.append(.atomic(fb: fb, clips: clips))
        try answer(&atomicReplies, "drmModeAtomicCommit")
    }

    func pageFlip(fb: UInt32) throws(CardFailure) {
        calls.append(.pageFlip(fb: fb))
        try answer(&pageFlipReplies, "drmModePageFlip")
    }

    func markDirty(fb: UInt32, clips: [IntRect]) { calls.append(.dirty(fb: fb, clips: clips)) }

    func awaitFlipEvent(milliseconds: Int32) -> Bool {
        calls.append(.awaitFlip)
        return flipEventsCome
    }

    func dropMaster() -> Bool {
        calls.append(.dropMaster)
        return true
    }

    func takeMaster() -> Bool {
        calls.append(.takeMaster)
        return masterAvailable
    }

    func close() { calls.append(.close) }

    func rescan() -> DisplayRules.Change { onRescan(self) }
    func modeAlreadySet() -> Bool { modeIsSet }
    func showWithoutModeset(fb: UInt32) throws(CardFailure) { calls.append(.noModeset(fb: fb)) }
}

/// `DrmPresenter` on a fake card: the first frame sets the mode, later ones flip; a busy
/// display is waited for once, a refused method gives way to the next, down to drawing in
/// place with DIRTYFB; a display that is not ours (EACCES) pauses it until the seat resumes
/// it, and the whole page goes out then; a flip event that never comes does not stop it.
/// Before, only the VM reached these paths (and only some of them).
@Suite struct DrmFlipTests {
    /// A presenter on `card` with `order`, and a page of the card's size.
    final class Rig {
        let card: FakeCard
        let presenter: DrmPresenter
        let frame: Pixmap
        let viewport: Viewport
        var colour: UInt32 = 0xFF10_2030

        init(_ order: [DrmRules.FlipMethod], card: FakeCard = FakeCard()) {
            self.card = card
            presenter = DrmPresenter(card: card, flipOrder: order)!
            frame = Pixmap(width: card.width, height: card.height)
            viewport = Viewport(outputWidth: card.width, outputHeight: card.height, windowWidth: card.width,
                                windowHeight: card.height, rotation: .none, scale: 1)
        }

        var whole: IntRect { frame.bounds }

        /// Paints `rect` of the page a new colour, uploads it and presents: present's answer.
        func draw(_ rect: IntRect? = nil) -> Bool {
            colour &+= 0x0001_0203
            let r = rect ?? whole
            frame.fill(r, with: colour)
            #expect(presenter.upload([r], from: frame, viewport: viewport))
            return presenter.present(viewport)
        }

        /// Whether buffer `fb` holds the page as it is now, every pixel.
        func holdsThePage(_ fb: UInt32) -> Bool {
            let b = card.buffer(fb)
            for y in 0..<frame.height {
                for x in 0..<frame.width where b.pixel(x, y) != ScanoutFormat.xrgb8888.pixel(frame.pixels[y * frame.stride + x]) {
                    return false
                }
            }
            return true
        }
    }

    @Test func theFirstFrameSetsTheModeAndLaterOnesFlipOnVBlank() {
        let rig = Rig([.legacy, .dirty])
        #expect(rig.card.buffers.count == DrmPresenter.bufferCount)
        #expect(rig.presenter.vsync)
        #expect(rig.draw())
        #expect(rig.card.shows == [.setCRTC(fb: 100)])
        #expect(rig.holdsThePage(100))
        let small = IntRect(x: 2, y: 1, width: 3, height: 2)
        #expect(rig.draw(small))
        // The second buffer copies the whole page (it missed it all), the third waits for
        // the second's flip before it is queued.
        #expect(rig.card.shows.last == .pageFlip(fb: 101))
        #expect(rig.holdsThePage(101))
        #expect(rig.draw(small))
        #expect(Array(rig.card.calls.suffix(2)) == [.awaitFlip, .pageFlip(fb: 102)])
        #expect(rig.presenter.name.hasSuffix("page flip)"))
    }

    @Test func anAtomicCommitCarriesTheChangedRectanglesAsDamage() {
        let rig = Rig([.atomic, .legacy, .dirty])
        #expect(rig.draw())
        let small = IntRect(x: 4, y: 2, width: 5, height: 3)
        #expect(rig.draw(small))
        // The second buffer missed the whole page: its clips are the page.
        #expect(rig.card.shows.last == .atomic(fb: 101, clips: [rig.whole]))
        #expect(rig.draw(small))
        #expect(rig.draw(small))
        // Buffer 100 again: it missed the second and third frames' rectangle only.
        #expect(rig.card.shows.last == .atomic(fb: 100, clips: [small]))
        #expect(rig.holdsThePage(100))
    }

    @Test func aBusyDisplayIsWaitedForOnceThenTheFlipIsRetried() {
        let rig = Rig([.legacy, .dirty])
        #expect(rig.draw())
        rig.card.pageFlipReplies = [EBUSY, 0]
        #expect(rig.draw())
        #expect(Array(rig.card.calls.suffix(3)) == [.pageFlip(fb: 101), .awaitFlip, .pageFlip(fb: 101)])
        #expect(rig.presenter.vsync && rig.presenter.name.hasSuffix("page flip)"), "the retry worked: no fall-back")
        // The retried buffer is the queued one (the event waited for was an older flip's):
        // the next frame is drawn into the third buffer and waits for 101's event, never
        // drawing into 100, which the display still shows until then.
        #expect(rig.draw(IntRect(x: 0, y: 0, width: 1, height: 1)))
        #expect(Array(rig.card.calls.suffix(2)) == [.awaitFlip, .pageFlip(fb: 102)])
    }

    @Test func aDisplayBusyTwiceGivesWayToTheNextStrategy() {
        let rig = Rig([.atomic, .legacy, .dirty])
        #expect(rig.draw())
        rig.card.atomicReplies = [EBUSY, EBUSY]
        #expect(rig.draw())
        #expect(Array(rig.card.shows.suffix(3)) == [.atomic(fb: 101, clips: [rig.whole]), .atomic(fb: 101, clips: [rig.whole]),
                                                    .pageFlip(fb: 101)])
        #expect(rig.presenter.name.hasSuffix("page flip)"))
        // For good: the next frame flips with the legacy call straight away.
        #expect(rig.draw())
        #expect(rig.card.shows.last == .pageFlip(fb: 102))
    }

    @Test func flipsRefusedFallToOneBufferDrawnInPlaceWithDirtyFB() {
        let rig = Rig([.atomic, .legacy, .dirty])
        #expect(rig.draw())
        rig.card.atomicReplies = [EINVAL]
        rig.card.pageFlipReplies = [EOPNOTSUPP]
        #expect(rig.draw())
        // The buffer just drawn (the whole page) is kept, set on the CRTC and marked dirty whole.
        #expect(Array(rig.card.shows.suffix(4)) == [.atomic(fb: 101, clips: [rig.whole]), .pageFlip(fb: 101),
                                                    .setCRTC(fb: 101), .dirty(fb: 101, clips: [rig.whole])])
        #expect(rig.card.buffers.filter(\.destroyed).map(\.fb) == [100, 102])
        #expect(!rig.presenter.vsync)
        #expect(rig.presenter.name.hasSuffix("drawn in place + DIRTYFB)"))
        // From now on: the same buffer, drawn in place, only what changed marked; no waits.
        let small = IntRect(x: 1, y: 1, width: 2, height: 2)
        let before = rig.card.calls.count
        #expect(rig.draw(small))
        #expect(Array(rig.card.calls[before...]) == [.dirty(fb: 101, clips: [small])])
        #expect(rig.holdsThePage(101))
    }

    @Test func theLastStrategyRefusedAsksForTheWholePageAgain() {
        let rig = Rig([.legacy])
        #expect(rig.draw())
        rig.card.pageFlipReplies = [EINVAL]
        #expect(!rig.draw(IntRect(x: 0, y: 0, width: 1, height: 1)), "present fails: the caller resends the page")
        // Every buffer misses everything: the next frame, however small, copies the page.
        #expect(rig.draw(IntRect(x: 3, y: 3, width: 1, height: 1)))
        guard case .pageFlip(let fb) = rig.card.shows.last else {
            Issue.record("no flip after the failure: \(rig.card.shows)")
            return
        }
        #expect(rig.holdsThePage(fb))
    }

    @Test func aFlipRefusedForWantOfMasterPausesUntilTheSeatResumes() {
        let rig = Rig([.atomic, .legacy, .dirty])
        #expect(rig.draw())
        rig.card.atomicReplies = [EACCES]
        #expect(rig.draw(), "a lost display is not a failure")
        #expect(rig.presenter.paused)
        #expect(rig.presenter.name.contains("atomic"), "no fall-back for want of master")
        // Paused: frames draw nothing and ask nothing of the card.
        let before = rig.card.calls.count
        #expect(rig.draw(IntRect(x: 0, y: 0, width: 2, height: 2)))
        #expect(rig.card.calls.count == before)
        // The seat gives the display back: master taken, the mode set again with a buffer
        // that holds the whole page though the frame changed one pixel.
        #expect(rig.presenter.handle(.resume))
        #expect(rig.card.calls.last == .takeMaster)
        #expect(rig.draw(IntRect(x: 5, y: 5, width: 1, height: 1)))
        guard case .setCRTC(let fb) = rig.card.shows.last else {
            Issue.record("the mode was not set again: \(rig.card.shows)")
            return
        }
        #expect(rig.holdsThePage(fb))
    }

    @Test func aSeatPauseDropsMasterAndAResumeWithoutMasterKeepsThePause() {
        let rig = Rig([.legacy, .dirty])
        #expect(rig.draw())
        #expect(rig.draw())
        // A flip is queued: its event is waited for before master goes.
        #expect(!rig.presenter.handle(.pause(.asked)))
        #expect(Array(rig.card.calls.suffix(2)) == [.awaitFlip, .dropMaster])
        #expect(rig.presenter.paused)
        rig.card.masterAvailable = false
        _ = rig.presenter.handle(.resume)
        #expect(rig.presenter.paused, "master not had: still paused")
        rig.card.masterAvailable = true
        _ = rig.presenter.handle(.resume)
        #expect(!rig.presenter.paused)
        #expect(rig.draw())
        #expect(rig.card.shows.last.map { if case .setCRTC = $0 { true } else { false } } == true)
    }

    @Test func theModeRefusedForWantOfMasterPausesToo() {
        let rig = Rig([.legacy, .dirty])
        rig.card.setCRTCReplies = [EPERM]
        #expect(rig.draw())
        #expect(rig.presenter.paused)
    }

    @Test func aFailedModeSetAsksForTheWholePageAndIsTriedAgain() {
        let rig = Rig([.legacy, .dirty])
        rig.card.setCRTCReplies = [EINVAL]
        #expect(!rig.draw())
        #expect(!rig.presenter.paused)
        #expect(rig.draw(IntRect(x: 0, y: 0, width: 1, height: 1)))
        guard case .setCRTC(let fb) = rig.card.shows.last else {
            Issue.record("the mode was not set again: \(rig.card.shows)")
            return
        }
        #expect(rig.card.shows.count == 2)
        #expect(rig.holdsThePage(fb))
    }

    @Test func flipEventsThatNeverComeDoNotStopTheFrames() {
        let rig = Rig([.legacy, .dirty])
        rig.card.flipEventsCome = false
        #expect(rig.draw())
        for _ in 0..<6 { #expect(rig.draw(IntRect(x: 1, y: 1, width: 2, height: 2))) }
        // Each flip after the first is queued behind a wait that timed out.
        let flipped: [UInt32] = rig.card.shows.compactMap { call in
            if case .pageFlip(let fb) = call { return fb }
            return nil
        }
        let waits = rig.card.calls.filter { $0 == .awaitFlip }.count
        #expect(flipped.count == 6)
        #expect(waits == 5)
        // The three buffers take turns though no event ever said which is shown.
        #expect(Set(flipped) == Set<UInt32>([100, 101, 102]))
    }

    @Test func closingGivesTheCardBackThenFreesTheBuffers() {
        let rig = Rig([.legacy, .dirty])
        #expect(rig.draw())
        rig.presenter.close()
        #expect(rig.card.calls.last == .close)
        #expect(rig.card.buffers.allSatisfy { $0.destroyed })
        #expect(!rig.presenter.present(rig.viewport), "closed: nothing more")
    }

    @Test func logindPauseTypesAreTyped() {
        #expect(PauseKind(logindType: "pause") == .asked)
        #expect(PauseKind(logindType: "force") == .forced)
        #expect(PauseKind(logindType: "gone") == .gone)
        #expect(PauseKind(logindType: "something new") == .forced, "an unknown pause is taken as done: nothing to answer")
    }

    @Test func theStrategiesFallToTheNextAndStopAtTheLast() {
        var s = FlipStrategies([.atomic, .legacy, .dirty])
        #expect(s.current.method == .atomic && s.current.flips)
        #expect(s.advance()?.method == .legacy)
        #expect(s.advance()?.method == .dirty)
        #expect(!s.current.flips)
        #expect(s.advance() == nil)
        #expect(s.current.method == .dirty)
    }
}
