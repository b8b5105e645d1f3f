import Log
import CDRM
import KioskSupport
import Raster
#if canImport(Glibc)
import Glibc
#endif
import Threads

/// A DRM card opened for the framebuffer presenter, with the pipeline chosen: the connector the
/// config names (`display.connector`) or the first connected one (`DisplayRules.pickConnector`),
/// its preferred mode, a CRTC its encoders can drive, the CRTC's primary plane (its formats;
/// with the atomic capability, the plane's properties) and the pixel format. A card with no
/// connected display is opened all the same (`hasDisplay` false, a stand-in size): `rescan`
/// reads the connectors again when the kernel says one changed (`DisplayWatch`). It holds DRM
/// master (the right to set modes and flip); `close()` puts back the CRTC as it found it (the
/// console's framebuffer) and drops master. The `KMSCard` the presenter draws on.
final class DrmDevice: KMSCard {
    let fd: Int32
    let path: String
    private(set) var connectorID: UInt32
    private(set) var connectorName: String?
    private(set) var crtcID: UInt32
    var mode: drmModeModeInfo
    private(set) var width: Int
    private(set) var height: Int
    private(set) var refreshRate: Double
    private(set) var dpi: Double?
    private(set) var format: ScanoutFormat
    /// The primary plane's atomic properties (nil: legacy only).
    private(set) var plane: AtomicPlane?
    /// The flip methods to try, best first.
    private(set) var flipOrder: [DrmRules.FlipMethod]
    /// Whether the CRTC has vblank interrupts (without, frames are drawn in place).
    private(set) var hasVBlank: Bool
    /// A usable display is connected (else the page waits for one).
    private(set) var hasDisplay: Bool
    /// How the card was had: from logind (whose session then owns the display) or opened
    /// directly.
    let access: CardAccess
    /// The connector the config names (`display.connector`); nil: the first connected one.
    let wantedConnector: String?
    private let env: HostEnvironment
    private var saved: UnsafeMutablePointer<drmModeCrtc>?
    private var savedConnector: UInt32 = 0
    private var closed = false

    struct AtomicPlane {
        let id: UInt32
        let fbID: UInt32
        let crtcID: UInt32
        /// FB_DAMAGE_CLIPS, when the driver has it.
        let damageClips: UInt32?
        /// Where the plane takes its picture from and puts it (to show a buffer without a modeset).
        let srcX, srcY, srcW, srcH, crtcX, crtcY, crtcW, crtcH: UInt32?
    }

    struct OpenError: Error {
        let message: String
        /// The card could drive a display, but none is connected.
        var noDisplay = false
    }

    /// What a card's connectors gave: the connector, its CRTC and mode, and the choices made.
    private struct Pipeline {
        let connectorID: UInt32
        let connectorName: String
        let crtcID: UInt32
        let mode: drmModeModeInfo
        let dpi: Double?
        let format: ScanoutFormat
        let plane: AtomicPlane?
        let flipOrder: [DrmRules.FlipMethod]
        let hasVBlank: Bool
    }

    /// `p` nil: no display yet (the stand-in size, XRGB8888, drawn in place until one comes).
    private init(fd: Int32, path: String, pipeline p: Pipeline?, access: CardAccess, env: HostEnvironment, wanted: String?) {
        self.fd = fd
        self.path = path
        self.access = access
        self.env = env
        wantedConnector = wanted
        connectorID = 0
        crtcID = 0
        mode = drmModeModeInfo()
        (width, height) = DisplayRules.standInSize
        refreshRate = 60
        format = .xrgb8888
        flipOrder = [.dirty]
        hasVBlank = false
        hasDisplay = false
        if let p { adopt(p) }
    }

    /// Takes `p` as the pipeline to drive; the CRTC's state is saved the first time (given
    /// back at `close`).
    private func adopt(_ p: Pipeline) {
        connectorID = p.connectorID
        connectorName = p.connectorName
        crtcID = p.crtcID
        mode = p.mode
        width = Int(p.mode.hdisplay)
        height = Int(p.mode.vdisplay)
        refreshRate = p.mode.vrefresh > 0 ? Double(p.mode.vrefresh) : 60
        dpi = p.dpi
        format = p.format
        plane = p.plane
        flipOrder = p.flipOrder
        hasVBlank = p.hasVBlank
        hasDisplay = true
        if saved == nil {
            saved = drmModeGetCrtc(fd, p.crtcID)
            savedConnector = p.connectorID
        }
    }

