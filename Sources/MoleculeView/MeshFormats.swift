import Core
import Foundation

/// Meshes written as files: glTF 2.0 (binary `.glb` or `.gltf` with the buffer inside), Collada 1.4.1
/// (`.dae`), Wavefront OBJ with its MTL, and binary STL. Coordinates are Ångström (Collada says so
/// in its `<unit>`); one named node, object or geometry per mesh (a chain) where the format has
/// them; vertex colors in glTF and Collada, a material per color in OBJ; STL has no colors.
public enum MeshFormat: String, Sendable, CaseIterable {
    case glb, gltf, dae, obj, stl

    /// The format a file name asks for.
    public init?(path: String) {
        self.init(rawValue: (path as NSString).pathExtension.lowercased())
    }

    /// The files to write: (path, bytes), the main one first (OBJ has its MTL beside it).
    public func files(_ meshes: [Mesh], path: String, generator: String = "Molshot") -> [(String, [UInt8])] {
        var bytes: [UInt8] = []
        // Writing to memory cannot fail.
        let collect: MeshFormat.Emit = { bytes += $0 }
        switch self {
        case .glb: return [(path, MeshFormat.gltf(meshes, binary: true, generator: generator))]
        case .gltf: return [(path, MeshFormat.gltf(meshes, binary: false, generator: generator))]
        case .dae: try? MeshFormat.collada(meshes, generator: generator, collect)
        case .stl: try? MeshFormat.stl(meshes, generator: generator, collect)
        case .obj:
            let mtl = MeshFormat.materialPath(path)
            let materials = (try? MeshFormat.obj(meshes, materialFile: (mtl as NSString).lastPathComponent, generator: generator, collect)) ?? ""
            return [(path, bytes), (mtl, Array(materials.utf8))]
        }
        return [(path, bytes)]
    }

    /// Writes `meshes` to `path` (and the MTL beside an OBJ), each file whole or not at all.
    /// GLB, Collada, OBJ and STL are streamed to the file a slice of a mesh at a time, never
    /// held whole in memory as text or bytes; `.gltf` (its buffer inside the JSON as base64) is
    /// built whole.
    public func write(_ meshes: [Mesh], path: String, generator: String = "Molshot") throws {
        switch self {
        case .gltf:
            try AtomicFile.write(MeshFormat.gltf(meshes, binary: false, generator: generator), to: path)
        case .glb:
            try AtomicFile.write(to: path) { try MeshFormat.streamGLB(meshes, generator: generator, into: $0) }
        case .dae:
            try AtomicFile.write(to: path) { out in try MeshFormat.collada(meshes, generator: generator) { try out.write($0) } }
        case .stl:
            try AtomicFile.write(to: path) { out in try MeshFormat.stl(meshes, generator: generator) { try out.write($0) } }
        case .obj:
            let mtl = MeshFormat.materialPath(path)
            var materials = ""
            try AtomicFile.write(to: path) { out in
                materials = try MeshFormat.obj(meshes, materialFile: (mtl as NSString).lastPathComponent, generator: generator) { try out.write($0) }
            }
            try AtomicFile.write(Array(materials.utf8), to: mtl)
        }
    }

    /// Where a mesh's bytes go, a slice at a time (about 64 KiB).
    typealias Emit = ([UInt8]) throws -> Void

    static let sliceBytes = 1 << 16

    /// The MTL beside an OBJ.
    static func materialPath(_ path: String) -> String {
        ((path as NSString).deletingPathExtension as NSString).appendingPathExtension("mtl") ?? path + ".mtl"
    }

    /// x, y, z after x, y, z (a SIMD3 is padded to four floats in memory).
    static func flat(_ v: [SIMD3<Float>]) -> [Float] {
        [Float](unsafeUninitializedCapacity: v.count * 3) { out, count in
            for (i, p) in v.enumerated() {
                out[3 * i] = p.x
                out[3 * i + 1] = p.y
                out[3 * i + 2] = p.z
            }
            count = v.count * 3
        }
    }

    static func rgb(_ c: UInt32) -> SIMD3<Float> {
        SIMD3(Float(c >> 16 & 0xFF), Float(c >> 8 & 0xFF), Float(c & 0xFF)) / 255
    }

    // MARK: glTF

