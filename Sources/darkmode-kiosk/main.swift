// INTERIM wiring for testing the SDL host (branch `sdl`); the integrator replaces the argument
// parsing and the preferences stub below with the real CLI and preferences store (Sources/Kiosk).
import Foundation
import Kiosk
import KioskSDL

var host = HostOptions()
var prefsPath: String?
var reduceMotion = false
var args = CommandLine.arguments.dropFirst().filter { $0 != "run" }[...]
@MainActor func value(_ flag: String) -> String {
    guard let v = args.popFirst() else { FileHandle.standardError.write(Data("darkmode-kiosk: \(flag) needs a value\n".utf8)); exit(2) }
    return v
}
while let a = args.popFirst() {
    switch a {
    case "--windowed": host.windowed = true
    case "--size": let p = value(a).split(separator: "x").compactMap { Int($0) }; if p.count == 2 { host.size = (p[0], p[1]) }
    case "--rotate": host.rotation = Rotation(degrees: Int(value(a)) ?? -1) ?? .none
    case "--scale": host.scale = Double(value(a))
    case "--prefs": prefsPath = value(a)
    case "--reduce-motion": reduceMotion = true
    default: FileHandle.standardError.write(Data("darkmode-kiosk: unknown flag \(a)\n".utf8)); exit(2)
    }
}
let stored = prefsPath.flatMap { try? Data(contentsOf: URL(fileURLWithPath: $0)) }
    .flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }?["isDarkMode"] as? Bool
exit(SDLHost.run(host) { page in
    KioskApp(options: KioskOptions(pixelWidth: page.pixelWidth, pixelHeight: page.pixelHeight, scale: page.scale,
                                   reduceMotion: reduceMotion),
             isDarkMode: stored ?? false) { dark in
        if let prefsPath { try? Data("{\n  \"isDarkMode\" : \(dark)\n}\n".utf8).write(to: URL(fileURLWithPath: prefsPath), options: .atomic) }
    }
})