    deinit { close() }

    /// The output driven now, as `DisplayRules` compares them (nil: none).
    private var output: DisplayRules.Output? {
        guard hasDisplay, let connectorName else { return nil }
        return DisplayRules.Output(connector: connectorName, width: width, height: height, refresh: Int(mode.vrefresh))
    }

    /// Reads the connectors again (a hot-plug event): the connector, mode and CRTC to drive
    /// now, and what that means for the presenter (`DisplayRules.change`).
    func rescan() -> DisplayRules.Change {
        let before = output
        let drawnFor = (width, height)
        switch Self.scanConnectors(fd: fd, env: env, wanted: wantedConnector) {
        case .success(let p?):
            let after = DisplayRules.Output(connector: p.connectorName, width: Int(p.mode.hdisplay),
                                            height: Int(p.mode.vdisplay), refresh: Int(p.mode.vrefresh))
            let change = DisplayRules.change(before: before, after: after, drawnFor: drawnFor)
            if change != .unchanged { adopt(p) }
            return change
        case .success(nil):
            hasDisplay = false
            return DisplayRules.change(before: before, after: nil, drawnFor: drawnFor)
        case .failure(let e):
            Log.warning("\(path): reading the connectors again failed: \(e.message)")
            return .unchanged
        }
    }

    /// The card paths to try: `device` (`DARKMODE_KIOSK_DRM_DEVICE`), else /dev/dri/card0…card15 that exist.
    static func candidatePaths(device: String?) -> [String] {
        if let device { return [device] }
        return (0..<16).map { "/dev/dri/card\($0)" }.filter { Glibc.access($0, F_OK) == 0 }
    }

    /// Opens the first card with a connected display and takes DRM master: from `logind`'s
    /// session when it gives the card, else directly. When no card has a display connected
    /// (a TV still off at boot), the first card that could drive one is opened to wait for it
    /// (`hasDisplay` false). The error names every card tried and why it was not used. `env`:
    /// the card, connector, format and flip method asked for.
    static func open(logind: LogindSeat?, env: HostEnvironment, connector: String? = nil) -> Result<DrmDevice, OpenError> {
        let paths = candidatePaths(device: env.drmDevice)
        guard !paths.isEmpty else { return .failure(OpenError(message: "no DRM card (/dev/dri/card*)")) }
        var reasons: [String] = []
        // The first card that could drive a display but has none connected: kept open (a card
        // from logind cannot be taken twice) while the others are tried.
        var waiting: DrmDevice?
        for path in paths {
            switch openCard(path, logind: logind, env: env, wanted: connector, orWait: waiting == nil) {
            case .success(let d) where d.hasDisplay:
                waiting?.close()
                return .success(d)
            case .success(let d):
                waiting = d
                reasons.append("\(path): no connected display")
            case .failure(let e):
                reasons.append("\(path): \(e.message)")
            }
        }
        if let waiting {
            Log.info("\(waiting.path): no connected display; waiting for one")
            return .success(waiting)
        }
        return .failure(OpenError(message: reasons.joined(separator: "; ")))
    }

    private static func errnoText(_ code: Int32 = errno) -> String { String(cString: strerror(code)) }

    private static func openCard(_ path: String, logind: LogindSeat?, env: HostEnvironment, wanted: String?,
                                 orWait: Bool) -> Result<DrmDevice, OpenError> {
        var access = CardAccess.direct
        var fd: Int32 = -1
        if let logind, let taken = logind.takeDevice(path: path) {
            fd = taken
            access = .logind(logind)
        } else {
            fd = Glibc.open(path, O_RDWR | O_CLOEXEC)
            guard fd >= 0 else {
                let e = errno
                let hint = e == EACCES ? " (the user must be in the video group, or run in a logind session)" : ""
                return .failure(OpenError(message: "cannot open: \(errnoText(e))\(hint)"))
            }
        }
        switch pipeline(fd: fd, env: env, wanted: wanted) {
        case .success(let p):
            return .success(DrmDevice(fd: fd, path: path, pipeline: p, access: access, env: env, wanted: wanted))
        case .failure(let e) where e.noDisplay && orWait:
            return .success(DrmDevice(fd: fd, path: path, pipeline: nil, access: access, env: env, wanted: wanted))
        case .failure(let e):
            Glibc.close(fd)
            return .failure(e)
        }
    }

