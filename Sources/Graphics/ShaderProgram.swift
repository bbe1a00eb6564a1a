import Core
import COpenGL

/// A linked GLSL program; uniforms are set by name, their locations looked up once.
public final class ShaderProgram {
    let id: GLuint
    /// Weak: the device keeps its programs.
    private weak var device: GraphicsDevice?
    private var locations: [String: GLint] = [:]

    init(device: GraphicsDevice, vertex: String, fragment: String, name: String) throws {
        self.device = device
        let vs = try ShaderProgram.compile(GLenum(GL_VERTEX_SHADER), vertex, name: name)
        defer { glDeleteShader(vs) }
        let fs = try ShaderProgram.compile(GLenum(GL_FRAGMENT_SHADER), fragment, name: name)
        defer { glDeleteShader(fs) }
        let program = glCreateProgram()
        glAttachShader(program, vs)
        glAttachShader(program, fs)
        glLinkProgram(program)
        var ok: GLint = 0
        glGetProgramiv(program, GLenum(GL_LINK_STATUS), &ok)
        guard ok != 0 else {
            let log = ShaderProgram.log(program, isProgram: true)
            glDeleteProgram(program)
            throw GraphicsError("linking \(name) failed: \(log)")
        }
        id = program
        device.count("program", 1)
    }

    deinit {
        glDeleteProgram(id)
        device?.count("program", -1)
    }

    private func use() {
        if let device { device.use(self) } else { glUseProgram(id) }
    }

    private static func compile(_ type: GLenum, _ source: String, name: String) throws -> GLuint {
        let shader = glCreateShader(type)
        source.withCString { p in
            var pointer: UnsafePointer<GLchar>? = p
            glShaderSource(shader, 1, &pointer, nil)
        }
        glCompileShader(shader)
        var ok: GLint = 0
        glGetShaderiv(shader, GLenum(GL_COMPILE_STATUS), &ok)
        guard ok != 0 else {
            let log = ShaderProgram.log(shader, isProgram: false)
            glDeleteShader(shader)
            throw GraphicsError("compiling \(name) (\(type == GLenum(GL_VERTEX_SHADER) ? "vertex" : "fragment")) failed: \(log)")
        }
        return shader
    }

    private static func log(_ object: GLuint, isProgram: Bool) -> String {
        var length: GLint = 0
        if isProgram { glGetProgramiv(object, GLenum(GL_INFO_LOG_LENGTH), &length) } else {
            glGetShaderiv(object, GLenum(GL_INFO_LOG_LENGTH), &length)
        }
        var text = [GLchar](repeating: 0, count: Int(max(length, 1)))
        if isProgram { glGetProgramInfoLog(object, length, nil, &text) } else { glGetShaderInfoLog(object, length, nil, &text) }
        return String(nulTerminated: text)
    }

    private func location(_ name: String) -> GLint {
        if let l = locations[name] { return l }
        let l = glGetUniformLocation(id, name)
        locations[name] = l
        return l
    }

    public func set(_ name: String, _ value: Float) {
        use()
        glUniform1f(location(name), value)
    }

    public func set(_ name: String, _ value: Int32) {
        use()
        glUniform1i(location(name), value)
    }

    public func set(_ name: String, _ value: SIMD2<Float>) {
        use()
        glUniform2f(location(name), value.x, value.y)
    }

    public func set(_ name: String, _ value: SIMD3<Float>) {
        use()
        glUniform3f(location(name), value.x, value.y, value.z)
    }

    public func set(_ name: String, _ value: SIMD4<Float>) {
        use()
        glUniform4f(location(name), value.x, value.y, value.z, value.w)
    }

    /// A 4x4 matrix given as 16 floats in column-major order.
    public func set(_ name: String, matrix: [Float]) {
        precondition(matrix.count == 16)
        use()
        matrix.withUnsafeBufferPointer { glUniformMatrix4fv(location(name), 1, GLboolean(GL_FALSE), $0.baseAddress) }
    }
}
