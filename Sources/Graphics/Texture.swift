import COpenGL

/// A 2D texture: RGBA8 pictures, or one channel of coverage (a glyph atlas). Sampled linearly,
/// clamped at the edges.
public final class Texture {
    public enum Format: Sendable { case rgba, coverage }

    let id: GLuint
    public let width: Int
    public let height: Int
    public let format: Format
    private let device: GraphicsDevice

    /// `pixels`: top row first, 4 bytes a pixel for `.rgba`, 1 for `.coverage`.
    public init(device: GraphicsDevice, width: Int, height: Int, format: Format, pixels: [UInt8]) throws {
        let channels = format == .rgba ? 4 : 1
        guard width > 0, height > 0, pixels.count == width * height * channels else {
            throw GraphicsError("a \(width)x\(height) texture needs \(width * height * channels) bytes, got \(pixels.count)")
        }
        self.device = device
        self.width = width
        self.height = height
        self.format = format
        var texture: GLuint = 0
        glGenTextures(1, &texture)
        id = texture
        glBindTexture(GLenum(GL_TEXTURE_2D), id)
        glPixelStorei(GLenum(GL_UNPACK_ALIGNMENT), 1)
        let internalFormat = format == .rgba ? GL_RGBA8 : GL_R8
        let pixelFormat = format == .rgba ? GL_RGBA : GL_RED
        pixels.withUnsafeBytes {
            glTexImage2D(GLenum(GL_TEXTURE_2D), 0, internalFormat, GLsizei(width), GLsizei(height), 0, GLenum(pixelFormat),
                         GLenum(GL_UNSIGNED_BYTE), $0.baseAddress)
        }
        for (name, value) in [(GL_TEXTURE_MIN_FILTER, GL_LINEAR), (GL_TEXTURE_MAG_FILTER, GL_LINEAR),
                              (GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE), (GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE)] {
            glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(name), value)
        }
        glBindTexture(GLenum(GL_TEXTURE_2D), 0)
        device.count("texture", 1)
        try device.checkError("creating a texture")
    }

    deinit {
        var texture = id
        glDeleteTextures(1, &texture)
        device.count("texture", -1)
    }
}
