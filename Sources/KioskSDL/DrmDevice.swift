import CDRM
import Raster
#if canImport(Glibc)
import Glibc
#endif

/// A DRM card opened for the framebuffer presenter, with the pipeline chosen: the first
/// connected connector, its preferred mode, a CRTC its encoders can drive, the CRTC's primary
/// plane (its formats; with the atomic capability, the plane's properties) and the pixel
/// format. It holds DRM master (the right to set modes and flip); `close()` puts back the CRTC
/// as it found it (the console's framebuffer) and drops master.
final class DrmDevice {
    let fd: Int32
    let path: String
    let connectorID: UInt32
    let crtcID: UInt32
    var mode: drmModeModeInfo
    let width: Int
    let height: Int
    let refreshRate: Double
    let dpi: Double?
    let format: ScanoutFormat
    /// The primary plane's atomic properties (nil: legacy only).
    let plane: AtomicPlane?
    /// The flip methods to try, best first.
    let flipOrder: [DrmRules.FlipMethod]
    /// Whether the CRTC has vblank interrupts (without, frames are drawn in place).
    let hasVBlank: Bool
    /// How the device was obtained (for the log): "opened directly" or "from logind".
    let access: String
    private let saved: UnsafeMutablePointer<drmModeCrtc>?
    private var closed = false

    struct AtomicPlane {
        let id: UInt32
        let fbID: UInt32
        let crtcID: UInt32
        /// FB_DAMAGE_CLIPS, when the driver has it.
        let damageClips: UInt32?
    }

    struct OpenError: Error {
        let message: String
    }

    private init(fd: Int32, path: String, connectorID: UInt32, crtcID: UInt32, mode: drmModeModeInfo, dpi: Double?,
                 format: ScanoutFormat, plane: AtomicPlane?, flipOrder: [DrmRules.FlipMethod], hasVBlank: Bool, access: String,
                 saved: UnsafeMutablePointer<drmModeCrtc>?) {
        self.fd = fd
        self.path = path
        self.connectorID = connectorID
        self.crtcID = crtcID
        self.mode = mode
        width = Int(mode.hdisplay)
        height = Int(mode.vdisplay)
        refreshRate = mode.vrefresh > 0 ? Double(mode.vrefresh) : 60
        self.dpi = dpi
        self.format = format
        self.plane = plane
        self.flipOrder = flipOrder
        self.hasVBlank = hasVBlank
        self.access = access
        self.saved = saved
    }

    deinit { close() }

    /// The card paths to try: `DARKMODE_KIOSK_DRM_DEVICE`, else /dev/dri/card0…card15 that exist.
    static func candidatePaths() -> [String] {
        if let p = getenv("DARKMODE_KIOSK_DRM_DEVICE"), p.pointee != 0 { return [String(cString: p)] }
        return (0..<16).map { "/dev/dri/card\($0)" }.filter { Glibc.access($0, F_OK) == 0 }
    }

    /// Opens the first card with a connected display and takes DRM master. The error names
    /// every card tried and why it was not used.
    static func open() -> Result<DrmDevice, OpenError> {
        let paths = candidatePaths()
        guard !paths.isEmpty else { return .failure(OpenError(message: "no DRM card (/dev/dri/card*)")) }
        var reasons: [String] = []
        for path in paths {
            switch openCard(path) {
            case .success(let d): return .success(d)
            case .failure(let e): reasons.append("\(path): \(e.message)")
            }
        }
        return .failure(OpenError(message: reasons.joined(separator: "; ")))
    }

    private static func errnoText(_ code: Int32 = errno) -> String { String(cString: strerror(code)) }

