import COpenGL

/// An offscreen RGBA8 color target, with a 24-bit depth buffer where drawing needs one (a flat map
/// does not: leaving it out saves allocating and clearing as many bytes again as the picture).
public final class Framebuffer {
    let id: GLuint
    private var color: GLuint = 0
    private var depth: GLuint = 0
    public let width: Int
    public let height: Int
    public let hasDepth: Bool
    private let device: GraphicsDevice

    public init(device: GraphicsDevice, width: Int, height: Int, depth: Bool = true) throws {
        let limit = device.maxRenderbufferSize
        guard width > 0, height > 0, width <= limit, height <= limit else {
            throw GraphicsError("a \(width)x\(height) framebuffer exceeds this OpenGL's limit of \(limit) per side")
        }
        self.device = device
        self.width = width
        self.height = height
        hasDepth = depth
        var fbo: GLuint = 0
        glGenFramebuffers(1, &fbo)
        id = fbo
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), fbo)
        glGenRenderbuffers(1, &color)
        glBindRenderbuffer(GLenum(GL_RENDERBUFFER), color)
        glRenderbufferStorage(GLenum(GL_RENDERBUFFER), GLenum(GL_RGBA8), GLsizei(width), GLsizei(height))
        glFramebufferRenderbuffer(GLenum(GL_FRAMEBUFFER), GLenum(GL_COLOR_ATTACHMENT0), GLenum(GL_RENDERBUFFER), color)
        if depth {
            glGenRenderbuffers(1, &self.depth)
            glBindRenderbuffer(GLenum(GL_RENDERBUFFER), self.depth)
            glRenderbufferStorage(GLenum(GL_RENDERBUFFER), GLenum(GL_DEPTH_COMPONENT24), GLsizei(width), GLsizei(height))
            glFramebufferRenderbuffer(GLenum(GL_FRAMEBUFFER), GLenum(GL_DEPTH_ATTACHMENT), GLenum(GL_RENDERBUFFER), self.depth)
        }
        let status = glCheckFramebufferStatus(GLenum(GL_FRAMEBUFFER))
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), 0)
        device.forget(framebuffer: fbo)
        device.count("framebuffer", 1)
        guard status == GLenum(GL_FRAMEBUFFER_COMPLETE) else {
            throw GraphicsError("framebuffer \(width)x\(height) is incomplete (0x\(String(status, radix: 16)))")
        }
    }

    deinit {
        var fbo = id
        device.forget(framebuffer: fbo)
        glDeleteFramebuffers(1, &fbo)
        glDeleteRenderbuffers(1, &color)
        if depth != 0 { glDeleteRenderbuffers(1, &depth) }
        device.count("framebuffer", -1)
    }
}
