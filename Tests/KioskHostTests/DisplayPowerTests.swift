import KioskEngine
import Raster
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import KioskHost

/// A `FakeCard` whose output can be switched off and on (`KMSPower`): it records each switch
/// and answers with the errno the test gives.
final class PoweredFakeCard: KMSCard, KMSPower {
    let inner: FakeCard
    private(set) var switches: [Bool] = []
    var powerReplies: [Int32] = []

    init(_ inner: FakeCard = FakeCard()) { self.inner = inner }

    func setPower(_ on: Bool) throws(CardFailure) {
        switches.append(on)
        if !powerReplies.isEmpty, case let code = powerReplies.removeFirst(), code != 0 {
            throw CardFailure(step: "power", code: code)
        }
    }

    var path: String { inner.path }
    var width: Int { inner.width }
    var height: Int { inner.height }
    var format: ScanoutFormat { inner.format }
    var summary: String { inner.summary }
    func makeBuffer() throws(CardFailure) -> ScanoutBuffer { try inner.makeBuffer() }
    func setCRTC(fb: UInt32) throws(CardFailure) { try inner.setCRTC(fb: fb) }
    func commitAtomic(fb: UInt32, clips: [IntRect]) throws(CardFailure) { try inner.commitAtomic(fb: fb, clips: clips) }
    func pageFlip(fb: UInt32) throws(CardFailure) { try inner.pageFlip(fb: fb) }
    func markDirty(fb: UInt32, clips: [IntRect]) { inner.markDirty(fb: fb, clips: clips) }
    func awaitFlipEvent(milliseconds: Int32) -> Bool { inner.awaitFlipEvent(milliseconds: milliseconds) }
    func dropMaster() -> Bool { inner.dropMaster() }
    func takeMaster() -> Bool { inner.takeMaster() }
    func close() { inner.close() }
}

/// `DrmPresenter.setPowered`: the screen's sleep switches the output off after the flip in
/// flight, and on again with the whole page sent; a refused switch-on falls back to a mode set.
@Suite struct DisplayPowerTests {
    let card = PoweredFakeCard()
    let presenter: DrmPresenter
    let frame: Pixmap
    let viewport: Viewport

    init() {
        presenter = DrmPresenter(card: card, flipOrder: [.legacy, .dirty])!
        frame = Pixmap(width: card.width, height: card.height)
        viewport = Viewport(outputWidth: card.width, outputHeight: card.height, windowWidth: card.width,
                            windowHeight: card.height, rotation: .none, scale: 1)
    }

    func draw(_ rect: IntRect, colour: UInt32) -> Bool {
        frame.fill(rect, with: colour)
        #expect(presenter.upload([rect], from: frame, viewport: viewport))
        return presenter.present(viewport)
    }

    func holdsThePage(_ fb: UInt32) -> Bool {
        let b = card.inner.buffer(fb)
        for y in 0..<frame.height {
            for x in 0..<frame.width where b.pixel(x, y) != ScanoutFormat.xrgb8888.pixel(frame.pixels[y * frame.stride + x]) {
                return false
            }
        }
        return true
    }

    @Test func offAfterTheQueuedFlipThenOnWithTheWholePage() {
        #expect(draw(frame.bounds, colour: 0xFF10_2030))
        #expect(draw(IntRect(x: 1, y: 1, width: 2, height: 2), colour: 0xFF20_3040))   // a flip queued
        #expect(presenter.setPowered(false))
        #expect(card.switches == [false])
        // The queued flip was waited for before the output went off.
        #expect(card.inner.calls.last == .awaitFlip)
        // Awake: on, and the next frame, however small its change, sends every pixel.
        #expect(presenter.setPowered(true))
        #expect(card.switches == [false, true])
        #expect(draw(IntRect(x: 0, y: 0, width: 1, height: 1), colour: 0xFF30_4050))
        guard case .pageFlip(let fb) = card.inner.shows.last else {
            Issue.record("no flip after the wake: \(card.inner.shows)")
            return
        }
        #expect(holdsThePage(fb))
    }

    @Test func aRefusedSwitchOnSetsTheModeWithTheNextFrame() {
        #expect(draw(frame.bounds, colour: 0xFF10_2030))
        #expect(presenter.setPowered(false))
        card.powerReplies = [EINVAL]
        #expect(!presenter.setPowered(true))
        #expect(draw(IntRect(x: 0, y: 0, width: 1, height: 1), colour: 0xFF30_4050))
        guard case .setCRTC(let fb) = card.inner.shows.last else {
            Issue.record("the frame after a refused switch-on did not set the mode: \(card.inner.shows)")
            return
        }
        #expect(holdsThePage(fb))
    }

    @Test func aDisplayNotOursIsNotSwitched() {
        #expect(draw(frame.bounds, colour: 0xFF10_2030))
        card.powerReplies = [EACCES]
        #expect(presenter.setPowered(false))      // paused: master is someone else's
        #expect(presenter.paused)
        #expect(!presenter.setPowered(true))      // not while paused; the resume sets the mode
        #expect(card.switches == [false])
    }

    @Test func aCardWithoutPowerSaysSo() {
        let plain = DrmPresenter(card: FakeCard(), flipOrder: [.dirty])!
        #expect(!plain.setPowered(false))
    }
}
