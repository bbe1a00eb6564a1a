import ArgumentParser
import CMemory
import Core
import Foundation
import Library

struct Molshot: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "molshot",
        abstract: "Headless 3D molecule renderer.",
        discussion: """
            Commands that draw take --gl auto|osmesa|egl ($MOLSHOT_GL; auto takes OSMesa where it opens, EGL \
            otherwise) and --gl-device N ($MOLSHOT_GL_DEVICE, an EGL device; a GPU is taken by default where there \
            is one). molshot doctor says which backend, device and renderer draw here.
            """,
        version: MolshotVersion.current,
        subcommands: [Info.self, Render.self, ImagesCommand.self, ExportCommand.self, PathwayCommand.self, ServeRun.self, ThumbnailsCommand.self, Doctor.self, ReplayCommand.self, MovieCommand.self, LibraryCommand.self, Search.self, Fetch.self, MeasureParse.self, MeasureRender.self, MeasureSQL.self, MeasureLoad.self, MeasureLive.self]
    )

    /// The subcommands that draw (and so open OSMesa), by name.

    /// `arguments` without `--gl X` and `--gl-device N` (or `=`), which are set in the environment
    /// as MOLSHOT_GL and MOLSHOT_GL_DEVICE. A missing value is a usage error.
    static func takeGLOptions(_ arguments: [String]) -> [String] {
        var kept: [String] = []
        var i = 0
        while i < arguments.count {
            let a = arguments[i]
            if a == "--" { kept += arguments[i...]; break }
            var handled = false
            for (option, variable) in [("--gl", EnvironmentVariable.gl.rawValue), ("--gl-device", EnvironmentVariable.glDevice.rawValue)] {
                if a == option || a.hasPrefix(option + "=") {
                    let value: String
                    if a == option {
                        guard i + 1 < arguments.count else {
                            FileHandle.standardError.write(Data("molshot: error: \(option) needs a value\(option == "--gl" ? ": auto, osmesa or egl" : ": an EGL device number (molshot doctor lists them)")\n".utf8))
                            Foundation.exit(64)
                        }
                        value = arguments[i + 1]
                        i += 1
                    } else {
                        value = String(a.dropFirst(option.count + 1))
                    }
                    setenv(variable, value, 1)
                    handled = true
                }
            }
            if !handled { kept.append(a) }
            i += 1
        }
        return kept
    }

    /// Objects a drawing command leaves to the end of the process: a GL context takes milliseconds
    /// to take apart (llvmpipe's threads, its textures), and the process ends with `_exit` once
    /// everything is written (main.swift), where the kernel frees it all at once.
    /// (Handed over: nothing uses them again, they are only held.)
    static let keptUntilExit = Locked<[Handed<AnyObject>]>([])

    static func keepUntilExit(_ object: AnyObject) { keptUntilExit.withLock { $0.append(Handed(object)) } }

}