    /// Master, dumb buffers and the first connected connector's pipeline on the card at `fd`.
    private static func pipeline(fd: Int32, env: HostEnvironment, wanted: String?) -> Result<Pipeline, OpenError> {
        if drmIsMaster(fd) == 0, drmSetMaster(fd) != 0 {
            return .failure(OpenError(message: "cannot become DRM master (\(errnoText())): another program drives this display (a compositor, a display manager, another kiosk)"))
        }
        var dumb: UInt64 = 0
        guard drmGetCap(fd, UInt64(CDRM_CAP_DUMB_BUFFER), &dumb) == 0, dumb != 0 else {
            return .failure(OpenError(message: "no dumb buffers (not a KMS display device)"))
        }
        _ = drmSetClientCap(fd, UInt64(CDRM_CLIENT_CAP_UNIVERSAL_PLANES), 1)
        switch scanConnectors(fd: fd, env: env, wanted: wanted) {
        case .success(let p?): return .success(p)
        case .success(nil):
            return .failure(OpenError(message: "no connected display with a mode and a free CRTC", noDisplay: true))
        case .failure(let e): return .failure(e)
        }
    }

    /// The pipeline through the connector to drive (`DisplayRules.pickConnector`: the one
    /// `wanted` names, else the first usable); nil when no connector has a
    /// display, a mode and a CRTC.
    private static func scanConnectors(fd: Int32, env: HostEnvironment, wanted: String?) -> Result<Pipeline?, OpenError> {
        guard let res = drmModeGetResources(fd) else {
            return .failure(OpenError(message: "no mode-setting resources (a render-only device)"))
        }
        defer { drmModeFreeResources(res) }
        let r = res.pointee
        let crtcs = (0..<Int(r.count_crtcs)).map { r.crtcs[$0] }
        var found: [(DisplayRules.Connector, Result<Pipeline, OpenError>?)] = []
        for c in 0..<Int(r.count_connectors) {
            guard let conn = drmModeGetConnector(fd, r.connectors[c]) else { continue }
            defer { drmModeFreeConnector(conn) }
            let k = conn.pointee
            let name = DisplayRules.connectorName(type: k.connector_type, typeID: k.connector_type_id)
            let p = pipeline(fd: fd, connector: k, name: name, crtcs: crtcs, env: env)
            found.append((DisplayRules.Connector(name: name, usable: p != nil), p))
        }
        guard let i = DisplayRules.pickConnector(found.map(\.0), wanted: wanted), let p = found[i].1 else {
            return .success(nil)
        }
        return p.map { $0 }
    }

    /// The pipeline through connector `k`: nil when it has no display, mode or CRTC (the next
    /// connector is tried); a failure when its plane takes none of our formats.
    private static func pipeline(fd: Int32, connector k: drmModeConnector, name: String, crtcs: [UInt32],
                                 env: HostEnvironment) -> Result<Pipeline, OpenError>? {
        guard k.connection == DRM_MODE_CONNECTED, k.count_modes > 0 else { return nil }
        let modes = (0..<Int(k.count_modes)).map { k.modes[$0] }
        guard let m = DrmRules.pickMode(modes.map {
            (Int($0.hdisplay), Int($0.vdisplay), Int($0.vrefresh), $0.type & CDRM_MODE_TYPE_PREFERRED != 0)
        }) else { return nil }
        guard let crtcIndex = pickCRTC(fd: fd, connector: k, crtcs: crtcs) else { return nil }
        let crtcID = crtcs[crtcIndex]
        let primary = primaryPlane(fd: fd, crtcIndex: crtcIndex)
        let (format, warning) = DrmRules.pickFormat(request: env.drmFormat,
                                                    planeFormats: primary?.formats)
        if let warning { Log.warning(warning) }
        guard let format else { return .failure(OpenError(message: "the display's plane takes neither XRGB8888 nor RGB565")) }
        var plane: AtomicPlane?
        if let primary, drmSetClientCap(fd, UInt64(CDRM_CLIENT_CAP_ATOMIC), 1) == 0 {
            let props = properties(fd: fd, object: primary.id, type: CDRM_MODE_OBJECT_PLANE)
            if let fb = props["FB_ID"], let crtc = props["CRTC_ID"] {
                plane = AtomicPlane(id: primary.id, fbID: fb, crtcID: crtc, damageClips: props["FB_DAMAGE_CLIPS"],
                                    srcX: props["SRC_X"], srcY: props["SRC_Y"], srcW: props["SRC_W"], srcH: props["SRC_H"],
                                    crtcX: props["CRTC_X"], crtcY: props["CRTC_Y"], crtcW: props["CRTC_W"], crtcH: props["CRTC_H"])
            }
        }
        let vblank = hasVBlank(fd: fd, crtcID: crtcID)
        let order = DrmRules.flipOrder(request: env.drmFlip,
                                       atomicAvailable: plane != nil, hasVBlank: vblank)
        return .success(Pipeline(connectorID: k.connector_id, connectorName: name, crtcID: crtcID, mode: modes[m],
                                 dpi: DrmRules.dpi(pixels: Int(modes[m].hdisplay), millimetres: Int(k.mmWidth)),
                                 format: format, plane: plane, flipOrder: order, hasVBlank: vblank))
    }

