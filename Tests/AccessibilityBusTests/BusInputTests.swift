@testable import AccessibilityBus
import KioskEngine
import Raster
import Testing

/// What a caller on the accessibility bus can send, checked before anything is read: object
/// paths, the method table and its signatures, properties, and the coordinate maths that used to
/// trap on `Int32` overflow.
@Suite struct BusInputTests {
    /// A tree with the frame at `window` and one toggle at `control` (screen coordinates).
    func tree(window: ScreenRect, control: ScreenRect = ScreenRect(x: 0, y: 0, width: 0, height: 0)) -> AccessibleTree {
        let c = PageAccessibility.Control(control: .original, kind: .toggle, name: "O", isOn: false, frame: Rect(x: 0, y: 0, width: 1, height: 1))
        let page = PageAccessibility(controls: [c], focus: .original, pageSize: (1, 1), scale: 1)
        return AccessibleTree(AccessibleSnapshot(title: "T", page: page, window: window, controls: [control]))
    }

    // MARK: Paths

    @Test func pathsAreParsedStrictly() {
        let p = Atspi.objectPrefix
        #expect(AccessibleTree.nodeID(inPath: Atspi.rootPath) == 0)
        #expect(AccessibleTree.nodeID(inPath: "\(p)/1") == 1)
        #expect(AccessibleTree.nodeID(inPath: "\(p)/42") == 42)
        #expect(AccessibleTree.nodeID(inPath: "\(p)/999999999") == 999_999_999)
        for bad in ["\(p)/02", "\(p)/0", "\(p)/00", "\(p)/+2", "\(p)/-2", "\(p)/2/", "\(p)/2/3", "\(p)/", p, "\(p)//2",
                    "\(p)/ 2", "\(p)/2 ", "\(p)/２", "\(p)/1e3", "\(p)/0x2", "\(p)/9999999999", "\(p)/99999999999999999999999",
                    "\(p)/root/", "\(p)/Root", "/org/a11y/atspi/accessible2", "/2", "", "/org/a11y/atspi/null"] {
            #expect(AccessibleTree.nodeID(inPath: bad) == nil, "\(bad)")
        }
        // Every path the tree makes is read back as its node.
        for id in 0..<100 { #expect(AccessibleTree.nodeID(inPath: AccessibleTree.path(id)) == id) }
    }

    // MARK: Coordinates

    @Test func pointsBeyondThe32BitScreenAreOutsideEverything() {
        let window = ScreenRect(x: 320, y: 200, width: 640, height: 400)
        let o: (x: Int64, y: Int64) = (320, 200)
        // The calls that trapped: Contains(Int32.max, 0, window) with the window at (320, 200) …
        #expect(AccessibleTree.screenPoint(x: .max, y: 0, origin: o) == nil)
        #expect(AccessibleTree.screenPoint(x: 0, y: .max, origin: o) == nil)
        // … and Int32.min with the window at negative coordinates.
        #expect(AccessibleTree.screenPoint(x: .min, y: 0, origin: (-200, -100)) == nil)
        #expect(AccessibleTree.screenPoint(x: 0, y: .min, origin: (-200, -100)) == nil)
        // The edges that still fit are kept exactly.
        #expect(AccessibleTree.screenPoint(x: .max - 320, y: .max - 200, origin: o)! == (.max, .max))
        #expect(AccessibleTree.screenPoint(x: .min + 200, y: .min + 100, origin: (-200, -100))! == (.min, .min))
        #expect(AccessibleTree.screenPoint(x: 5, y: 6, origin: o)! == (325, 206))
        #expect(AccessibleTree.screenPoint(x: .max, y: .min, origin: (0, 0))! == (.max, .min))
        // Every boundary pair against windows anywhere: never a trap.
        let values: [Int32] = [0, -1, 1, .min, .max, .min + 1, .max - 1]
        for wx in values { for wy in values { for x in values { for y in values {
            let p = AccessibleTree.screenPoint(x: x, y: y, origin: (Int64(wx), Int64(wy)))
            if let p { #expect(Int64(p.x) == Int64(x) + Int64(wx) && Int64(p.y) == Int64(y) + Int64(wy)) }
            else { #expect(Int32(exactly: Int64(x) + Int64(wx)) == nil || Int32(exactly: Int64(y) + Int64(wy)) == nil) }
            _ = ScreenRect(x: wx, y: wy, width: .max, height: .max).contains(x: x, y: y)
        } } } }
        _ = window
    }

    @Test func coordinateTypes() {
        let t = tree(window: ScreenRect(x: -200, y: -100, width: 640, height: 400))
        #expect(t.origin(0)! == (0, 0))
        #expect(t.origin(1)! == (-200, -100))
        #expect(t.origin(2)! == (-200, -100))
        for bad: UInt32 in [3, 7, .max] { #expect(t.origin(bad) == nil) }
    }

    @Test func extentsAreClampedNotTrapped() {
        // The frame at the far corners of the 32-bit screen, seen from the window and from the screen.
        let far = tree(window: ScreenRect(x: .min, y: .max, width: 10, height: 10))
        #expect(far.extents(of: 1, origin: (0, 0)) == ScreenRect(x: .min, y: .max, width: 10, height: 10))
        #expect(far.extents(of: 1, origin: (Int64(Int32.max), Int64(Int32.min))) == ScreenRect(x: .min, y: .max, width: 10, height: 10))
        #expect(far.extents(of: 1, origin: far.origin(1)!) == ScreenRect(x: 0, y: 0, width: 10, height: 10))
        let t = tree(window: ScreenRect(x: 320, y: 200, width: 640, height: 400))
        #expect(t.extents(of: 1, origin: t.origin(1)!) == ScreenRect(x: 0, y: 0, width: 640, height: 400))
        #expect(t.extents(of: 1, origin: t.origin(0)!) == ScreenRect(x: 320, y: 200, width: 640, height: 400))
        // The application has no extents.
        #expect(t.extents(of: 0, origin: (5, 5)) == ScreenRect(x: 0, y: 0, width: 0, height: 0))
    }

    @Test func hitTestingAtTheEdges() {
        let t = tree(window: ScreenRect(x: .max - 5, y: .max - 5, width: 100, height: 100),
                     control: ScreenRect(x: .max - 2, y: .max - 2, width: .max, height: .max))
        // The frame and the control reach past Int32.max; points that fit inside are inside, none trap.
        #expect(t.node(atX: .max, y: .max, in: 1) == 2)
        #expect(t.node(atX: .max - 4, y: .max, in: 1) == 1)
        #expect(t.node(atX: .max - 6, y: .max, in: 1) == nil)
        #expect(t.nodes[1].rect!.contains(x: .min, y: .min) == false)
    }

    // MARK: The method table and signatures

    let frame = [Atspi.accessibleInterface, Atspi.componentInterface]
    let path = "/org/a11y/atspi/accessible/1"

    func resolve(_ iface: String, _ member: String, _ sig: String, served: [DBusInterface]? = nil) -> Result<String, DBusRefusal> {
        Atspi.resolve(path: path, interface: iface, member: member, signature: sig, served: served ?? frame).map { "\($0.0.name).\($0.1.name)" }
    }

    @Test func signaturesMustMatchExactly() throws {
        #expect(try resolve(Atspi.component, "Contains", "iiu").get() == "org.a11y.atspi.Component.Contains")
        #expect(try resolve(Atspi.component, "GetExtents", "u").get() == "org.a11y.atspi.Component.GetExtents")
        // Wrong types, missing and extra arguments.
        for sig in ["s", "", "uu", "i", "v"] {
            #expect(resolve(Atspi.component, "GetExtents", sig) == .failure(.invalidArgs("org.a11y.atspi.Component.GetExtents takes (u), not (\(sig))")))
        }
        for sig in ["ii", "iiuu", "iii", "uuu", "iiu(i)", "x"] {
            guard case .failure(let e) = resolve(Atspi.component, "Contains", sig) else { Issue.record("Contains(\(sig)) accepted"); continue }
            #expect(e.name == "org.freedesktop.DBus.Error.InvalidArgs")
        }
        #expect(resolve(Atspi.accessible, "GetRole", "i").map { _ in "ok" } == .failure(.invalidArgs("org.a11y.atspi.Accessible.GetRole takes (), not (i)")))
        #expect(resolve(Atspi.properties, "Get", "ss").map { _ in "ok" } == .success("ok"))
        #expect(resolve(Atspi.properties, "Set", "ssi").map { _ in "ok" } == .failure(.invalidArgs("org.freedesktop.DBus.Properties.Set takes (ssv), not (ssi)")))
    }

    @Test func unknownInterfacesAndMethods() throws {
        #expect(resolve(Atspi.action, "DoAction", "i") == .failure(.unknownInterface(Atspi.action, path: path)))
        #expect(resolve("org.example.Nope", "X", "") == .failure(.unknownInterface("org.example.Nope", path: path)))
        #expect(resolve(Atspi.component, "ScrollTo", "u") == .failure(.unknownMethod("ScrollTo", interface: Atspi.component, path: path)))
        // No interface given: the first of the object's interfaces with that method.
        #expect(try resolve("", "GetExtents", "u").get() == "org.a11y.atspi.Component.GetExtents")
        #expect(try resolve("", "Introspect", "").get() == "org.freedesktop.DBus.Introspectable.Introspect")
        #expect(resolve("", "DoAction", "i") == .failure(.unknownMethod("DoAction", interface: "", path: path)))
        #expect(DBusRefusal.unknownInterface(Atspi.action, path: path).name == "org.freedesktop.DBus.Error.UnknownInterface")
        #expect(DBusRefusal.unknownObject(path: "/x").name == "org.freedesktop.DBus.Error.UnknownObject")
    }

    @Test func properties() throws {
        let app = [Atspi.accessibleInterface, Atspi.applicationInterface]
        // GetAll of an interface the object lacks: UnknownInterface; one it has without properties: nothing.
        #expect(Atspi.propertyInterfaces(Atspi.action, path: path, served: frame).map(\.count) == .failure(.unknownInterface(Atspi.action, path: path)))
        #expect(try Atspi.propertyInterfaces(Atspi.component, path: path, served: frame).get().flatMap(\.properties).isEmpty)
        #expect(try Atspi.propertyInterfaces("", path: path, served: app).get().map(\.name) == [Atspi.accessible, Atspi.application])
        #expect(try Atspi.property("Name", of: Atspi.accessible, path: path, served: frame).get().type == "s")
        #expect(Atspi.property("Nope", of: Atspi.accessible, path: path, served: frame).map(\.name) == .failure(.unknownProperty("Nope", interface: Atspi.accessible)))
        #expect(Atspi.property("NActions", of: Atspi.action, path: path, served: frame).map(\.name) == .failure(.unknownInterface(Atspi.action, path: path)))
        // Set: read-only → PropertyReadOnly; the writable Id with a value of another type → InvalidArgs.
        #expect(Atspi.property("Name", of: Atspi.accessible, path: path, served: frame, settingType: "s").map(\.name)
                == .failure(.readOnly("Name", interface: Atspi.accessible)))
        #expect(Atspi.property("Id", of: Atspi.application, path: path, served: app, settingType: "s").map(\.name)
                == .failure(.invalidArgs("org.a11y.atspi.Application.Id is of type i, not s")))
        #expect(Atspi.property("Id", of: Atspi.application, path: path, served: app, settingType: "").map(\.name)
                == .failure(.invalidArgs("org.a11y.atspi.Application.Id is of type i, not ")))
        #expect(try Atspi.property("Id", of: Atspi.application, path: path, served: app, settingType: "i").get().writable)
        #expect(Atspi.property("Id", of: Atspi.application, path: path, served: frame, settingType: "i").map(\.name)
                == .failure(.unknownInterface(Atspi.application, path: path)))
    }