    static func gltf(_ meshes: [Mesh], binary: Bool, generator: String) -> [UInt8] {
        var bin: [UInt8] = []
        var views: [[String: Any]] = [], accessors: [[String: Any]] = [], gltfMeshes: [[String: Any]] = [], nodes: [[String: Any]] = []
        func append<T>(_ values: [T], target: Int) -> Int {
            while bin.count % 4 != 0 { bin.append(0) }
            let offset = bin.count
            values.withUnsafeBytes { bin += $0 }
            views.append(["buffer": 0, "byteOffset": offset, "byteLength": bin.count - offset, "target": target])
            return views.count - 1
        }
        for mesh in meshes {
            let b = mesh.bounds
            let positions = append(flat(mesh.positions), target: 34962)
            accessors.append(["bufferView": positions, "componentType": 5126, "count": mesh.positions.count, "type": "VEC3",
                              "min": [b.min.x, b.min.y, b.min.z], "max": [b.max.x, b.max.y, b.max.z]])
            let normals = append(flat(mesh.normals), target: 34962)
            accessors.append(["bufferView": normals, "componentType": 5126, "count": mesh.normals.count, "type": "VEC3"])
            // 0xRRGGBB to the bytes R, G, B, 255.
            let colors = append(mesh.colors.map { ($0 >> 16 & 0xFF) | ($0 & 0xFF00) | ($0 & 0xFF) << 16 | 0xFF00_0000 }, target: 34962)
            accessors.append(["bufferView": colors, "componentType": 5121, "normalized": true, "count": mesh.colors.count, "type": "VEC4"])
            let indices = append(mesh.indices, target: 34963)
            accessors.append(["bufferView": indices, "componentType": 5125, "count": mesh.indices.count, "type": "SCALAR"])
            let k = accessors.count - 4
            gltfMeshes.append(["name": mesh.name, "primitives": [["attributes": ["POSITION": k, "NORMAL": k + 1, "COLOR_0": k + 2],
                                                                  "indices": k + 3, "material": 0, "mode": 4]]])
            nodes.append(["name": mesh.name, "mesh": gltfMeshes.count - 1])
        }
        while bin.count % 4 != 0 { bin.append(0) }
        var buffer: [String: Any] = ["byteLength": bin.count]
        if !binary { buffer["uri"] = "data:application/octet-stream;base64," + Data(bin).base64EncodedString() }
        let document: [String: Any] = [
            "asset": ["version": "2.0", "generator": generator, "extras": ["units": "angstrom"]],
            "scene": 0, "scenes": [["name": "molecule", "nodes": Array(0..<nodes.count)]], "nodes": nodes, "meshes": gltfMeshes,
            "materials": [["name": "vertex colors", "pbrMetallicRoughness": ["baseColorFactor": [1, 1, 1, 1], "metallicFactor": 0, "roughnessFactor": 0.6]]],
            "accessors": accessors, "bufferViews": views, "buffers": [buffer],
        ]
        var json = [UInt8]((try? JSONSerialization.data(withJSONObject: document, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data())
        guard binary else { return json }
        while json.count % 4 != 0 { json.append(0x20) }
        var out: [UInt8] = []
        func put(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { out += $0 } }
        out += Array("glTF".utf8)
        put(2)
        put(UInt32(12 + 8 + json.count + 8 + bin.count))
        put(UInt32(json.count))
        out += Array("JSON".utf8)
        out += json
        put(UInt32(bin.count))
        out += [0x42, 0x49, 0x4E, 0x00]
        out += bin
        return out
    }

    /// The same file as `gltf(_:binary: true, ...)` writes, streamed: the JSON first (every
    /// view's offset is known from the meshes' sizes), then each mesh's arrays converted a slice
    /// at a time.
    static func streamGLB(_ meshes: [Mesh], generator: String, into out: AtomicFile.Stream) throws {
        var views: [[String: Any]] = [], accessors: [[String: Any]] = [], gltfMeshes: [[String: Any]] = [], nodes: [[String: Any]] = []
        var length = 0
        // Every part is a multiple of 4 bytes long (12 a position or normal, 4 a colour or index): no padding.
        func view(_ bytes: Int, target: Int) -> Int {
            views.append(["buffer": 0, "byteOffset": length, "byteLength": bytes, "target": target])
            length += bytes
            return views.count - 1
        }
        for mesh in meshes {
            let b = mesh.bounds
            accessors.append(["bufferView": view(12 * mesh.positions.count, target: 34962), "componentType": 5126, "count": mesh.positions.count,
                              "type": "VEC3", "min": [b.min.x, b.min.y, b.min.z], "max": [b.max.x, b.max.y, b.max.z]])
            accessors.append(["bufferView": view(12 * mesh.normals.count, target: 34962), "componentType": 5126, "count": mesh.normals.count, "type": "VEC3"])
            accessors.append(["bufferView": view(4 * mesh.colors.count, target: 34962), "componentType": 5121, "normalized": true,
                              "count": mesh.colors.count, "type": "VEC4"])
            accessors.append(["bufferView": view(4 * mesh.indices.count, target: 34963), "componentType": 5125, "count": mesh.indices.count, "type": "SCALAR"])
            let k = accessors.count - 4
            gltfMeshes.append(["name": mesh.name, "primitives": [["attributes": ["POSITION": k, "NORMAL": k + 1, "COLOR_0": k + 2],
                                                                  "indices": k + 3, "material": 0, "mode": 4]]])
            nodes.append(["name": mesh.name, "mesh": gltfMeshes.count - 1])
        }
        let document: [String: Any] = [
            "asset": ["version": "2.0", "generator": generator, "extras": ["units": "angstrom"]],
            "scene": 0, "scenes": [["name": "molecule", "nodes": Array(0..<nodes.count)]], "nodes": nodes, "meshes": gltfMeshes,
            "materials": [["name": "vertex colors", "pbrMetallicRoughness": ["baseColorFactor": [1, 1, 1, 1], "metallicFactor": 0, "roughnessFactor": 0.6]]],
            "accessors": accessors, "bufferViews": views, "buffers": [["byteLength": length]],
        ]
        var json = [UInt8]((try? JSONSerialization.data(withJSONObject: document, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data())
        while json.count % 4 != 0 { json.append(0x20) }
        func put(_ v: UInt32) throws { try withUnsafeBytes(of: v.littleEndian) { try out.write($0) } }
        try out.write(Array("glTF".utf8))
        try put(2)
        try put(UInt32(12 + 8 + json.count + 8 + length))
        try put(UInt32(json.count))
        try out.write(Array("JSON".utf8))
        try out.write(json)
        try put(UInt32(length))
        try out.write([0x42, 0x49, 0x4E, 0x00])
        let slice = 1 << 16
        var floats = [Float](), words = [UInt32]()
        floats.reserveCapacity(3 * slice)
        words.reserveCapacity(slice)
        for mesh in meshes {
            for vectors in [mesh.positions, mesh.normals] {
                for start in stride(from: 0, to: vectors.count, by: slice) {
                    floats.removeAll(keepingCapacity: true)
                    for p in vectors[start..<min(vectors.count, start + slice)] { floats.append(p.x); floats.append(p.y); floats.append(p.z) }
                    try out.write(values: floats)
                }
            }
            for start in stride(from: 0, to: mesh.colors.count, by: slice) {
                // 0xRRGGBB to the bytes R, G, B, 255.
                words.removeAll(keepingCapacity: true)
                for c in mesh.colors[start..<min(mesh.colors.count, start + slice)] { words.append((c >> 16 & 0xFF) | (c & 0xFF00) | (c & 0xFF) << 16 | 0xFF00_0000) }
                try out.write(values: words)
            }
            try out.write(values: mesh.indices)
        }
    }

    // MARK: Collada

    static func collada(_ meshes: [Mesh], generator: String, _ emit: Emit) throws {
        try emit(Array("""
        <?xml version="1.0" encoding="utf-8"?>
        <COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
          <asset><contributor><authoring_tool>\(escape(generator))</authoring_tool></contributor>
            <unit name="angstrom" meter="1e-10"/><up_axis>Y_UP</up_axis></asset>
          <library_effects><effect id="vertexColorsEffect"><profile_COMMON><technique sid="common"><lambert>
            <diffuse><color>1 1 1 1</color></diffuse></lambert></technique></profile_COMMON></effect></library_effects>
          <library_materials><material id="vertexColorsMaterial" name="vertex colors"><instance_effect url="#vertexColorsEffect"/></material></library_materials>
          <library_geometries>

        """.utf8))
        var t = NumberText()
        /// Numbers separated by blanks, emitted a slice at a time.
        func numbers(_ count: Int, _ value: (Int) -> Float) throws {
            for i in 0..<count {
                if i > 0 { t.bytes.append(0x20) }
                t.float(value(i))
                if t.bytes.count >= sliceBytes { try emit(t.bytes); t.bytes.removeAll(keepingCapacity: true) }
            }
        }
        func text(_ s: String) { t.text(s) }
        var nodes = ""
        for (n, mesh) in meshes.enumerated() {
            let id = "mesh\(n)"
            text("""
                <geometry id="\(id)" name="\(escape(mesh.name))"><mesh>
                  <source id="\(id)-positions"><float_array id="\(id)-positions-array" count="\(mesh.positions.count * 3)">
            """)
            try numbers(mesh.positions.count * 3) { mesh.positions[$0 / 3][$0 % 3] }
            text("""
            </float_array>
                    <technique_common><accessor source="#\(id)-positions-array" count="\(mesh.positions.count)" stride="3"><param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/></accessor></technique_common></source>
                  <source id="\(id)-normals"><float_array id="\(id)-normals-array" count="\(mesh.normals.count * 3)">
            """)
            try numbers(mesh.normals.count * 3) { mesh.normals[$0 / 3][$0 % 3] }
            text("""
            </float_array>
                    <technique_common><accessor source="#\(id)-normals-array" count="\(mesh.normals.count)" stride="3"><param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/></accessor></technique_common></source>
                  <source id="\(id)-colors"><float_array id="\(id)-colors-array" count="\(mesh.colors.count * 3)">
            """)
            try numbers(mesh.colors.count * 3) { rgb(mesh.colors[$0 / 3])[$0 % 3] }
            text("""
            </float_array>
                    <technique_common><accessor source="#\(id)-colors-array" count="\(mesh.colors.count)" stride="3"><param name="R" type="float"/><param name="G" type="float"/><param name="B" type="float"/></accessor></technique_common></source>
                  <vertices id="\(id)-vertices"><input semantic="POSITION" source="#\(id)-positions"/></vertices>
                  <triangles count="\(mesh.triangleCount)" material="vertexColors">
                    <input semantic="VERTEX" source="#\(id)-vertices" offset="0"/>
                    <input semantic="NORMAL" source="#\(id)-normals" offset="0"/>
                    <input semantic="COLOR" source="#\(id)-colors" offset="0" set="0"/>
                    <p>
            """)
            for (i, v) in mesh.indices.enumerated() {
                if i > 0 { t.bytes.append(0x20) }
                t.integer(Int(v))
                if t.bytes.count >= sliceBytes { try emit(t.bytes); t.bytes.removeAll(keepingCapacity: true) }
            }
            text("""
            </p>
                  </triangles>
                </mesh></geometry>

            """)
            nodes += """
                <node id="node\(n)" name="\(escape(mesh.name))"><instance_geometry url="#\(id)"><bind_material><technique_common>
                  <instance_material symbol="vertexColors" target="#vertexColorsMaterial"/></technique_common></bind_material></instance_geometry></node>

            """
        }
        text("""
          </library_geometries>
          <library_visual_scenes><visual_scene id="scene" name="molecule">
        \(nodes)  </visual_scene></library_visual_scenes>
          <scene><instance_visual_scene url="#scene"/></scene>
        </COLLADA>

        """)
        try emit(t.bytes)
    }

    static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    // MARK: OBJ

    /// Writes the OBJ through `emit` and returns its MTL.
    static func obj(_ meshes: [Mesh], materialFile: String, generator: String, _ emit: Emit) throws -> String {
        var mtl = "# \(generator)\n"
        var t = NumberText()
        t.text("# \(generator)\nmtllib \(materialFile)\n")
        func flush() throws {
            if t.bytes.count >= sliceBytes { try emit(t.bytes); t.bytes.removeAll(keepingCapacity: true) }
        }
        var materials = Set<UInt32>()
        var base = 1
        for mesh in meshes {
            t.text("o \(mesh.name)\n")
            for p in mesh.positions { t.line("v ", p); try flush() }
            for n in mesh.normals { t.line("vn ", n); try flush() }
            // Faces grouped by color (the first vertex's): a material each.
            var byColor: [UInt32: [Int32]] = [:]
            for f in 0..<mesh.triangleCount { byColor[mesh.colors[Int(mesh.indices[3 * f])], default: []].append(Int32(f)) }
            for (color, triangles) in byColor.sorted(by: { $0.key < $1.key }) {
                materials.insert(color)
                t.text("usemtl c\(String(format: "%06X", color))\n")
                for f in triangles.lazy.map(Int.init) {
                    t.face(Int(mesh.indices[3 * f]) + base, Int(mesh.indices[3 * f + 1]) + base, Int(mesh.indices[3 * f + 2]) + base)
                    try flush()
                }
            }
            base += mesh.positions.count
        }
        try emit(t.bytes)
        for color in materials.sorted() {
            let v = rgb(color)
            mtl += "newmtl c\(String(format: "%06X", color))\nKa 0 0 0\nKd \(v.x) \(v.y) \(v.z)\nKs 0.2 0.2 0.2\nNs 30\nd 1\nillum 2\n"
        }
        return mtl
    }

    // MARK: STL

    static func stl(_ meshes: [Mesh], generator: String, _ emit: Emit) throws {
        var out = [UInt8](repeating: 0x20, count: 80)
        let header = Array("binary STL, Angstrom, \(generator)".utf8.prefix(80))
        out.replaceSubrange(0..<header.count, with: header)
        let count = meshes.reduce(0) { $0 + $1.triangleCount }
        withUnsafeBytes(of: UInt32(clamping: count).littleEndian) { out += $0 }
        out.reserveCapacity(sliceBytes + 64)
        func put(_ v: SIMD3<Float>) {
            withUnsafeBytes(of: v.x.bitPattern.littleEndian) { out += $0 }
            withUnsafeBytes(of: v.y.bitPattern.littleEndian) { out += $0 }
            withUnsafeBytes(of: v.z.bitPattern.littleEndian) { out += $0 }
        }
        for mesh in meshes {
            for t in 0..<mesh.triangleCount {
                let a = mesh.positions[Int(mesh.indices[3 * t])], b = mesh.positions[Int(mesh.indices[3 * t + 1])], c = mesh.positions[Int(mesh.indices[3 * t + 2])]
                let u = b - a, w = c - a
                var n = SIMD3(u.y * w.z - u.z * w.y, u.z * w.x - u.x * w.z, u.x * w.y - u.y * w.x)
                let l = n.length
                if l > 0 { n /= l }
                put(n)
                put(a)
                put(b)
                put(c)
                out.append(0)
                out.append(0)
                if out.count >= sliceBytes { try emit(out); out.removeAll(keepingCapacity: true) }
            }
        }
        try emit(out)
    }
}

/// Numbers as text, fast: three decimals for coordinates (a thousandth of an Ångström), whole
/// numbers for indices, appended as bytes.
struct NumberText {
    var bytes: [UInt8] = []

    var string: String { String(decoding: bytes, as: UTF8.self) }

    mutating func text(_ s: String) { bytes += Array(s.utf8) }

    mutating func integer(_ n: Int) {
        if n < 0 { bytes.append(0x2D) }
        var v = n.magnitude
        var divisor: UInt = 1
        while v / divisor >= 10 { divisor *= 10 }
        repeat {
            bytes.append(UInt8(48 + v / divisor))
            v %= divisor
            divisor /= 10
        } while divisor > 0
    }

    mutating func float(_ f: Float) {
        guard f.isFinite else { bytes.append(0x30); return }
        let scaled = Int((Double(f) * 1000).rounded())
        if scaled < 0 { bytes.append(0x2D) }
        let m = scaled.magnitude
        integer(Int(m / 1000))
        let frac = Int(m % 1000)
        if frac != 0 {
            bytes.append(0x2E)
            bytes.append(UInt8(48 + frac / 100))
            if frac % 100 != 0 {
                bytes.append(UInt8(48 + frac / 10 % 10))
                if frac % 10 != 0 { bytes.append(UInt8(48 + frac % 10)) }
            }
        }
    }

    mutating func floats(_ values: [Float]) {
        bytes.reserveCapacity(bytes.count + values.count * 8)
        for (i, v) in values.enumerated() {
            if i > 0 { bytes.append(0x20) }
            float(v)
        }
    }

    mutating func integers(_ values: [UInt32]) {
        bytes.reserveCapacity(bytes.count + values.count * 7)
        for (i, v) in values.enumerated() {
            if i > 0 { bytes.append(0x20) }
            integer(Int(v))
        }
    }

    mutating func line(_ prefix: String, _ v: SIMD3<Float>) {
        text(prefix)
        float(v.x)
        bytes.append(0x20)
        float(v.y)
        bytes.append(0x20)
        float(v.z)
        bytes.append(0x0A)
    }

    /// `f a//a b//b c//c`: vertex and normal indices the same.
    mutating func face(_ a: Int, _ b: Int, _ c: Int) {
        bytes.append(0x66)
        for i in [a, b, c] {
            bytes.append(0x20)
            integer(i)
            bytes.append(0x2F)
            bytes.append(0x2F)
            integer(i)
        }
        bytes.append(0x0A)
    }
}
