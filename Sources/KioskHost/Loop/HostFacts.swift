/// What the host does now, as facts for machines rather than log lines: the frame loop hands it
/// to the `HostEventHandler`s at the end of each pass (`hostShown`). The state file
/// (`StateFile`, `DARKMODE_KIOSK_STATE_FILE`) writes it beside the page's state; the fleet
/// takes the display's state from it.
public struct HostFacts: Equatable, Sendable {
    /// The page shown, the screen asleep, or no display connected.
    public var display: DisplayState = .on
    /// The presenter's name (`FramePresenter.name`: "drm (atomic, XRGB8888)", "wayland shm", …).
    public var presenter: String
    /// SDL's video driver ("x11", "wayland"; "evdev" under our DRM presenter).
    public var videoDriver: String
    /// How our DRM presenter's card was had (nil: SDL's display).
    public var card: CardOwner?
    /// Who reads touch screens and pointers.
    public var input: InputReaderKind
    /// The output in pixels (its mode, or the window) and the page's rotation in degrees.
    public var outputWidth: Int
    public var outputHeight: Int
    public var rotation: Int
    /// Frames presented since the start.
    public var framesPresented = 0
    /// The devices our input reader opened, by name, in the order first seen.
    public var inputDevices = InputDeviceTally()

    public init(presenter: String, videoDriver: String, card: CardOwner?, input: InputReaderKind,
                outputWidth: Int, outputHeight: Int, rotation: Int) {
        self.presenter = presenter
        self.videoDriver = videoDriver
        self.card = card
        self.input = input
        self.outputWidth = outputWidth
        self.outputHeight = outputHeight
        self.rotation = rotation
    }

    /// Equal but for the frame counter (which changes with every frame).
    public func sameApartFromFrames(_ other: HostFacts) -> Bool {
        var a = self
        a.framesPresented = other.framesPresented
        return a == other
    }
}

/// Who has the DRM card our presenter drives.
public enum CardOwner: String, Equatable, Sendable {
    /// The logind session gave it (`TakeDevice`).
    case logind
    /// Opened by the kiosk itself (the `video` group).
    case direct
}

/// Who reads touch screens and pointers.
public enum InputReaderKind: String, Equatable, Sendable {
    /// libinput with udev (`LibinputReader`).
    case libinput
    /// The kiosk's own evdev reader, without udev (`EvdevReader`).
    case evdev
    /// SDL's own input (a compositor's or X server's events).
    case sdl
}

/// The input devices a reader opened and closed, by name (pure): how often each was opened
/// and how many of that name are open now. A device is known to the reader by an id; a
/// removal names the id only.
public struct InputDeviceTally: Equatable, Sendable {
    public struct Device: Equatable, Sendable {
        public var name: String
        /// Times a device of this name was opened since the start.
        public var opened: Int
        /// Devices of this name open now.
        public var open: Int
    }

    public private(set) var devices: [Device] = []
    private var names: [Int64: String] = [:]

    public init() {}

    public mutating func added(id: Int64, name: String) {
        if names[id] != nil { removed(id: id) }
        names[id] = name
        if let i = devices.firstIndex(where: { $0.name == name }) {
            devices[i].opened += 1
            devices[i].open += 1
        } else {
            devices.append(Device(name: name, opened: 1, open: 1))
        }
    }

    public mutating func removed(id: Int64) {
        guard let name = names.removeValue(forKey: id), let i = devices.firstIndex(where: { $0.name == name }) else { return }
        devices[i].open = max(0, devices[i].open - 1)
    }
}
