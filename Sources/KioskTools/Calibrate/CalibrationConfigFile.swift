import KioskEngine
import KioskSupport
#if canImport(Glibc)
import Glibc
#endif

/// Puts a calibration into a config file's `input.calibration`, keeping everything else in the
/// file as it was (other keys, their order, numbers as written): `darkmode-kiosk calibrate`.
/// The file is checked before the round starts (`check`), so a wrong path or a broken file is
/// said before anyone touches a target; the write is atomic (`AtomicFileWriter`: the old or the
/// new file after a crash, never half of one). A missing file is created with the key alone.
public enum CalibrationConfigFile {
    /// Where the kiosk's units read their config (`--config` of both systemd units).
    public static let defaultPath = "/etc/darkmode-kiosk/kiosk.json"

    /// The file's document (an empty object when it does not exist yet), or why it cannot
    /// take the key: not JSON, not an object, or a config `run` refuses (errors naming the file
    /// and the key, exit status 2).
    public static func check(path: String) throws(KioskError) -> JSONObject {
        let root: JSONValue
        // The new file is made beside the old one and renamed over it: its folder must take it.
        let folder = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        if access(folder.isEmpty ? "/" : folder, W_OK) != 0 {
            throw .input("config file \(path): its folder \(folder.isEmpty ? "/" : folder) cannot take a new file (\(FileIO.errorText(errno)))")
        }
        switch FileIO.readFile(at: path, limit: KioskConfig.sizeLimit) {
        case .notFound: return JSONObject()
        case .bytes(let bytes):
            do { root = try StrictJSONParser.parse(bytes) } catch {
                throw .input("config file \(path): not valid JSON: \(error)")
            }
            // A file `run` refuses is said now, not after the last target.
            _ = try KioskConfig.decode(bytes, file: path)
        case .notRegularFile(let kind): throw .input("config file \(path): is a \(kind), expected a JSON file")
        case .tooLarge: throw .input("config file \(path): larger than \(KioskConfig.sizeLimit) bytes, expected a small JSON file")
        case .failed(let reason): throw .input("config file \(path): cannot be read (\(reason))")
        }
        guard let object = root.objectValue else {
            throw .input("config file \(path): the top level is \(root.kindDescription), expected an object")
        }
        if let input = object["input"], input.objectValue == nil {
            throw .input("config file \(path): \"input\" is \(input.kindDescription), expected an object")
        }
        return object
    }

    /// `document` with `input.calibration` set to `matrix` (six decimals each), the rest kept.
    public static func updated(_ document: JSONObject, with matrix: CalibrationMatrix) -> JSONObject {
        var out = document
        var input = document["input"]?.objectValue ?? JSONObject()
        input["calibration"] = .array(rounded(matrix).values.map { .number(JSONNumber($0)!) })
        out["input"] = .object(input)
        return out
    }

    /// The matrix as written: each value rounded to six decimals (libinput keeps floats).
    public static func rounded(_ matrix: CalibrationMatrix) -> CalibrationMatrix {
        let v = matrix.values.map { v -> Double in
            let r = (v * 1_000_000).rounded() / 1_000_000
            return r == 0 ? 0 : r   // no "-0"
        }
        return CalibrationMatrix(v[0], v[1], v[2], v[3], v[4], v[5])
    }

    /// Reads the file again (another program may have changed it since `check`), sets the key
    /// and replaces the file atomically. Errors name the file.
    public static func write(_ matrix: CalibrationMatrix, to path: String) throws(KioskError) {
        let document = updated(try check(path: path), with: matrix)
        // The decoder must take what was written (the same rules as `run`).
        let bytes = Array(JSONWriter.pretty(.object(document)).utf8)
        _ = try KioskConfig.decode(bytes, file: path)
        var writer = AtomicFileWriter()
        writer.newFileMode = 0o644
        do { try writer.write(bytes, to: path) } catch {
            throw .runtime("config file \(path): \(error.description)")
        }
    }
}
