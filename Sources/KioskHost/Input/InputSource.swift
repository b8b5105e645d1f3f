import KioskSupport
#if canImport(Glibc)
import Glibc
import Log
#endif

/// The reader of touch screens, tablets and mice the kiosk runs itself (KMS/DRM), as the host
/// starts it before the frame loop: libinput while udevd runs, else the evdev reader, else none
/// (SDL's own input stays). The loop only takes what it queued (`take`) when an event of
/// `eventType` wakes it; the host stops it after the loop.
final class InputSource {
    private let reader: DeviceInputReader
    /// The SDL event type the reader wakes the loop with.
    let eventType: UInt32
    /// Which reader runs.
    let kind: InputReaderKind

    private init(reader: DeviceInputReader, eventType: UInt32, kind: InputReaderKind) {
        self.reader = reader
        self.eventType = eventType
        self.kind = kind
    }

    /// Everything queued since the last call, oldest first.
    func take() -> [StampedInput] { reader.take() }

    /// Stops the reader thread (the devices' grabs end).
    func stop() { reader.stop() }

    /// The device descriptors the reader has open (any thread).
    var heldDescriptors: Set<Int32> { reader.heldDescriptors }

    /// Starts the reader `InputReaderChoice` (`choice`) and `InputBackend` say (one line names
    /// it); when libinput cannot start the evdev reader is tried, and when that fails too SDL's
    /// own input stays (nil; one warning line says why).
    static func start(choice: InputReaderChoice, seat: String, replacesCalibration: Bool) -> InputSource? {
        guard let backend = InputBackend.choose(choice, udevRunning: access("/run/udev/control", F_OK) == 0),
              let poster = HostEventPoster.register() else { return nil }
        Log.info(InputBackend.startLine(backend, choice: choice, seat: seat))
        let wake: @Sendable () -> Bool = { poster.wake() }
        if backend == .libinputUdev {
            switch LibinputReader.start(seat: seat, replacesCalibration: replacesCalibration, wake: wake) {
            case .success(let reader):
                return InputSource(reader: reader, eventType: poster.eventType, kind: .libinput)
            case .failure(let error):
                Log.warning("input: libinput not used (\(error.reason)); reading /dev/input/event* directly instead")
            }
        }
        switch EvdevReader.start(wake: wake) {
        case .success(let reader):
            return InputSource(reader: reader, eventType: poster.eventType, kind: .evdev)
        case .failure(let error):
            Log.warning("input: the evdev reader not used (\(error.reason)); SDL's own input stays in use")
            return nil
        }
    }
}
