import KioskEngine
import KioskSupport
import Raster

/// Reads and decodes the config's `page.background` images (PNG) once, at start: the engine
/// receives the pixmaps. Every problem is an input error (exit 2) naming the config file, the
/// key and the image file; both appearances are checked before reporting.
public enum PageBackgroundFile {
    /// Largest image file accepted (bytes).
    public static let byteLimit = 32 * 1024 * 1024
    /// Largest image accepted: 4096 pixels a side (so at most 64 MiB decoded), as README says.
    public static let sideLimit = 4096

    /// The decoded images, or nil when the config names none.
    public static func load(_ settings: KioskConfig.Page.Background, configFile: String?) throws(KioskError) -> PageBackground? {
        guard !settings.isEmpty else { return nil }
        var problems: [String] = []
        func image(_ path: String?, _ key: String, _ outcome: Result<Pixmap, Problem>?) -> Pixmap? {
            guard let path, let outcome else { return nil }
            switch outcome {
            case .success(let p): return p
            case .failure(let problem):
                problems.append((configFile.map { "config file \($0): " } ?? "") + "page.background.\(key): \(path): \(problem.text)")
                return nil
            }
        }
        // The two images decode at the same time (inflating a large PNG is the slow part of
        // start-up with images; a second core halves it).
        let darkPath = settings.dark
        let darkTask = BackgroundTask { darkPath.map { decode(path: $0) } }
        let light = image(settings.light, "light", settings.light.map { decode(path: $0) })
        let dark = image(settings.dark, "dark", darkTask.value())
        guard problems.isEmpty else { throw .input(problems.joined(separator: "\n")) }
        return PageBackground(light: light, dark: dark, fit: settings.fit)
    }

    struct Problem: Error, Sendable { let text: String }

    /// One image file: read (bounded), checked to be a PNG, decoded (bounded pixels).
    static func decode(path: String) -> Result<Pixmap, Problem> {
        let bytes: [UInt8]
        switch FileIO.readFile(at: path, limit: byteLimit) {
        case .bytes(let b): bytes = b
        case .notFound: return .failure(Problem(text: "no such file"))
        case .notRegularFile(let kind): return .failure(Problem(text: "is a \(kind), expected a PNG file"))
        case .tooLarge:
            return .failure(Problem(text: "larger than \(byteLimit) bytes (32 MiB), the limit for a background image"))
        case .failed(let reason): return .failure(Problem(text: "cannot be read (\(reason))"))
        }
        guard bytes.count >= PNG.signature.count, Array(bytes.prefix(PNG.signature.count)) == PNG.signature else {
            return .failure(Problem(text: bytes.isEmpty ? "is empty, expected a PNG file" : "not a PNG file (it does not start with the PNG signature)"))
        }
        do {
            return .success(try PNG.decode(bytes, maxPixels: nil, maxSide: sideLimit))
        } catch {
            return .failure(Problem(text: "not a usable PNG image: \(error)"))
        }
    }

    /// "light 1920x1080 px, dark 1920x1080 px" (the decoded sizes) for `run --check`.
    public static func summary(_ background: PageBackground) -> String {
        func size(_ p: Pixmap?) -> String { p.map { "\($0.width)x\($0.height) px" } ?? "none" }
        return "light \(size(background.light)), dark \(size(background.dark))"
    }
}