    /// Whether the CRTC has vblank interrupts: the kernel answers a vblank sequence query with
    /// EOPNOTSUPP when the driver has none. Any other failure (e.g. the CRTC is off just now)
    /// says nothing against them.
    private static func hasVBlank(fd: Int32, crtcID: UInt32) -> Bool {
        var sequence: UInt64 = 0, nanoseconds: UInt64 = 0
        return drmCrtcGetSequence(fd, crtcID, &sequence, &nanoseconds) == 0 || errno != EOPNOTSUPP
    }

    /// The CRTC (index into `crtcs`) for a connector: its current encoder's, else the first its
    /// encoders can drive.
    private static func pickCRTC(fd: Int32, connector k: drmModeConnector, crtcs: [UInt32]) -> Int? {
        if k.encoder_id != 0, let enc = drmModeGetEncoder(fd, k.encoder_id) {
            defer { drmModeFreeEncoder(enc) }
            if enc.pointee.crtc_id != 0, let i = crtcs.firstIndex(of: enc.pointee.crtc_id) { return i }
        }
        for e in 0..<Int(k.count_encoders) {
            guard let enc = drmModeGetEncoder(fd, k.encoders[e]) else { continue }
            defer { drmModeFreeEncoder(enc) }
            if let i = crtcs.indices.first(where: { enc.pointee.possible_crtcs & (1 << UInt32($0)) != 0 }) { return i }
        }
        return nil
    }

    /// The primary plane of the CRTC at `crtcIndex` and the formats of ours it takes (nil when
    /// the driver lists no planes).
    private static func primaryPlane(fd: Int32, crtcIndex: Int) -> (id: UInt32, formats: [ScanoutFormat])? {
        guard let pres = drmModeGetPlaneResources(fd) else { return nil }
        defer { drmModeFreePlaneResources(pres) }
        var fallback: (id: UInt32, formats: [ScanoutFormat])?
        for i in 0..<Int(pres.pointee.count_planes) {
            guard let p = drmModeGetPlane(fd, pres.pointee.planes[i]) else { continue }
            defer { drmModeFreePlane(p) }
            guard p.pointee.possible_crtcs & (1 << UInt32(crtcIndex)) != 0 else { continue }
            let raw = (0..<Int(p.pointee.count_formats)).map { p.pointee.formats[$0] }
            var formats: [ScanoutFormat] = []
            if raw.contains(CDRM_FORMAT_XRGB8888) { formats.append(.xrgb8888) }
            if raw.contains(CDRM_FORMAT_RGB565) { formats.append(.rgb565) }
            let type = properties(fd: fd, object: p.pointee.plane_id, type: CDRM_MODE_OBJECT_PLANE, values: true)["type"]
            if type == 1 { return (p.pointee.plane_id, formats) }  // DRM_PLANE_TYPE_PRIMARY
            if fallback == nil { fallback = (p.pointee.plane_id, formats) }
        }
        return fallback
    }

