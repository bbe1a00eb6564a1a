import ArgumentParser
import Core
import Foundation
import Graphics
import Library

/// `molshot doctor`: which OpenGL backend, display and renderer draw here, and the data folders.
struct Doctor: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Say what draws here: the OpenGL backend (OSMesa or EGL), its device and renderer, and where the data folders are.",
        discussion: "Makes one context, as every drawing command does (--gl, --gl-device and $MOLSHOT_GL choose), and exits 2 where none can be made."
    )

    func run() throws {
        try CLIFailure.run {
            print("molshot:  \(MolshotVersion.current)")
            print("assets:   \(Resources.assets?.path ?? "not found (set MOLSHOT_ASSETS)")")
            print("shaders:  \(Resources.shaders?.path ?? "not found (set MOLSHOT_SHADERS)")")
            let asked = EnvironmentVariable.gl.text() ?? "auto"
            let (backend, renderer, version) = try OffscreenContexts.describe()
            print("gl:       \(backend) (asked: \(asked))")
            print("renderer: \(renderer)")
            print("version:  \(version)")
            if backend.hasPrefix("EGL"), let devices = OffscreenContexts.eglDevices() {
                print("devices:  \(devices.isEmpty ? "none listed" : "")")
                for d in devices { print("  " + d.split(separator: "\t").joined(separator: "  ")) }
            }
        }
    }
}
