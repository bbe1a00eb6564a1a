import Foundation
import Core

/// GLSL sources from the `Shaders/` folder. `#include "name.glsl"` pulls in a shared snippet
/// from the same folder (once per program); an include that does not exist is an error.
public struct ShaderLibrary: Sendable {
    public let directory: URL

    public static func standard() throws -> ShaderLibrary {
        ShaderLibrary(directory: try Resources.shaderDirectory())
    }

    public init(directory: URL) { self.directory = directory }

    /// The source of `name` with its includes expanded and `defines` (`#define NAME 1`) set
    /// right after the `#version` line.
    public func source(_ name: String, defines: [String] = []) throws -> String {
        var included = Set<String>()
        let text = try expand(name, included: &included, depth: 0)
        guard !defines.isEmpty else { return text }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let at = (lines.firstIndex { $0.hasPrefix("#version") } ?? -1) + 1
        lines.insert(contentsOf: defines.map { "#define \($0) 1" }, at: at)
        return lines.joined(separator: "\n")
    }

    private func expand(_ name: String, included: inout Set<String>, depth: Int) throws -> String {
        guard depth < 8 else { throw GraphicsError("shader includes nest too deep at \(name)") }
        let url = directory.appendingPathComponent(name)
        guard let text = try? String(contentsOf: url, encoding: .utf8) else {
            throw GraphicsError("shader \(name) not found in \(directory.path)")
        }
        var out: [String] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("#include") else {
                out.append(String(line))
                continue
            }
            let parts = trimmed.split(separator: "\"")
            guard parts.count >= 2 else { throw GraphicsError("\(name):\(number + 1): malformed #include") }
            let include = String(parts[1])
            guard FileManager.default.fileExists(atPath: directory.appendingPathComponent(include).path) else {
                throw GraphicsError("\(name):\(number + 1): unknown include \"\(include)\"")
            }
            if included.insert(include).inserted {
                out.append(try expand(include, included: &included, depth: depth + 1))
            }
        }
        return out.joined(separator: "\n")
    }
}