    private static func openCard(_ path: String) -> Result<DrmDevice, OpenError> {
        var access = "opened directly"
        var fd: Int32 = -1
        if let taken = LogindDevice.take(path: path) {
            fd = taken
            access = "from logind"
        } else {
            fd = Glibc.open(path, O_RDWR | O_CLOEXEC)
            guard fd >= 0 else {
                let e = errno
                let hint = e == EACCES ? " (the user must be in the video group, or run in a logind session)" : ""
                return .failure(OpenError(message: "cannot open: \(errnoText(e))\(hint)"))
            }
        }
        var keep = false
        defer { if !keep { Glibc.close(fd) } }
        if drmIsMaster(fd) == 0, drmSetMaster(fd) != 0 {
            return .failure(OpenError(message: "cannot become DRM master (\(errnoText())): another program drives this display (a compositor, a display manager, another kiosk)"))
        }
        var dumb: UInt64 = 0
        guard drmGetCap(fd, UInt64(CDRM_CAP_DUMB_BUFFER), &dumb) == 0, dumb != 0 else {
            return .failure(OpenError(message: "no dumb buffers (not a KMS display device)"))
        }
        _ = drmSetClientCap(fd, UInt64(CDRM_CLIENT_CAP_UNIVERSAL_PLANES), 1)
        guard let res = drmModeGetResources(fd) else {
            return .failure(OpenError(message: "no mode-setting resources (a render-only device)"))
        }
        defer { drmModeFreeResources(res) }
        let r = res.pointee
        let crtcs = (0..<Int(r.count_crtcs)).map { r.crtcs[$0] }
        for c in 0..<Int(r.count_connectors) {
            guard let conn = drmModeGetConnector(fd, r.connectors[c]) else { continue }
            defer { drmModeFreeConnector(conn) }
            let k = conn.pointee
            guard k.connection == DRM_MODE_CONNECTED, k.count_modes > 0 else { continue }
            let modes = (0..<Int(k.count_modes)).map { k.modes[$0] }
            guard let m = DrmRules.pickMode(modes.map {
                (Int($0.hdisplay), Int($0.vdisplay), Int($0.vrefresh), $0.type & CDRM_MODE_TYPE_PREFERRED != 0)
            }) else { continue }
            guard let crtcIndex = pickCRTC(fd: fd, connector: k, crtcs: crtcs) else { continue }
            let crtcID = crtcs[crtcIndex]
            let primary = primaryPlane(fd: fd, crtcIndex: crtcIndex)
            let (format, warning) = DrmRules.pickFormat(request: getenv("DARKMODE_KIOSK_DRM_FORMAT").map { String(cString: $0) },
                                                        planeFormats: primary?.formats)
            if let warning { Diagnostics.printError(warning, priority: .warning) }
            guard let format else { return .failure(OpenError(message: "the display's plane takes neither XRGB8888 nor RGB565")) }
            var plane: AtomicPlane?
            if let primary, drmSetClientCap(fd, UInt64(CDRM_CLIENT_CAP_ATOMIC), 1) == 0 {
                let props = properties(fd: fd, object: primary.id, type: CDRM_MODE_OBJECT_PLANE)
                if let fb = props["FB_ID"], let crtc = props["CRTC_ID"] {
                    plane = AtomicPlane(id: primary.id, fbID: fb, crtcID: crtc, damageClips: props["FB_DAMAGE_CLIPS"])
                }
            }
            let vblank = hasVBlank(fd: fd, crtcID: crtcID)
            let order = DrmRules.flipOrder(request: getenv("DARKMODE_KIOSK_DRM_FLIP").map { String(cString: $0) },
                                           atomicAvailable: plane != nil, hasVBlank: vblank)
            keep = true
            return .success(DrmDevice(fd: fd, path: path, connectorID: k.connector_id, crtcID: crtcID, mode: modes[m],
                                      dpi: DrmRules.dpi(pixels: Int(modes[m].hdisplay), millimetres: Int(k.mmWidth)),
                                      format: format, plane: plane, flipOrder: order, hasVBlank: vblank, access: access,
                                      saved: drmModeGetCrtc(fd, crtcID)))
        }
        return .failure(OpenError(message: "no connected display with a mode and a free CRTC"))
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
    private static func properties(fd: Int32, object: UInt32, type: UInt32, values: Bool = false) -> [String: UInt32] {
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

    // MARK: Scanout

    /// Shows framebuffer `fb` with our mode on our connector (the first frame, and after master
    /// comes back). False on failure (errno set).
    func setCRTC(fb: UInt32) -> Bool {
        var connector = connectorID
        return drmModeSetCrtc(fd, crtcID, fb, 0, 0, &connector, 1, &mode) == 0
    }

    /// Puts the CRTC back as it was found (the console's framebuffer) and drops master. Once.
    func close() {
        guard !closed else { return }
        closed = true
        if let saved {
            let s = saved.pointee
            var connector = connectorID
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

    /// What the log says of the display: card, mode, format and access.
    var summary: String {
        "\(path) \(width)x\(height)@\(Int(refreshRate.rounded())) Hz \(format.name)\(hasVBlank ? "" : " (no vblank)"), \(access)"
    }
}

/// One mapped dumb buffer with its framebuffer id.
final class DumbBuffer {
    let fd: Int32
    let handle: UInt32
    let fb: UInt32
    let pitch: Int
    let memory: UnsafeMutableRawPointer
    let byteCount: Int

    private init(fd: Int32, handle: UInt32, fb: UInt32, pitch: Int, memory: UnsafeMutableRawPointer, byteCount: Int) {
        self.fd = fd
        self.handle = handle
        self.fb = fb
        self.pitch = pitch
        self.memory = memory
        self.byteCount = byteCount
    }

    /// A `width`x`height` buffer in `format`, mapped, with a framebuffer; nil with errno's text.
    static func make(fd: Int32, width: Int, height: Int, format: ScanoutFormat) -> Result<DumbBuffer, DrmDevice.OpenError> {
        var handle: UInt32 = 0, pitch: UInt32 = 0, size: UInt64 = 0
        let bpp = UInt32(format.bytesPerPixel * 8)
        var rc = cdrm_create_dumb(fd, UInt32(width), UInt32(height), bpp, &handle, &pitch, &size)
        guard rc == 0 else { return .failure(.init(message: "DRM_IOCTL_MODE_CREATE_DUMB: \(String(cString: strerror(-rc)))")) }
        var offset: UInt64 = 0
        rc = cdrm_map_dumb(fd, handle, &offset)
        guard rc == 0 else {
            _ = cdrm_destroy_dumb(fd, handle)
            return .failure(.init(message: "DRM_IOCTL_MODE_MAP_DUMB: \(String(cString: strerror(-rc)))"))
        }
        guard let memory = mmap(nil, Int(size), PROT_READ | PROT_WRITE, MAP_SHARED, fd, off_t(offset)),
              memory != UnsafeMutableRawPointer(bitPattern: -1) else {
            let e = errno
            _ = cdrm_destroy_dumb(fd, handle)
            return .failure(.init(message: "mmap of a dumb buffer: \(String(cString: strerror(e)))"))
        }
        var fb: UInt32 = 0
        let drmFormat = format == .xrgb8888 ? CDRM_FORMAT_XRGB8888 : CDRM_FORMAT_RGB565
        guard cdrm_add_fb(fd, UInt32(width), UInt32(height), drmFormat, handle, pitch, &fb) == 0 else {
            let e = errno
            munmap(memory, Int(size))
            _ = cdrm_destroy_dumb(fd, handle)
            return .failure(.init(message: "drmModeAddFB2 (\(format.name)): \(String(cString: strerror(e)))"))
        }
        // Black until drawn (dumb buffers start zeroed; said, not assumed).
        memset(memory, 0, Int(size))
        return .success(DumbBuffer(fd: fd, handle: handle, fb: fb, pitch: Int(pitch), memory: memory, byteCount: Int(size)))
    }

    private var destroyed = false

    func destroy() {
        guard !destroyed else { return }
        destroyed = true
        _ = drmModeRmFB(fd, fb)
        munmap(memory, byteCount)
        _ = cdrm_destroy_dumb(fd, handle)
    }

    deinit { destroy() }
}