    /// An object's property ids by name (or, with `values`, their values).
    static func properties(fd: Int32, object: UInt32, type: UInt32, values: Bool = false) -> [String: UInt32] {
        guard let props = drmModeObjectGetProperties(fd, object, type) else { return [:] }
        defer { drmModeFreeObjectProperties(props) }
        var out: [String: UInt32] = [:]
        for i in 0..<Int(props.pointee.count_props) {
            guard let prop = drmModeGetProperty(fd, props.pointee.props[i]) else { continue }
            defer { drmModeFreeProperty(prop) }
            let name = withUnsafeBytes(of: prop.pointee.name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            out[name] = values ? UInt32(truncatingIfNeeded: props.pointee.prop_values[i]) : prop.pointee.prop_id
        }
        return out
    }

    // MARK: Scanout (KMSCard)

    func makeBuffer() throws(CardFailure) -> ScanoutBuffer {
        try DumbBuffer.make(fd: fd, width: width, height: height, format: format)
    }

    func setCRTC(fb: UInt32) throws(CardFailure) {
        var connector = connectorID
        guard drmModeSetCrtc(fd, crtcID, fb, 0, 0, &connector, 1, &mode) == 0 else {
            throw CardFailure(step: "drmModeSetCrtc", code: errno)
        }
    }

    var outputFlipOrder: [DrmRules.FlipMethod]? { flipOrder }

    /// The CRTC already shows our mode on our connector (the console's, or a boot splash's):
    /// the first page can go up without a modeset.
    func modeAlreadySet() -> Bool {
        guard hasDisplay, let crtc = drmModeGetCrtc(fd, crtcID) else { return false }
        defer { drmModeFreeCrtc(crtc) }
        guard crtc.pointee.mode_valid != 0, Self.sameMode(crtc.pointee.mode, mode) else { return false }
        guard let conn = drmModeGetConnector(fd, connectorID) else { return false }
        defer { drmModeFreeConnector(conn) }
        guard conn.pointee.encoder_id != 0, let enc = drmModeGetEncoder(fd, conn.pointee.encoder_id) else { return false }
        defer { drmModeFreeEncoder(enc) }
        return enc.pointee.crtc_id == crtcID
    }

    private static func sameMode(_ a: drmModeModeInfo, _ b: drmModeModeInfo) -> Bool {
        func timing(_ m: drmModeModeInfo) -> [UInt32] {
            [m.clock, UInt32(m.hdisplay), UInt32(m.hsync_start), UInt32(m.hsync_end), UInt32(m.htotal),
             UInt32(m.vdisplay), UInt32(m.vsync_start), UInt32(m.vsync_end), UInt32(m.vtotal), m.flags]
        }
        return timing(a) == timing(b)
    }

    /// Puts `fb` on the primary plane by an atomic commit without `ALLOW_MODESET` (the kernel
    /// refuses it if a modeset were needed): the mode stays, no blank frame. Blocking, no event.
    func showWithoutModeset(fb: UInt32) throws(CardFailure) {
        guard let plane, let req = drmModeAtomicAlloc() else { throw CardFailure(step: "drmModeAtomicAlloc", code: ENOTSUP) }
        defer { drmModeAtomicFree(req) }
        let (w, h) = (UInt64(width), UInt64(height))
        let values: [(UInt32?, UInt64)] = [
            (plane.fbID, UInt64(fb)), (plane.crtcID, UInt64(crtcID)),
            (plane.srcX, 0), (plane.srcY, 0), (plane.srcW, w << 16), (plane.srcH, h << 16),
            (plane.crtcX, 0), (plane.crtcY, 0), (plane.crtcW, w), (plane.crtcH, h),
        ]
        for case let (property?, value) in values { _ = drmModeAtomicAddProperty(req, plane.id, property, value) }
        guard drmModeAtomicCommit(fd, req, 0, nil) == 0 else { throw CardFailure(step: "drmModeAtomicCommit (no modeset)", code: errno) }
    }

    func pageFlip(fb: UInt32) throws(CardFailure) {
        guard drmModePageFlip(fd, crtcID, fb, CDRM_MODE_PAGE_FLIP_EVENT, nil) == 0 else {
            throw CardFailure(step: "drmModePageFlip", code: errno)
        }
    }

    func commitAtomic(fb: UInt32, clips: [IntRect]) throws(CardFailure) {
        guard let plane, let req = drmModeAtomicAlloc() else { throw CardFailure(step: "drmModeAtomicAlloc", code: ENOTSUP) }
        defer { drmModeAtomicFree(req) }
        _ = drmModeAtomicAddProperty(req, plane.id, plane.fbID, UInt64(fb))
        _ = drmModeAtomicAddProperty(req, plane.id, plane.crtcID, UInt64(crtcID))
        var blob: UInt32 = 0
        if let damage = plane.damageClips, !clips.isEmpty {
            var rects = clips.map { drm_mode_rect(x1: Int32($0.minX), y1: Int32($0.minY), x2: Int32($0.maxX), y2: Int32($0.maxY)) }
            if drmModeCreatePropertyBlob(fd, &rects, rects.count * MemoryLayout<drm_mode_rect>.stride, &blob) == 0 {
                _ = drmModeAtomicAddProperty(req, plane.id, damage, UInt64(blob))
            }
        }
        let ok = drmModeAtomicCommit(fd, req, CDRM_MODE_ATOMIC_NONBLOCK | CDRM_MODE_PAGE_FLIP_EVENT, nil) == 0
        let e = errno
        // The commit holds its own reference to the blob.
        if blob != 0 { _ = drmModeDestroyPropertyBlob(fd, blob) }
        guard ok else { throw CardFailure(step: "drmModeAtomicCommit", code: e) }
    }

    /// ENOSYS: the driver scans the buffer out itself and needs no telling.
    func markDirty(fb: UInt32, clips: [IntRect]) {
        guard !clips.isEmpty else { return }
        var c = clips.map { drm_clip_rect(x1: UInt16(clamping: $0.minX), y1: UInt16(clamping: $0.minY),
                                          x2: UInt16(clamping: $0.maxX), y2: UInt16(clamping: $0.maxY)) }
        _ = drmModeDirtyFB(fd, fb, &c, UInt32(c.count))
    }

    /// The page-flip event's vblank time (the kernel's CLOCK_MONOTONIC, DRM's default), seconds.
    private(set) var lastFlipTime: Double?
    /// Where the event handler (a C function pointer, no captures) leaves the time. Main thread only.
    nonisolated(unsafe) private static var flipSeconds: Double?

    func awaitFlipEvent(milliseconds: Int32) -> Bool {
        var left = milliseconds
        while true {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let start = MonotonicClock.seconds()
            let n = poll(&p, 1, left)
            if n > 0 {
                Self.flipSeconds = nil
                _ = cdrm_handle_events(fd) { _, _, sec, usec, _ in
                    DrmDevice.flipSeconds = Double(sec) + Double(usec) / 1_000_000
                }
                if let t = Self.flipSeconds { lastFlipTime = t }
                return true
            }
            guard n < 0, errno == EINTR else { return false }
            left -= Int32((MonotonicClock.seconds() - start) * 1000)
            if left <= 0 { return false }
        }
    }

    /// Puts the CRTC back as it was found (the console's framebuffer) and drops master. Once.
    func close() {
        guard !closed else { return }
        closed = true
        if let saved {
            let s = saved.pointee
            var connector = savedConnector
            var mode = s.mode
            if s.buffer_id != 0, s.mode_valid != 0 {
                _ = drmModeSetCrtc(fd, crtcID, s.buffer_id, s.x, s.y, &connector, 1, &mode)
            }
            drmModeFreeCrtc(saved)
        }
        _ = drmDropMaster(fd)
        Glibc.close(fd)
    }

    /// Drops master (a VT switch away); the display keeps what it shows until the next master.
    func dropMaster() -> Bool { drmDropMaster(fd) == 0 }

    /// Takes master back (a VT switch back).
    func takeMaster() -> Bool { drmIsMaster(fd) != 0 || drmSetMaster(fd) == 0 }

    /// What the log says of the display: card, connector, mode, format and access.
    var summary: String {
        guard hasDisplay else { return "\(path) no display yet, \(access.summary)" }
        return "\(path) \(connectorName ?? "?") \(width)x\(height)@\(Int(refreshRate.rounded())) Hz \(format.name)"
            + "\(hasVBlank ? "" : " (no vblank)"), \(access.summary)"
    }
}

/// How the card was had.
enum CardAccess {
    /// Opened by us (needs the `video` group); VT switches are ours to follow (`VTSeat`).
    case direct
    /// From the logind session (`TakeDevice`), which also says when it pauses and resumes it.
    case logind(LogindSeat)

    /// Who has the card, for `HostFacts`.
    var owner: CardOwner {
        switch self {
        case .direct: return .direct
        case .logind: return .logind
        }
    }

    /// What the log calls it.
    var summary: String {
        switch self {
        case .direct: return "opened directly"
        case .logind: return "from logind"
        }
    }
}

