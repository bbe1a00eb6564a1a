import COpenGL
import Imaging

/// The one place that calls OpenGL. Everything above speaks in buffers, vertex arrays,
/// programs, framebuffers and draw calls. It remembers GL state so that setting what is
/// already set costs nothing. Use it only on the thread that created it.
public final class GraphicsDevice {
    public let context: OffscreenContext
    public let shaders: ShaderLibrary
    private var programs: [String: ShaderProgram] = [:]
    private var currentProgram: GLuint = 0
    private var currentFramebuffer: GLuint = 0
    private var enabled: [GLenum: Bool] = [:]
    /// Live GL objects this device made, by kind, for tests and leak checks.
    public private(set) var liveObjects: [String: Int] = [:]

    public init(context: OffscreenContext? = nil, shaders: ShaderLibrary? = nil) throws {
        self.context = try context ?? OffscreenContexts.make()
        self.shaders = try shaders ?? ShaderLibrary.standard()
        try self.context.makeCurrent()
        glDisable(GLenum(GL_DITHER))
    }

    public var rendererName: String {
        guard let p = glGetString(GLenum(GL_RENDERER)) else { return "unknown" }
        return String(cString: p)
    }

    public var maxRenderbufferSize: Int {
        var v: GLint = 0
        glGetIntegerv(GLenum(GL_MAX_RENDERBUFFER_SIZE), &v)
        return Int(v)
    }

    func count(_ kind: String, _ delta: Int) { liveObjects[kind, default: 0] += delta }

    // MARK: Programs

    /// The program linked from two shader files with `defines` set, compiled once per device.
    public func program(vertex: String, fragment: String, defines: [String] = []) throws -> ShaderProgram {
        let key = ([vertex, fragment] + defines).joined(separator: "|")
        if let p = programs[key] { return p }
        let p = try ShaderProgram(device: self, vertex: try shaders.source(vertex, defines: defines),
                                  fragment: try shaders.source(fragment, defines: defines), name: key)
        programs[key] = p
        return p
    }

    func use(_ program: ShaderProgram) {
        if currentProgram != program.id {
            glUseProgram(program.id)
            currentProgram = program.id
        }
    }

    // MARK: State

    public func setEnabled(_ capability: Capability, _ on: Bool) {
        let cap = capability.glValue
        if enabled[cap] == on { return }
        if on { glEnable(cap) } else { glDisable(cap) }
        enabled[cap] = on
    }

    /// How drawn colors combine with what is there when `.blend` is enabled.
    public enum BlendFunction: Equatable {
        /// Straight alpha: source x alpha + destination x (1 - alpha), alpha kept as coverage.
        case alpha
        /// Premultiplied source: source + destination x (1 - alpha).
        case premultiplied
        /// Source + destination.
        case additive
    }

    private var blendFunction: BlendFunction?

    /// Sets the blend function (enable `.blend` for it to apply).
    public func setBlend(_ function: BlendFunction) {
        if blendFunction == function { return }
        blendFunction = function
        let one = GLenum(GL_ONE), oneMinusAlpha = GLenum(GL_ONE_MINUS_SRC_ALPHA)
        switch function {
        case .alpha: glBlendFuncSeparate(GLenum(GL_SRC_ALPHA), oneMinusAlpha, one, oneMinusAlpha)
        case .premultiplied: glBlendFunc(one, oneMinusAlpha)
        case .additive: glBlendFunc(one, one)
        }
    }

    /// Whether drawing writes depth (see-through geometry tests depth without writing it).
    public func setDepthWrite(_ on: Bool) {
        glDepthMask(GLboolean(on ? GL_TRUE : GL_FALSE))
    }

    public enum Capability {
        case depthTest, cullFace, blend
        var glValue: GLenum {
            switch self {
            case .depthTest: return GLenum(GL_DEPTH_TEST)
            case .cullFace: return GLenum(GL_CULL_FACE)
            case .blend: return GLenum(GL_BLEND)
            }
        }
    }

    func bind(_ framebuffer: Framebuffer) {
        if currentFramebuffer != framebuffer.id {
            glBindFramebuffer(GLenum(GL_FRAMEBUFFER), framebuffer.id)
            currentFramebuffer = framebuffer.id
        }
        glViewport(0, 0, GLsizei(framebuffer.width), GLsizei(framebuffer.height))
    }

    func forget(framebuffer id: GLuint) {
        if currentFramebuffer == id { currentFramebuffer = 0 }
    }

    // MARK: Drawing

    public func clear(_ framebuffer: Framebuffer, red: Float, green: Float, blue: Float, alpha: Float) {
        bind(framebuffer)
        glClearColor(red, green, blue, alpha)
        if framebuffer.hasDepth {
            glClearDepth(1)
            glDepthMask(GLboolean(GL_TRUE))
            glClear(GLbitfield(GL_COLOR_BUFFER_BIT) | GLbitfield(GL_DEPTH_BUFFER_BIT))
        } else {
            glClear(GLbitfield(GL_COLOR_BUFFER_BIT))
        }
    }

