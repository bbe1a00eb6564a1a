import Graphics
import Scene

/// A molecule's geometry on the GPU. Made once per structure, mode and visibility; a new
/// camera or style draws it again without touching these buffers, and a new color theme
/// replaces only the color buffers.
public final class MoleculeScene {
    let sphereVertices: VertexArray?
    let cylinderVertices: VertexArray?
    let sphereColors: GPUBuffer?
    let cylinderColors: GPUBuffer?
    public let geometry: MoleculeGeometry

    init(sphereVertices: VertexArray?, cylinderVertices: VertexArray?, sphereColors: GPUBuffer?, cylinderColors: GPUBuffer?,
         geometry: MoleculeGeometry, packedSphereColors: [UInt32], packedCylinderColors: [UInt32]) {
        self.sphereVertices = sphereVertices
        self.cylinderVertices = cylinderVertices
        self.sphereColors = sphereColors
        self.cylinderColors = cylinderColors
        self.geometry = geometry
        self.packedSphereColors = packedSphereColors
        self.packedCylinderColors = packedCylinderColors
        typicalSphereRadius = MoleculeGeometry.medianRadius(geometry.spheres)
        largestCylinderRadius = geometry.cylinderRadius
    }

    /// The median sphere radius, to choose how impostors are drawn.
    let typicalSphereRadius: Float
    /// The thickest bond's radius, to choose how bonds are drawn.
    let largestCylinderRadius: Float

    /// Sphere and bond colors as uploaded, for drawing a subset.
    let packedSphereColors: [UInt32]
    let packedCylinderColors: [UInt32]
    /// The visible subset of the spheres (and of the bonds) for the last view direction and
    /// smallest drawn radius, on the GPU.
    var culled: (vertices: VertexArray, spheres: GPUBuffer, colors: GPUBuffer, count: Int)?
    var culledCylinders: (vertices: VertexArray, cylinders: GPUBuffer, radii: GPUBuffer, colors: GPUBuffer, count: Int)?
    var culledFor: CullingKey?
    /// The coarse stand-in drawn while a live view moves (`CoarseSpheres`), made at its first such frame.
    var coarse: MoleculeScene?
    /// The spheres' runs culling takes them in, made at the first culled picture.
    var sphereRuns: SphereRuns?
    /// Culling done ahead, off the drawing thread, for one view direction.
    var visibility: SphereVisibility?
    /// The meshes (cartoons): vertices with their colors, and the triangles' indices.
    var meshes: [(vertices: VertexArray, colors: GPUBuffer, indices: IndexBuffer)] = []
    /// Per mesh, whether its indices are lines (a map's mesh) rather than triangles.
    var meshLines: [Bool] = []
    /// Each of the geometry's meshes' vertex colors as uploaded (opacity in the alpha byte), also
    /// for `SphereCaster`.
    var packedMeshColors: [[UInt32]] = []

    public static func packedColors(_ colors: [UInt32], opacity: Float = 1) -> [UInt32] {
        let alpha = UInt32((max(0, min(1, opacity)) * 255).rounded()) << 24
        return colors.map { c in (c >> 16 & 0xFF) | (c & 0xFF00) | (c & 0xFF) << 16 | alpha }
    }
}
