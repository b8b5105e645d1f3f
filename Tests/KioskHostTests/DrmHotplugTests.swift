import KioskEngine
import Raster
import Testing
@testable import KioskHost

/// `DrmPresenter` and a display that comes and goes, on a fake card: the first page without a
/// modeset when the mode is already set; nothing drawn while no display is connected; the mode
/// set and the whole page sent when one is back; new buffers for another mode.
@Suite struct DrmHotplugTests {
    typealias Rig = DrmFlipTests.Rig

    @Test func theFirstPageGoesUpWithoutAModesetWhenTheModeIsAlreadySet() {
        let card = FakeCard()
        card.modeIsSet = true
        let rig = Rig([.atomic, .legacy, .dirty], card: card)
        #expect(rig.draw())
        #expect(card.shows.count == 1)
        guard case .noModeset(let fb) = card.shows[0] else { Issue.record("\(card.shows)"); return }
        #expect(rig.holdsThePage(fb))
        #expect(rig.presenter.firstPageModeset == false)
        #expect(rig.draw())
        guard case .atomic = card.shows.last else { Issue.record("\(card.shows)"); return }
    }

    @Test func anotherModeOnTheCRTCMeansAModeset() {
        let card = FakeCard()
        let rig = Rig([.atomic, .legacy, .dirty], card: card)
        #expect(rig.draw())
        guard case .setCRTC = card.shows.first else { Issue.record("\(card.shows)"); return }
        #expect(rig.presenter.firstPageModeset == true)
    }

    @Test func withoutADisplayNothingIsDrawnAndItsReturnSetsTheModeWithTheWholePage() {
        let card = FakeCard()
        let rig = Rig([.dirty], card: card)
        #expect(rig.draw())
        let shown = card.shows.count
        card.onRescan = { c in c.hasDisplay = false; return .lost }
        #expect(rig.presenter.displayChanged() == (.lost, true))
        #expect(rig.draw())
        #expect(rig.draw(IntRect(x: 0, y: 0, width: 2, height: 2)))
        #expect(card.shows.count == shown, "drawn with no display: \(card.shows)")
        card.onRescan = { c in c.hasDisplay = true; return .found(resized: false) }
        #expect(rig.presenter.displayChanged() == (.found(resized: false), true))
        // Only a corner changed since, yet the whole page goes with the mode.
        #expect(rig.draw(IntRect(x: 0, y: 0, width: 1, height: 1)))
        guard case .setCRTC(let fb) = card.shows.last else { Issue.record("\(card.shows)"); return }
        #expect(rig.holdsThePage(fb))
        #expect(card.shows.count == shown + 1)
    }

    @Test func thePageIsCopiedAgainAfterAModesetThatLostIt() {
        let card = FakeCard()
        card.modesetLosesContent = true
        let rig = Rig([.dirty], card: card)
        #expect(rig.draw())
        guard case .setCRTC(let fb) = card.shows.last else { Issue.record("\(card.shows)"); return }
        #expect(rig.holdsThePage(fb))
    }

    @Test func anotherModeGetsBuffersOfItsSize() {
        let card = FakeCard(width: 16, height: 8)
        let rig = Rig([.dirty], card: card)
        #expect(rig.draw())
        card.onRescan = { c in c.width = 8; c.height = 4; return .found(resized: true) }
        #expect(rig.presenter.displayChanged() == (.found(resized: true), true))
        #expect(rig.presenter.outputSize() == (8, 4))
        #expect(card.buffers.first!.destroyed)
        let page = Pixmap(width: 8, height: 4)
        page.fill(page.bounds, with: 0xFF40_5060)
        let v = Viewport(outputWidth: 8, outputHeight: 4, windowWidth: 8, windowHeight: 4, rotation: .none, scale: 1)
        #expect(rig.presenter.upload([page.bounds], from: page, viewport: v))
        #expect(rig.presenter.present(v))
        guard case .setCRTC(let fb) = card.shows.last else { Issue.record("\(card.shows)"); return }
        #expect(fb == card.buffers.last!.fb)
        #expect(card.buffers.last!.pixel(7, 3) == ScanoutFormat.xrgb8888.pixel(0xFF40_5060))
    }
}
