import COpenGL

/// Vertex data in GPU memory.
public final class GPUBuffer {
    let id: GLuint
    public let byteCount: Int
    private let device: GraphicsDevice

    public init<T>(device: GraphicsDevice, _ values: [T]) {
        self.device = device
        var buffer: GLuint = 0
        glGenBuffers(1, &buffer)
        id = buffer
        byteCount = values.count * MemoryLayout<T>.stride
        glBindBuffer(GLenum(GL_ARRAY_BUFFER), id)
        values.withUnsafeBytes { glBufferData(GLenum(GL_ARRAY_BUFFER), GLsizeiptr($0.count), $0.baseAddress, GLenum(GL_STATIC_DRAW)) }
        glBindBuffer(GLenum(GL_ARRAY_BUFFER), 0)
        device.count("buffer", 1)
    }

    /// Replaces the contents (same size or not).
    public func update<T>(_ values: [T]) {
        glBindBuffer(GLenum(GL_ARRAY_BUFFER), id)
        values.withUnsafeBytes { glBufferData(GLenum(GL_ARRAY_BUFFER), GLsizeiptr($0.count), $0.baseAddress, GLenum(GL_STATIC_DRAW)) }
        glBindBuffer(GLenum(GL_ARRAY_BUFFER), 0)
    }

    deinit {
        var buffer = id
        glDeleteBuffers(1, &buffer)
        device.count("buffer", -1)
    }
}

/// Which buffers feed which vertex attributes, per vertex or per instance.
public final class VertexArray {
    public struct Attribute {
        public enum Kind { case float, normalizedUnsignedByte }
        public var location: UInt32
        public var buffer: GPUBuffer
        public var components: Int
        public var kind: Kind
        public var stride: Int
        public var offset: Int
        public var perInstance: Bool

        public init(location: UInt32, buffer: GPUBuffer, components: Int, kind: Kind = .float, stride: Int, offset: Int,
                    perInstance: Bool) {
            self.location = location
            self.buffer = buffer
            self.components = components
            self.kind = kind
            self.stride = stride
            self.offset = offset
            self.perInstance = perInstance
        }
    }

    let id: GLuint
    /// Kept so that the buffers live as long as the array that reads them.
    private let attributes: [Attribute]
    private let device: GraphicsDevice

    public init(device: GraphicsDevice, attributes: [Attribute]) {
        self.device = device
        self.attributes = attributes
        var vao: GLuint = 0
        glGenVertexArrays(1, &vao)
        id = vao
        glBindVertexArray(vao)
        for a in attributes {
            glBindBuffer(GLenum(GL_ARRAY_BUFFER), a.buffer.id)
            glEnableVertexAttribArray(a.location)
            let type = a.kind == .float ? GLenum(GL_FLOAT) : GLenum(GL_UNSIGNED_BYTE)
            let normalized = a.kind == .float ? GLboolean(GL_FALSE) : GLboolean(GL_TRUE)
            glVertexAttribPointer(a.location, GLint(a.components), type, normalized, GLsizei(a.stride),
                                  UnsafeRawPointer(bitPattern: a.offset))
            glVertexAttribDivisor(a.location, a.perInstance ? 1 : 0)
        }
        glBindVertexArray(0)
        glBindBuffer(GLenum(GL_ARRAY_BUFFER), 0)
        device.count("vertexArray", 1)
    }

    deinit {
        var vao = id
        glDeleteVertexArrays(1, &vao)
        device.count("vertexArray", -1)
    }
}
