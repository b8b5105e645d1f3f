/// The pointer's arrow, drawn by the presenter over the page while a mouse or tablet is used
/// on KMS/DRM (SDL's kmsdrm cursor needs a hardware cursor plane that many boards and virtual
/// GPUs lack). Black outline, white fill, hot spot at the top-left pixel; pure data.
enum CursorSprite {
    /// `#` outline, `o` fill, `.` transparent.
    static let rows: [String] = [
        "#...........",
        "##..........",
        "#o#.........",
        "#oo#........",
        "#ooo#.......",
        "#oooo#......",
        "#ooooo#.....",
        "#oooooo#....",
        "#ooooooo#...",
        "#oooooooo#..",
        "#ooooooooo#.",
        "#oooooo#####",
        "#ooo#oo#....",
        "#oo#.#oo#...",
        "#o#..#oo#...",
        "##....#oo#..",
        "#.....#oo#..",
        ".......#oo#.",
        ".......###..",
    ]

    static var width: Int { rows[0].count }
    static var height: Int { rows.count }

    /// RGBA bytes, row by row (the byte order of SDL's RGBA32).
    static var rgba: [UInt8] {
        rows.flatMap { row in
            row.flatMap { c -> [UInt8] in
                switch c {
                case "#": return [0, 0, 0, 255]
                case "o": return [255, 255, 255, 255]
                default: return [0, 0, 0, 0]
                }
            }
        }
    }
}