    @Test func introspectionListsWhatIsServed() {
        let xml = Atspi.introspection(interfaces: frame, children: ["a"])
        for name in [Atspi.accessible, Atspi.component, Atspi.properties, Atspi.introspectable, "org.freedesktop.DBus.Peer"] {
            #expect(xml.contains("<interface name=\"\(name)\">"), "\(name)")
        }
        #expect(!xml.contains(Atspi.action))
        #expect(xml.contains("<method name=\"Contains\">\n   <arg type=\"i\" direction=\"in\"/>\n   <arg type=\"i\" direction=\"in\"/>\n   <arg type=\"u\" direction=\"in\"/>\n   <arg type=\"b\" direction=\"out\"/>"))
        #expect(xml.contains("<property name=\"Name\" type=\"s\" access=\"read\"/>"))
        #expect(xml.contains("<node name=\"a\"/>"))
        #expect(Atspi.signatureParts("ii(so)a{ss}aa(ua(so))v") == ["i", "i", "(so)", "a{ss}", "aa(ua(so))", "v"])
        #expect(Atspi.signatureParts("") == [])
        // Each method's input splits back into its signature.
        for i in [Atspi.accessibleInterface, Atspi.applicationInterface, Atspi.componentInterface, Atspi.actionInterface,
                  Atspi.propertiesInterface, Atspi.cacheInterface] {
            for m in i.methods { #expect(Atspi.signatureParts(m.input).joined() == m.input && Atspi.signatureParts(m.output).joined() == m.output) }
        }
    }

    @Test func onlyUnixSocketAddressesAreTaken() {
        #expect(Atspi.isSocketAddress("unix:path=/run/user/1000/at-spi/bus_0,guid=abc"))
        #expect(Atspi.isSocketAddress("unix:abstract=/tmp/dbus-x,guid=1;unix:path=/tmp/y"))
        for bad in ["unixexec:path=/usr/bin/touch,argv1=/tmp/x", "tcp:host=10.0.0.1,port=1", "unix:path=/a;unixexec:path=/bin/sh",
                    "", ";", "x11:", "UNIX:path=/a", " unix:path=/a", "kernel:path=/sys/fs/kdbus/0-user/bus"] {
            #expect(!Atspi.isSocketAddress(bad), "\(bad)")
        }
    }
}
