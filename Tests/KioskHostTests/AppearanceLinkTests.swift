import Appearance
import AppearanceBus
import CSDL2
import Foundation
import Glibc
import Testing
@testable import KioskHost
import Threads

// SDL is process-global (one event queue; SDL_Init/SDL_Quit): this suite is nested in the
// serialized `SurfacePresenterTests`, whose tests start and quit SDL and run the host loop, so
// that no two SDL tests run at once (in parallel, one's SDL_Quit or event loop took the other's
// event and the wait below timed out in full runs).
extension SurfacePresenterTests {
    /// The appearance runner's events reach the SDL loop as the link's registered user event
    /// (SDL's dummy video driver, no display): the preferences file rewritten by another program
    /// wakes `SDL_WaitEventTimeout`; the kiosk's own announced write does not.
    @Suite(.serialized) struct AppearanceLinkTests {
        /// Writes `text` to a temporary file and renames it over `path` (an atomic replacement).
        static func replace(_ path: String, with text: String) throws {
            let tmp = path + ".tmp"
            try Data(text.utf8).write(to: URL(fileURLWithPath: tmp))
            #expect(rename(tmp, path) == 0)
        }

        /// Waits for the link's wake-up (other SDL events are skipped); false at the deadline.
        static func waitForLinkEvent(_ poster: HostEventPoster, seconds: Double) -> Bool {
            let end = MonotonicClock.seconds() + seconds
            var e = SDL_Event()
            while true {
                let left = end - MonotonicClock.seconds()
                if left <= 0 { return false }
                if SDL_WaitEventTimeout(&e, Int32(left * 1000) + 1) == 1, e.type == poster.eventType { return true }
            }
        }

        @Test func anExternalRewriteWakesTheLoopAndOwnWritesDoNot() throws {
            setenv("SDL_VIDEODRIVER", "dummy", 1)
            try #require(SDL_Init(SDL_INIT_VIDEO) == 0, "SDL_Init: \(String(cString: SDL_GetError()))")
            defer { SDL_Quit() }
            let dir = NSTemporaryDirectory() + "link-\(UUID().uuidString.prefix(8))"
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let path = dir + "/preferences.json"
            try Self.replace(path, with: #"{"appearance": "system"}"#)

            let link = AppearanceLink(options: AppearanceRunnerOptions(config: AppearanceConfig(systemSources: []), preferencesPath: path))
            let poster = try #require(HostEventPoster.register())
            try #require(link.start())
            defer { link.stop() }
            #expect(link.waitForFirstAppearance(timeout: 5) == .noPreference)
            // Queued before the poster was attached: attaching posts for it.
            #expect(!Self.waitForLinkEvent(poster, seconds: 0.2), "no poster yet, nothing can have been posted")
            link.attach(poster)
            #expect(Self.waitForLinkEvent(poster, seconds: 5), "the first appearance should wake the loop once attached")
            let first = link.drain()
            #expect(first.map(\.event) == [.systemAppearance(.noPreference)])

            // Own write, announced: nothing arrives.
            let own = #"{"appearance": "dark"}"#
            let tmp = path + ".own"
            try Data(own.utf8).write(to: URL(fileURLWithPath: tmp))
            var st = stat()
            #expect(stat(tmp, &st) == 0)
            link.runner.expectOwnWrite(OwnWrite(bytes: Array(own.utf8), device: UInt64(st.st_dev), inode: UInt64(st.st_ino)))
            #expect(rename(tmp, path) == 0)
            #expect(!Self.waitForLinkEvent(poster, seconds: 0.5), "the kiosk's own write was echoed")
            #expect(link.drain().isEmpty)

            // Another program's write: one event, stamped after the rename.
            let before = MonotonicClock.seconds()
            try Self.replace(path, with: #"{"appearance": "light"}"#)
            #expect(Self.waitForLinkEvent(poster, seconds: 5), "an external rewrite should wake the loop")
            let got = link.drain()
            #expect(got.map(\.event) == [.preferencesFileChanged(path: path)])
            #expect(got.allSatisfy { $0.at >= before })
        }
    }
}
