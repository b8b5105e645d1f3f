#if canImport(Glibc)
import Glibc
#endif

/// This process's memory as the kernel counts it.
public enum ProcessMemory {
    /// Resident set size now, in kilobytes (from `/proc/self/statm`), or nil when unavailable.
    public static func residentKB() -> Int? { statmField(1) }

    /// Address space mapped now (`VmSize`: what `RLIMIT_AS` counts), in kilobytes, or nil.
    public static func virtualKB() -> Int? { statmField(0) }

    /// Field `index` of `/proc/self/statm` in kilobytes.
    private static func statmField(_ index: Int) -> Int? {
        let fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 128)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, 127) }
        guard n > 0 else { return nil }
        // "size resident shared text lib data dt", in pages.
        let fields = buffer[0..<n].split(separator: UInt8(ascii: " "))
        guard fields.count > index, let pages = Int(String(decoding: fields[index], as: UTF8.self)) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE))) / 1024
    }
}
