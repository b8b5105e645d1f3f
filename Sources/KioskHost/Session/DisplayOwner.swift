/// The seat of the card our own presenter drives, and the dispatch of what it says: each
/// pause or resume (a VT switch away or back, from the kernel or from logind) goes to the DRM
/// presenter. Held by the window (`KioskWindow`) for as long as the card is open.
final class DisplayOwner {
    private let seat: Seat
    private let presenter: DrmPresenter

    init(seat: Seat, presenter: DrmPresenter) {
        self.seat = seat
        self.presenter = presenter
    }

    /// The seat of a card: logind's session when the card came from it; opened directly, the
    /// VT's own switch signals when the console's VT takes `VT_PROCESS` mode, else none.
    static func seat(for drm: DrmDevice) -> Seat {
        switch drm.access {
        case .logind(let seat):
            return seat
        case .direct:
            let tty = VirtualConsole.state.pointee.fd
            return (tty >= 0 ? VTSeat(tty: tty) : nil) ?? PlainSeat()
        }
    }

    /// Hands what the seat says to the presenter; true when the display came back (the whole
    /// page must be sent).
    func service() -> Bool {
        var resumed = false
        seat.service { event in
            if presenter.handle(event) { resumed = true }
        }
        return resumed
    }

    /// Descriptors whose input means the seat has something to say (for the idle wait).
    var pollDescriptors: [Int32] { seat.pollDescriptor.map { [$0] } ?? [] }

    /// Gives up what the seat holds (logind control given back, the VT to `VT_AUTO`), after
    /// the presenter has closed the card.
    func close() { seat.close() }
}
