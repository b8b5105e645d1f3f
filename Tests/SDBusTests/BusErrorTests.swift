import CSystemd
import Glibc
import SDBus
import Testing

@Suite struct BusErrorTests {
    @Test func anErrnoResultNamesTheStepAndTheCause() {
        let e = BusError(name: "connect", "cannot connect to the session bus", errno: -ENOENT)
        #expect(e.name == "connect")
        #expect(e.message == "cannot connect to the session bus: No such file or directory")
        #expect(e.description == "connect: cannot connect to the session bus: No such file or directory")
    }

    @Test func aDBusErrorKeepsItsNameAndMessage() {
        var err = csystemd_error_null()
        defer { sd_bus_error_free(&err) }
        _ = sd_bus_error_set(&err, "org.freedesktop.DBus.Error.AccessDenied", "not you")
        let e = BusError(name: err.name.map { String(cString: $0) }, message: err.message.map { String(cString: $0) }, result: -EACCES)
        #expect(e == BusError(name: "org.freedesktop.DBus.Error.AccessDenied", message: "not you"))
        #expect(!e.isNoOwner)
    }

    @Test func withoutADBusErrorTheErrnoSpeaks() {
        let e = BusError(name: nil, message: nil, result: -ETIMEDOUT)
        #expect(e.name == "errno")
        #expect(e.message == String(cString: strerror(ETIMEDOUT)))
    }

    @Test func bothNoOwnerErrorsAreNoOwner() {
        #expect(BusError(name: "org.freedesktop.DBus.Error.ServiceUnknown", message: "").isNoOwner)
        #expect(BusError(name: "org.freedesktop.DBus.Error.NameHasNoOwner", message: "x").isNoOwner)
        #expect(!BusError(name: BusError.unknownMethod, message: "").isNoOwner)
    }

    @Test func anEmptyMessageIsNotPrinted() {
        #expect(BusError(name: "org.example.Error", message: "").description == "org.example.Error")
    }

    @Test func addressesSayWhichBus() {
        #expect(BusAddress.session.description == "session bus")
        #expect(BusAddress.system.description == "system bus")
        #expect(BusAddress.address("unix:path=/x").description == "bus unix:path=/x")
    }

    @Test func anUnreachableAddressFailsToConnectWithALine() {
        guard case .failure(let e) = BusConnection.open(.address("unix:path=/nonexistent/sdbus-test")) else {
            Issue.record("connected to a bus that does not exist")
            return
        }
        #expect(e.name == "connect")
        #expect(e.message.hasPrefix("cannot connect to the bus unix:path=/nonexistent/sdbus-test: "), "\(e.message)")
    }
}

@Suite struct BusValueTests {
    @Test func variantsAreUnwrappedAtAnyDepth() {
        let v = BusValue.variant(.variant(.uint32(1)))
        #expect(v.uint32 == 1)
        #expect(v.double == 1)
        #expect(v.string == nil)
    }

    @Test func numbersConvertOnlyWhereTheyFit() {
        #expect(BusValue.int32(-1).uint32 == nil)
        #expect(BusValue.int32(5).uint32 == 5)
        #expect(BusValue.double(0.5).uint32 == nil)
        #expect(BusValue.int32(-3).double == -3)
    }

    @Test func aDictionaryNeedsStringKeysThroughout() {
        let good = BusValue.array([.entry(.string("a"), .variant(.bool(true))), .entry(.string("b"), .variant(.double(2)))])
        #expect(good.dictionary?["a"]?.bool == true)
        #expect(good.dictionary?["b"]?.double == 2)
        #expect(BusValue.array([.entry(.uint32(1), .bool(true))]).dictionary == nil)
        #expect(BusValue.string("x").dictionary == nil)
    }
}
