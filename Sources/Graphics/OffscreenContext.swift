import COpenGL
import Core

/// An OpenGL 4.5 core context with no window. Current on the thread that created it: keep all
/// GL work on that one thread. Two implementations: OSMesa, and EGL without a surface (Mesa
/// 25.1 removed OSMesa; EGL also reaches a GPU). Drawing goes to framebuffer objects either way.
public protocol OffscreenContext: AnyObject {
    func makeCurrent() throws
    /// What draws: "OSMesa", or "EGL, surfaceless" / "EGL, device 1 (/dev/dri/renderD128)".
    var backendName: String { get }
}

/// The backend `MOLSHOT_GL` (or `--gl`) asks for: auto (OSMesa where it opens, EGL otherwise),
/// osmesa or egl; `MOLSHOT_GL_DEVICE` (`--gl-device`) picks an EGL device.
public enum OffscreenContexts {
    public enum Backend: Sendable { case osmesa, egl }

    /// Opens the backend (or waits for `preload` to have opened it).
    public static func load() throws -> Backend {
        var error = [CChar](repeating: 0, count: 1024)
        let backend = molshot_gl_load(&error, error.count)
        guard backend > 0 else { throw GraphicsError(String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)) }
        return backend == Int32(MOLSHOT_GL_EGL) ? .egl : .osmesa
    }

    /// Starts opening the backend on a thread of its own, so that a front end reads its input while
    /// Mesa's LLVM is relocated; the first context waits for it.
    public static func preload() { molshot_gl_preload() }

    /// A context of the backend in use.
    public static func make() throws -> OffscreenContext {
        switch try load() {
        case .osmesa: return try OSMesaOffscreenContext()
        case .egl: return try EGLOffscreenContext()
        }
    }

    /// A context made here, and what it is: backend and display, GL_RENDERER, GL_VERSION.
    public static func describe() throws -> (backend: String, renderer: String, version: String) {
        let context = try make()
        func text(_ name: Int32) -> String { glGetString(GLenum(name)).map { String(cString: $0) } ?? "unknown" }
        return (context.backendName, text(GL_RENDERER), text(GL_VERSION))
    }

    /// The EGL devices as `N\tsoftware|hardware\tFILE` lines (EGL loaded), nil where EGL cannot list them.
    public static func eglDevices() -> [String]? {
        var text = [CChar](repeating: 0, count: 4096)
        guard molshot_egl_devices(&text, text.count) >= 0 else { return nil }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self).split(separator: "\n").map(String.init)
    }
}

public final class OSMesaOffscreenContext: OffscreenContext {
    private let context: OSMesaContext
    /// OSMesa wants a buffer to be current on; drawing goes to framebuffer objects instead.
    private let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: 4)
    public let backendName = "OSMesa"

    public init() throws {
        guard try OffscreenContexts.load() == .osmesa else { buffer.deallocate(); throw GraphicsError("OSMesa is not the backend in use") }
        trace("graphics: OSMesa loaded")
        let attributes: [Int32] = [
            OSMESA_FORMAT, Int32(GL_RGBA), OSMESA_DEPTH_BITS, 0, OSMESA_STENCIL_BITS, 0, OSMESA_ACCUM_BITS, 0,
            OSMESA_PROFILE, OSMESA_CORE_PROFILE, OSMESA_CONTEXT_MAJOR_VERSION, 4, OSMESA_CONTEXT_MINOR_VERSION, 5, 0,
        ]
        guard let context = OSMesaCreateContextAttribs(attributes, nil) else {
            buffer.deallocate()
            throw GraphicsError("OSMesa could not create an OpenGL 4.5 core context")
        }
        self.context = context
        try makeCurrent()
        trace("graphics: context made")
    }

    public func makeCurrent() throws {
        guard OSMesaMakeCurrent(context, buffer, GLenum(GL_UNSIGNED_BYTE), 1, 1) != 0 else {
            throw GraphicsError("OSMesaMakeCurrent failed")
        }
    }

    deinit {
        OSMesaDestroyContext(context)
        buffer.deallocate()
    }
}

/// EGL with no surface: a GPU's device where there is one, else Mesa's surfaceless platform on
/// llvmpipe (`Sources/COpenGL/egl.c`).
public final class EGLOffscreenContext: OffscreenContext {
    private let context: UnsafeMutableRawPointer
    public let backendName: String

    public init() throws {
        guard try OffscreenContexts.load() == .egl else { throw GraphicsError("EGL is not the backend in use") }
        var name = [CChar](repeating: 0, count: 256), error = [CChar](repeating: 0, count: 512)
        guard let context = molshot_egl_create(&name, name.count, &error, error.count) else {
            throw GraphicsError(String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        self.context = context
        backendName = "EGL, " + String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        trace("graphics: EGL context made")
    }

    public func makeCurrent() throws {
        guard molshot_egl_make_current(context) == 0 else { throw GraphicsError("eglMakeCurrent failed") }
    }

    deinit { molshot_egl_destroy(context) }
}
