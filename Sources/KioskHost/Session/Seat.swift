/// Who owns the display the kiosk drives itself (KMS/DRM), and how the kiosk hears that it
/// must let go of it and may take it back. One instance, held by the host (`DisplayOwner`, in
/// `KioskWindow`) for as long as the card is open; one implementation per way of owning the
/// display:
/// - `LogindSeat`: the card from the logind session (`TakeDevice`); logind switches the VT
///   and says so with `PauseDevice`/`ResumeDevice`.
/// - `VTSeat`: the card opened directly on a VT; the VT's own switch signals (`VT_SETMODE`
///   `VT_PROCESS`).
/// - `PlainSeat`: opened directly with no VT to follow: nothing ever asks for the display.
///
/// `pollDescriptor` wakes the idle wait (`IdleWait`) when an event may be waiting; the frame
/// loop then calls `service`.
protocol Seat: AnyObject {
    /// Readable when an event may be waiting (nil: events never come).
    var pollDescriptor: Int32? { get }
    /// Hands the events that came since the last call to `handle`, in order, and does what
    /// the owner of the VT expects around each: a pause is answered after `handle` returns
    /// (the display let go of), a resume acknowledged before it is handed on.
    func service(_ handle: (SeatEvent) -> Void)
    /// Gives up whatever the seat holds (after the card is closed). Once.
    func close()
}

/// What a seat says of the display.
enum SeatEvent: Equatable {
    /// The display is going to another VT or session: stop drawing and let go of master.
    case pause(PauseKind)
    /// The display is ours again: take master, set the mode and send the whole page.
    case resume
}

/// How a pause comes.
enum PauseKind: Equatable {
    /// Asked for: the switch waits until the kiosk has let go (logind's "pause", the VT's
    /// release signal).
    case asked
    /// Already done: master is gone (logind's "force").
    case forced
    /// The device itself went away (logind's "gone").
    case gone

    /// logind's `PauseDevice` type ("pause", "force", "gone"); an unknown one is taken as done.
    init(logindType: String) {
        switch logindType {
        case "pause": self = .asked
        case "gone": self = .gone
        default: self = .forced
        }
    }
}

/// The card opened directly with no VT to follow (none found, or it refused `VT_PROCESS`).
final class PlainSeat: Seat {
    var pollDescriptor: Int32? { nil }
    func service(_ handle: (SeatEvent) -> Void) {}
    func close() {}
}
