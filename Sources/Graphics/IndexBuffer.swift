import COpenGL

/// Vertex indices in GPU memory, for drawing shared vertices (meshes, outlines) with `drawIndexed`.
public final class IndexBuffer {
    let id: GLuint
    public private(set) var count: Int
    private let device: GraphicsDevice

    public init(device: GraphicsDevice, _ indices: [UInt32]) {
        self.device = device
        var buffer: GLuint = 0
        glGenBuffers(1, &buffer)
        id = buffer
        count = indices.count
        upload(indices)
        device.count("indexBuffer", 1)
    }

    public func update(_ indices: [UInt32]) {
        count = indices.count
        upload(indices)
    }

    private func upload(_ indices: [UInt32]) {
        // Bound outside any vertex array, so that no array's element binding changes.
        glBindVertexArray(0)
        glBindBuffer(GLenum(GL_ELEMENT_ARRAY_BUFFER), id)
        indices.withUnsafeBytes {
            glBufferData(GLenum(GL_ELEMENT_ARRAY_BUFFER), GLsizeiptr($0.count), $0.baseAddress, GLenum(GL_STATIC_DRAW))
        }
        glBindBuffer(GLenum(GL_ELEMENT_ARRAY_BUFFER), 0)
    }

    deinit {
        var buffer = id
        glDeleteBuffers(1, &buffer)
        device.count("indexBuffer", -1)
    }
}
