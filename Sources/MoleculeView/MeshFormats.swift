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
        switch self {
        case .glb: return [(path, MeshFormat.gltf(meshes, binary: true, generator: generator))]
        case .gltf: return [(path, MeshFormat.gltf(meshes, binary: false, generator: generator))]
        case .dae: return [(path, Array(MeshFormat.collada(meshes, generator: generator).utf8))]
        case .stl: return [(path, MeshFormat.stl(meshes, generator: generator))]
        case .obj:
            let mtl = ((path as NSString).deletingPathExtension as NSString).appendingPathExtension("mtl") ?? path + ".mtl"
            let (obj, materials) = MeshFormat.obj(meshes, materialFile: (mtl as NSString).lastPathComponent, generator: generator)
            return [(path, Array(obj.utf8)), (mtl, Array(materials.utf8))]
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
            let positions = append(mesh.positions.flatMap { [$0.x, $0.y, $0.z] }, target: 34962)
            accessors.append(["bufferView": positions, "componentType": 5126, "count": mesh.positions.count, "type": "VEC3",
                              "min": [b.min.x, b.min.y, b.min.z], "max": [b.max.x, b.max.y, b.max.z]])
            let normals = append(mesh.normals.flatMap { [$0.x, $0.y, $0.z] }, target: 34962)
            accessors.append(["bufferView": normals, "componentType": 5126, "count": mesh.normals.count, "type": "VEC3"])
            let colors = append(mesh.colors.flatMap { [UInt8($0 >> 16 & 0xFF), UInt8($0 >> 8 & 0xFF), UInt8($0 & 0xFF), 255] }, target: 34962)
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

    // MARK: Collada

    static func collada(_ meshes: [Mesh], generator: String) -> String {
        var geometries = "", nodes = ""
        func floats(_ values: [Float]) -> String { values.map { String(format: "%.4g", $0) }.joined(separator: " ") }
        for (n, mesh) in meshes.enumerated() {
            let id = "mesh\(n)"
            let colors = mesh.colors.flatMap { c -> [Float] in let v = rgb(c); return [v.x, v.y, v.z] }
            geometries += """
                <geometry id="\(id)" name="\(escape(mesh.name))"><mesh>
                  <source id="\(id)-positions"><float_array id="\(id)-positions-array" count="\(mesh.positions.count * 3)">\(floats(mesh.positions.flatMap { [$0.x, $0.y, $0.z] }))</float_array>
                    <technique_common><accessor source="#\(id)-positions-array" count="\(mesh.positions.count)" stride="3"><param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/></accessor></technique_common></source>
                  <source id="\(id)-normals"><float_array id="\(id)-normals-array" count="\(mesh.normals.count * 3)">\(floats(mesh.normals.flatMap { [$0.x, $0.y, $0.z] }))</float_array>
                    <technique_common><accessor source="#\(id)-normals-array" count="\(mesh.normals.count)" stride="3"><param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/></accessor></technique_common></source>
                  <source id="\(id)-colors"><float_array id="\(id)-colors-array" count="\(colors.count)">\(floats(colors))</float_array>
                    <technique_common><accessor source="#\(id)-colors-array" count="\(mesh.colors.count)" stride="3"><param name="R" type="float"/><param name="G" type="float"/><param name="B" type="float"/></accessor></technique_common></source>
                  <vertices id="\(id)-vertices"><input semantic="POSITION" source="#\(id)-positions"/></vertices>
                  <triangles count="\(mesh.triangleCount)" material="vertexColors">
                    <input semantic="VERTEX" source="#\(id)-vertices" offset="0"/>
                    <input semantic="NORMAL" source="#\(id)-normals" offset="0"/>
                    <input semantic="COLOR" source="#\(id)-colors" offset="0" set="0"/>
                    <p>\(mesh.indices.map(String.init).joined(separator: " "))</p>
                  </triangles>
                </mesh></geometry>

            """
            nodes += """
                <node id="node\(n)" name="\(escape(mesh.name))"><instance_geometry url="#\(id)"><bind_material><technique_common>
                  <instance_material symbol="vertexColors" target="#vertexColorsMaterial"/></technique_common></bind_material></instance_geometry></node>

            """
        }
        return """
        <?xml version="1.0" encoding="utf-8"?>
        <COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
          <asset><contributor><authoring_tool>\(escape(generator))</authoring_tool></contributor>
            <unit name="angstrom" meter="1e-10"/><up_axis>Y_UP</up_axis></asset>
          <library_effects><effect id="vertexColorsEffect"><profile_COMMON><technique sid="common"><lambert>
            <diffuse><color>1 1 1 1</color></diffuse></lambert></technique></profile_COMMON></effect></library_effects>
          <library_materials><material id="vertexColorsMaterial" name="vertex colors"><instance_effect url="#vertexColorsEffect"/></material></library_materials>
          <library_geometries>
        \(geometries)  </library_geometries>
          <library_visual_scenes><visual_scene id="scene" name="molecule">
        \(nodes)  </visual_scene></library_visual_scenes>
          <scene><instance_visual_scene url="#scene"/></scene>
        </COLLADA>

        """
    }

    static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    // MARK: OBJ

    static func obj(_ meshes: [Mesh], materialFile: String, generator: String) -> (obj: String, mtl: String) {
        var out = "# \(generator)\nmtllib \(materialFile)\n", mtl = "# \(generator)\n"
        var materials = Set<UInt32>()
        var base = 1
        for mesh in meshes {
            out += "o \(mesh.name)\n"
            for p in mesh.positions { out += "v \(p.x) \(p.y) \(p.z)\n" }
            for n in mesh.normals { out += "vn \(n.x) \(n.y) \(n.z)\n" }
            // Faces grouped by color (the first vertex's): a material each.
            var byColor: [UInt32: [Int]] = [:]
            for t in 0..<mesh.triangleCount { byColor[mesh.colors[Int(mesh.indices[3 * t])], default: []].append(t) }
            for (color, triangles) in byColor.sorted(by: { $0.key < $1.key }) {
                materials.insert(color)
                out += "usemtl c\(String(format: "%06X", color))\n"
                for t in triangles {
                    let a = Int(mesh.indices[3 * t]) + base, b = Int(mesh.indices[3 * t + 1]) + base, c = Int(mesh.indices[3 * t + 2]) + base
                    out += "f \(a)//\(a) \(b)//\(b) \(c)//\(c)\n"
                }
            }
            base += mesh.positions.count
        }
        for color in materials.sorted() {
            let v = rgb(color)
            mtl += "newmtl c\(String(format: "%06X", color))\nKa 0 0 0\nKd \(v.x) \(v.y) \(v.z)\nKs 0.2 0.2 0.2\nNs 30\nd 1\nillum 2\n"
        }
        return (out, mtl)
    }

    // MARK: STL

    static func stl(_ meshes: [Mesh], generator: String) -> [UInt8] {
        var out = [UInt8](repeating: 0x20, count: 80)
        let header = Array("binary STL, Angstrom, \(generator)".utf8.prefix(80))
        out.replaceSubrange(0..<header.count, with: header)
        let count = meshes.reduce(0) { $0 + $1.triangleCount }
        withUnsafeBytes(of: UInt32(count).littleEndian) { out += $0 }
        out.reserveCapacity(out.count + count * 50)
        func put(_ v: SIMD3<Float>) {
            for f in [v.x, v.y, v.z] { withUnsafeBytes(of: f.bitPattern.littleEndian) { out += $0 } }
        }
        for mesh in meshes {
            for t in 0..<mesh.triangleCount {
                let a = mesh.positions[Int(mesh.indices[3 * t])], b = mesh.positions[Int(mesh.indices[3 * t + 1])], c = mesh.positions[Int(mesh.indices[3 * t + 2])]
                let u = b - a, w = c - a
                var n = SIMD3(u.y * w.z - u.z * w.y, u.z * w.x - u.x * w.z, u.x * w.y - u.y * w.x)
                let l = (n * n).sum().squareRoot()
                if l > 0 { n /= l }
                put(n)
                put(a)
                put(b)
                put(c)
                out += [0, 0]
            }
        }
        return out
    }
}
