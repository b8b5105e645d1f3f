@testable import AccessibilityBus
import DarkModeToggle
import KioskEngine
import KioskTools
import Raster
import Testing
import Text

/// The AT-SPI tree made from the page model: what a screen reader is shown and told.
@Suite struct AccessibleTreeTests {
    func app(_ strings: PageStrings = .english, dark: Bool = false) -> KioskApp {
        KioskApp(options: KioskOptions(pixelWidth: 1024, pixelHeight: 640, strings: strings), isDarkMode: dark)
    }

    func snapshot(_ a: KioskApp) -> AccessibleSnapshot {
        let page = a.accessibilityModel
        return AccessibleSnapshot(title: "DarkModeKiosk", page: page, window: ScreenRect(x: 0, y: 0, width: 1024, height: 640),
                                  controls: page.controls.map {
                                      ScreenRect(x: Int32($0.frame.minX), y: Int32($0.frame.minY),
                                                 width: Int32($0.frame.width), height: Int32($0.frame.height))
                                  })
    }

    @Test func rolesNamesAndStates() {
        let a = app(dark: true)
        let t = AccessibleTree(snapshot(a))
        #expect(t.nodes.map(\.role) == [.application, .frame, .toggleButton, .toggleButton, .pushButton])
        #expect(t.nodes.map(\.name) == ["DarkModeKiosk", "DarkModeKiosk", "Dark Mode (Original)", "Dark Mode (Vivid)", "Use System Setting"])
        #expect(t.nodes[1].states == [.active, .showing, .visible, .enabled, .sensitive])
        let base: Set<Atspi.State> = [.enabled, .sensitive, .visible, .showing, .focusable]
        // The Original has the focus at start; both toggles are on (dark).
        #expect(t.nodes[2].states == base.union([.focused, .checkable, .checked, .pressed]))
        #expect(t.nodes[3].states == base.union([.checkable, .checked, .pressed]))
        #expect(t.nodes[4].states == base)
        #expect(t.nodes[1].children == [2, 3, 4] && t.nodes[2].parent == 1 && t.nodes[0].children == [1])
        #expect(t.nodes[2...].map(\.action) == ["toggle", "toggle", "click"])
        // GetState's two words: ACTIVE is bit 1 of word 0, CHECKABLE bit 9 of word 1.
        #expect(Atspi.words(t.nodes[1].states)[0] & (1 << 1) != 0)
        #expect(Atspi.words(t.nodes[2].states)[1] == 1 << 9)
    }

    @Test func chineseNamesComeFromTheStringTable() {
        let t = AccessibleTree(snapshot(app(PageStrings(.simplifiedChinese))))
        #expect(t.nodes[2].name == "深色模式 (原版)")
        #expect(t.nodes[3].name == "深色模式 (鲜明)")
        #expect(t.nodes[4].name == "使用系统设置")
    }

    @Test func paths() {
        let t = AccessibleTree(snapshot(app()))
        #expect(t.node(at: Atspi.rootPath) == 0)
        #expect(t.node(at: AccessibleTree.path(3)) == 3)
        #expect(t.node(at: "/org/a11y/atspi/accessible/9") == nil)
        #expect(t.node(at: "/org/a11y/atspi/accessible/0") == nil)
        #expect(t.node(of: .button) == 4)
    }

    @Test func aTapMovesTheFocusBeforeTheStateChanges() {
        let a = app()
        let before = AccessibleTree(snapshot(a))
        let f = a.frame(of: .vivid)
        a.handle(PointerEvent(id: 1, phase: .down, location: Point(f.midX, f.midY), timestamp: 1))
        a.handle(PointerEvent(id: 1, phase: .up, location: Point(f.midX, f.midY), timestamp: 1.05))
        let after = AccessibleTree(snapshot(a))
        #expect(after.events(from: before) == [
            .state(node: 2, .focused, false), .state(node: 3, .focused, true),
            .state(node: 2, .checked, true), .state(node: 2, .pressed, true),
            .state(node: 3, .checked, true), .state(node: 3, .pressed, true),
        ])
        // Nothing changed, nothing said.
        #expect(AccessibleTree(snapshot(a)).events(from: after).isEmpty)
    }

    @Test func theButtonsNameChangeIsAnnounced() {
        let a = app()
        let before = AccessibleTree(snapshot(a))
        a.activateControl(.button, at: 1)
        let after = AccessibleTree(snapshot(a))
        let events = after.events(from: before)
        #expect(events.first == .state(node: 2, .focused, false))
        #expect(events.contains(.state(node: 4, .focused, true)))
        #expect(events.contains(.name(node: 4, "Following System")))
    }

    @Test func hitTesting() {
        let s = snapshot(app())
        let t = AccessibleTree(s)
        let b = s.controls[2]
        #expect(t.node(atX: b.x + 2, y: b.y + 2, in: AccessibleTree.frame) == 4)
        #expect(t.node(atX: 1, y: 1, in: AccessibleTree.frame) == AccessibleTree.frame)
        #expect(t.node(atX: -5, y: 1, in: AccessibleTree.frame) == nil)
    }
}
