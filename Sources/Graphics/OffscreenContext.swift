import COSMesa
import Core

/// An OpenGL 4.5 core context with no window. Current on the thread that created it: keep all
/// GL work on that one thread. OSMesa is the implementation now; Mesa 25.1 removed OSMesa, and an
/// EGL surfaceless context is meant to be the second one.
public protocol OffscreenContext: AnyObject {
    func makeCurrent() throws
}

public final class OSMesaOffscreenContext: OffscreenContext {
    private let context: OSMesaContext
    /// OSMesa wants a buffer to be current on; drawing goes to framebuffer objects instead.
    private let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: 4)

    public init() throws {
        try OSMesaOffscreenContext.load()
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

    /// Opens libOSMesa, or waits for `preload` to have opened it.
    public static func load() throws {
        var error = [CChar](repeating: 0, count: 512)
        guard molshot_gl_load(&error, error.count) == 0 else {
            throw GraphicsError(String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
    }

    /// Starts opening libOSMesa on a thread of its own, so that a front end reads its input while
    /// Mesa's LLVM is relocated; the first context waits for it.
    public static func preload() { molshot_gl_preload() }

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
