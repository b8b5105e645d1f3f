import CDRM
import Raster
#if canImport(Glibc)
import Glibc
#endif

/// One mapped dumb buffer with its framebuffer id (`DrmDevice.makeBuffer`).
final class DumbBuffer: ScanoutBuffer {
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

    /// A `width`x`height` buffer in `format`, mapped, with a framebuffer, black. Throws the
    /// failed step and its errno (`CardFailure`) when the card refuses one; nothing is left
    /// allocated then.
    static func make(fd: Int32, width: Int, height: Int, format: ScanoutFormat) throws(CardFailure) -> DumbBuffer {
        var handle: UInt32 = 0, pitch: UInt32 = 0, size: UInt64 = 0
        let bpp = UInt32(format.bytesPerPixel * 8)
        var rc = cdrm_create_dumb(fd, UInt32(width), UInt32(height), bpp, &handle, &pitch, &size)
        guard rc == 0 else { throw CardFailure(step: "DRM_IOCTL_MODE_CREATE_DUMB", code: -rc) }
        var offset: UInt64 = 0
        rc = cdrm_map_dumb(fd, handle, &offset)
        guard rc == 0 else {
            _ = cdrm_destroy_dumb(fd, handle)
            throw CardFailure(step: "DRM_IOCTL_MODE_MAP_DUMB", code: -rc)
        }
        guard let memory = mmap(nil, Int(size), PROT_READ | PROT_WRITE, MAP_SHARED, fd, off_t(offset)),
              memory != UnsafeMutableRawPointer(bitPattern: -1) else {
            let e = errno
            _ = cdrm_destroy_dumb(fd, handle)
            throw CardFailure(step: "mmap of a dumb buffer", code: e)
        }
        var fb: UInt32 = 0
        let drmFormat = format == .xrgb8888 ? CDRM_FORMAT_XRGB8888 : CDRM_FORMAT_RGB565
        guard cdrm_add_fb(fd, UInt32(width), UInt32(height), drmFormat, handle, pitch, &fb) == 0 else {
            let e = errno
            munmap(memory, Int(size))
            _ = cdrm_destroy_dumb(fd, handle)
            throw CardFailure(step: "drmModeAddFB2 (\(format.name))", code: e)
        }
        // Black until drawn (dumb buffers start zeroed; said, not assumed).
        memset(memory, 0, Int(size))
        return DumbBuffer(fd: fd, handle: handle, fb: fb, pitch: Int(pitch), memory: memory, byteCount: Int(size))
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