    public enum Primitive {
        case triangles, triangleStrip, lines, lineStrip
        var glValue: GLenum {
            switch self {
            case .triangles: return GLenum(GL_TRIANGLES)
            case .triangleStrip: return GLenum(GL_TRIANGLE_STRIP)
            case .lines: return GLenum(GL_LINES)
            case .lineStrip: return GLenum(GL_LINE_STRIP)
            }
        }
    }

    /// Width in pixels of `.lines` and `.lineStrip` (llvmpipe draws wide lines; for joins and caps
    /// that look right at any width, draw thin quads instead).
    public func setLineWidth(_ pixels: Float) { glLineWidth(max(1, pixels)) }

    /// Draws `indices` of `vertices` (`instances` copies) with `program`, textures bound to units in order.
    public func drawIndexed(_ program: ShaderProgram, _ vertices: VertexArray, indices: IndexBuffer, into framebuffer: Framebuffer,
                            primitive: Primitive, textures: [Texture] = [], instances: Int = 1) {
        guard instances > 0, indices.count > 0 else { return }
        bind(framebuffer)
        use(program)
        bind(textures)
        glBindVertexArray(vertices.id)
        glBindBuffer(GLenum(GL_ELEMENT_ARRAY_BUFFER), indices.id)
        glDrawElementsInstanced(primitive.glValue, GLsizei(indices.count), GLenum(GL_UNSIGNED_INT), nil, GLsizei(instances))
        glBindVertexArray(0)
        glBindBuffer(GLenum(GL_ELEMENT_ARRAY_BUFFER), 0)
    }

    private func bind(_ textures: [Texture]) {
        for (unit, texture) in textures.enumerated() {
            glActiveTexture(GLenum(GL_TEXTURE0) + GLenum(unit))
            glBindTexture(GLenum(GL_TEXTURE_2D), texture.id)
        }
        if !textures.isEmpty { glActiveTexture(GLenum(GL_TEXTURE0)) }
    }

    /// Draws `instances` copies of `vertexCount` vertices of `vertices`, from `first`, with `program`.
    public func draw(_ program: ShaderProgram, _ vertices: VertexArray, into framebuffer: Framebuffer,
                     primitive: Primitive, first: Int = 0, vertexCount: Int, instances: Int = 1, textures: [Texture] = []) {
        guard instances > 0, vertexCount > 0 else { return }
        bind(framebuffer)
        use(program)
        bind(textures)
        glBindVertexArray(vertices.id)
        glDrawArraysInstanced(primitive.glValue, GLint(first), GLsizei(vertexCount), GLsizei(instances))
        glBindVertexArray(0)
    }

    /// Waits until everything drawn so far is done.
    public func finish() { glFinish() }

    /// Waits for drawing to finish and reads the framebuffer, averaging `factor` x `factor`
    /// blocks when it was drawn supersampled.
    public func read(_ framebuffer: Framebuffer, downsample factor: Int = 1) -> RGBAImage {
        if factor == 1 {
            // Read straight into the image and turn the rows over in place: no second buffer.
            var pixels = readSamples(framebuffer)
            pixels.withUnsafeMutableBufferPointer { RGBAImage.flipRows($0, width: framebuffer.width, height: framebuffer.height) }
            return RGBAImage(width: framebuffer.width, height: framebuffer.height, pixels: pixels)
        }
        var raw = readSamples(framebuffer)
        defer { raw.removeAll() }
        return raw.withUnsafeBufferPointer {
            RGBAImage.downsampled(bottomUp: $0, width: framebuffer.width, height: framebuffer.height, factor: factor)
        }
    }

    /// Waits for drawing to finish and reads every drawn sample as it lies: RGBA, bottom row first.
    public func readSamples(_ framebuffer: Framebuffer) -> [UInt8] {
        bind(framebuffer)
        let w = framebuffer.width, h = framebuffer.height
        return [UInt8](unsafeUninitializedCapacity: w * h * 4) { buffer, count in
            glPixelStorei(GLenum(GL_PACK_ALIGNMENT), 1)
            glReadPixels(0, 0, GLsizei(w), GLsizei(h), GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE), buffer.baseAddress)
            count = w * h * 4
        }
    }

    /// The window depths (0 near to 1 far, bottom row first) of a framebuffer with a depth buffer.
    public func readDepth(_ framebuffer: Framebuffer) -> [Float] {
        bind(framebuffer)
        let w = framebuffer.width, h = framebuffer.height
        return [Float](unsafeUninitializedCapacity: w * h) { buffer, count in
            glPixelStorei(GLenum(GL_PACK_ALIGNMENT), 4)
            glReadPixels(0, 0, GLsizei(w), GLsizei(h), GLenum(GL_DEPTH_COMPONENT), GLenum(GL_FLOAT), buffer.baseAddress)
            count = w * h
        }
    }

    /// The first GL error since the last call, if any.
    public func checkError(_ what: String) throws {
        let e = glGetError()
        if e != GLenum(GL_NO_ERROR) { throw GraphicsError("OpenGL error 0x\(String(e, radix: 16)) after \(what)") }
    }
}
