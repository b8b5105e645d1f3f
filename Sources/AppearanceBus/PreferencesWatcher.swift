import CSystemd
import Glibc

/// Watches the preferences file's folder with inotify for the file being renamed into place
/// (IN_MOVED_TO: atomic replacement, as config-management tools and the kiosk itself write)
/// or written in place (IN_CLOSE_WRITE). A change is reported only when the file's bytes
/// differ from what the kiosk said it would write (`expectOwnWrite`) and from what was last
/// seen, so the kiosk's own saves and repeated identical writes are not echoed back.
final class PreferencesWatcher {
    let path: String
    let folder: String
    let fileName: String
    private(set) var fd: Int32 = -1
    private var lastSeen: [UInt8]?

    init(path: String) {
        self.path = path
        if let slash = path.lastIndex(of: "/") {
            let f = String(path[..<slash])
            folder = f.isEmpty ? "/" : f
            fileName = String(path[path.index(after: slash)...])
        } else {
            folder = "."
            fileName = path
        }
    }

    /// Starts watching; returns a log line on failure.
    func open() -> String? {
        fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { return "preferences watcher: inotify_init1 failed: \(String(cString: strerror(errno)))" }
        let mask = UInt32(IN_MOVED_TO | IN_CLOSE_WRITE)
        guard inotify_add_watch(fd, folder, mask) >= 0 else {
            let e = String(cString: strerror(errno))
            Glibc.close(fd)
            fd = -1
            return "preferences watcher: cannot watch \(folder): \(e); changes from other programs are not followed"
        }
        lastSeen = Self.readFile(path)
        return nil
    }

    /// Drains inotify; true when an event named the file.
    func drain() -> Bool {
        var named = false
        let size = 4096
        let buf = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
        defer { buf.deallocate() }
        while true {
            let n = read(fd, buf, size)
            if n <= 0 { break }
            var off = 0
            while off + MemoryLayout<inotify_event>.size <= n {
                let ev = buf.load(fromByteOffset: off, as: inotify_event.self)
                let nameStart = off + MemoryLayout<inotify_event>.size
                if ev.len > 0 {
                    let namePtr = (buf + nameStart).assumingMemoryBound(to: CChar.self)
                    if String(cString: namePtr) == fileName { named = true }
                }
                off = nameStart + Int(ev.len)
            }
        }
        return named
    }

    /// Decides whether the file now differs from what we know; updates what was last seen.
    func changed(ownWrite: [UInt8]?) -> Bool {
        let now = Self.readFile(path)
        defer { lastSeen = now }
        if let now, let ownWrite, now == ownWrite { return false }
        return now != lastSeen
    }

    func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    static func readFile(_ path: String) -> [UInt8]? {
        let f = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard f >= 0 else { return nil }
        defer { Glibc.close(f) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while out.count <= 16 << 20 {
            let n = chunk.withUnsafeMutableBytes { read(f, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            out.append(contentsOf: chunk[0..<n])
        }
        return out
    }
}
