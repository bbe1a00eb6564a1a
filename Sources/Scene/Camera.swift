/// The view of a scene: rotation about the scene's center, zoom, pan in pixels, orthographic or
/// perspective projection. It starts fitted so that nothing is cropped at any aspect ratio: to a
/// bounding sphere (any rotation fits), or to the extent of the atoms as one rotation shows them
/// (`fitted(spheres:rotation:)`, which fills the frame). Plain math: testable without GL.
public struct Camera: Sendable, Equatable {
    public enum Projection: Sendable, Equatable {
        case orthographic
        /// Vertical field of view in degrees.
        case perspective(fieldOfView: Float)
    }

    public var center: SIMD3<Float>
    /// Radius of the sphere that must fit in the view at zoom 1.
    public var radius: Float
    public var rotation = Quaternion.identity
    /// 2 shows everything twice as large.
    public var zoom: Float = 1
    /// Shift of the picture in output pixels, x to the right, y down.
    public var pan = SIMD2<Float>(0, 0)
    public var projection = Projection.orthographic
    /// Room left around the sphere, as a fraction of its radius; with `fit`, around the atoms on
    /// every side, as a fraction of the picture's shorter side (two measures, two defaults).
    public var margin: Float = Camera.sphereMargin
    /// The default room around the bounding sphere, a fraction of its radius (`--view file`).
    public static let sphereMargin: Float = 0.03
    /// The default room around fitted atoms, a fraction of the picture's shorter side (`--view orient`).
    public static let fittedMargin: Float = 0.04
    /// Half the width and height (world units, about `center`) that the atoms span as `rotation`
    /// shows them; nil fits the bounding sphere instead.
    public var fit: SIMD2<Float>? = nil
    /// A slab: what lies more than `x` Å in front of the center or `y` Å behind it is not drawn
    /// (PyMOL's `clip`; nil draws the whole depth). Surfaces and cartoons are cut where they
    /// cross a plane; a sphere or bond whose front reaches past the near plane is left out whole.
    public var clip: SIMD2<Float>? = nil

    public init(center: SIMD3<Float>, radius: Float) {
        self.center = center
        self.radius = max(radius, 0.5)
    }

    /// Turns the view by `degrees` about the screen's x (right), y (up) and z (toward the viewer) axes, in that order.
    public mutating func rotate(degreesX: Float, degreesY: Float, degreesZ: Float) {
        let toRadians = Float.pi / 180
        if degreesX != 0 { rotation = (Quaternion(angle: degreesX * toRadians, axis: SIMD3(1, 0, 0)) * rotation).normalized }
        if degreesY != 0 { rotation = (Quaternion(angle: degreesY * toRadians, axis: SIMD3(0, 1, 0)) * rotation).normalized }
        if degreesZ != 0 { rotation = (Quaternion(angle: degreesZ * toRadians, axis: SIMD3(0, 0, 1)) * rotation).normalized }
    }

    /// Half the visible height at the center's depth (orthographic), or per unit distance (perspective), at zoom 1,
    /// for an output of `width` x `height`: the sphere fits the shorter side.
    func fittedHalfExtents(width: Int, height: Int) -> SIMD2<Float> {
        if let fit {
            // The atoms touch the margin on the tighter axis: world units per pixel as large as the
            // wider need of the two axes.
            let w = Float(width), h = Float(max(height, 1)), room = margin * min(w, h)
            let unitsPerPixel = max(fit.x / max(w / 2 - room, 1), fit.y / max(h / 2 - room, 1), 1e-6)
            return SIMD2(unitsPerPixel * w / 2, unitsPerPixel * h / 2)
        }
        let aspect = Float(width) / Float(max(height, 1))
        let r = radius * (1 + margin)
        let halfHeight = aspect >= 1 ? r : r / aspect
        return SIMD2(halfHeight * aspect, halfHeight)
    }

    /// Distance from the eye to the center.
    public var distance: Float {
        switch projection {
        case .orthographic:
            return radius * 3
        case .perspective(let fov):
            // Far enough that the sphere lies in front of the eye with room to spare.
            let half = fov * Float.pi / 360
            return radius * (1 + margin) / half.sin
        }
    }

    public func viewMatrix(width: Int, height: Int) -> Matrix4 {
        let unitsPerPixel = worldUnitsPerPixel(width: width, height: height)
        let shift = SIMD3<Float>(pan.x * unitsPerPixel, -pan.y * unitsPerPixel, -distance)
        return Matrix4.translation(shift) * Matrix4.rotation(rotation) * Matrix4.translation(-center)
    }

    /// World units one output pixel spans at the center's depth.
    public func worldUnitsPerPixel(width: Int, height: Int) -> Float {
        let half = fittedHalfExtents(width: width, height: height)
        switch projection {
        case .orthographic:
            return 2 * half.y / zoom / Float(height)
        case .perspective(let fov):
            if fit != nil { return 2 * half.y / zoom / Float(height) }
            let t = (fov * Float.pi / 360).sin / (fov * Float.pi / 360).cos
            let fit = half.y / (radius * (1 + margin))
            return 2 * distance * t * fit / zoom / Float(height)
        }
    }

    /// Distances from the eye of the near and far clipping planes.
    public var depthRange: (near: Float, far: Float) {
        let depth = radius * 1.5 + 1
        let near = max(distance - depth, distance * 0.01), far = distance + depth
        guard let clip, clip.x.isFinite, clip.y.isFinite else { return (near, far) }
        let clippedNear = min(max(near, distance - clip.x), distance)
        return (clippedNear, max(clippedNear + 0.01, min(far, distance + clip.y)))
    }

    public func projectionMatrix(width: Int, height: Int) -> Matrix4 {
        let half = fittedHalfExtents(width: width, height: height)
        let aspect = Float(width) / Float(max(height, 1))
        let (near, far) = depthRange
        switch projection {
        case .orthographic:
            let h = half.y / zoom, w = half.x / zoom
            return .orthographic(left: -w, right: w, bottom: -h, top: h, near: near, far: far)
        case .perspective(let fov):
            let t = (fov * Float.pi / 360).sin / (fov * Float.pi / 360).cos
            // Fitted to the atoms: the frame spans their extent at the center's depth (nearer atoms
            // are drawn larger and may reach into the margin).
            let h = fit != nil ? half.y / distance / zoom : t * (half.y / (radius * (1 + margin))) / zoom
            return .perspective(halfWidth: h * aspect, halfHeight: h, near: near, far: far)
        }
    }

    public var isOrthographic: Bool { projection == .orthographic }

    /// Where a world point lands in an output of `width` x `height`, in pixels from the top left.
    public func project(_ p: SIMD3<Float>, width: Int, height: Int) -> SIMD2<Float> {
        projector(width: width, height: height)(p)
    }

    /// `project` for many points: the matrices made once.
    public func projector(width: Int, height: Int) -> (SIMD3<Float>) -> SIMD2<Float> {
        let projection = projectionMatrix(width: width, height: height), view = viewMatrix(width: width, height: height)
        return { p in
            let clip = projection * (view * SIMD4(p, 1))
            let ndc = SIMD2(clip.x / clip.w, clip.y / clip.w)
            return SIMD2((ndc.x + 1) / 2 * Float(width), (1 - ndc.y) / 2 * Float(height))
        }
    }

    /// The camera for `rotation` fitted to spheres (x, y, z, r each) as that rotation shows them:
    /// centered on their extent across the screen, which fills the frame up to `margin` on its
    /// tighter axis.
    public static func fitted(spheres: [Float], rotation: Quaternion, margin: Float = Camera.fittedMargin) -> Camera {
        let n = spheres.count / 4
        guard n > 0 else { return Camera(center: .zero, radius: 1) }
        let m = rotation.matrix
        // Rows of the world-to-view rotation are the columns of its inverse.
        let right = SIMD3(m.0.x, m.1.x, m.2.x), up = SIMD3(m.0.y, m.1.y, m.2.y), toward = SIMD3(m.0.z, m.1.z, m.2.z)
        var lo = SIMD3<Float>(repeating: .greatestFiniteMagnitude), hi = -lo
        for i in 0..<n {
            let p = SIMD3(spheres[4 * i], spheres[4 * i + 1], spheres[4 * i + 2]), r = spheres[4 * i + 3]
            let v = SIMD3((p * right).sum(), (p * up).sum(), (p * toward).sum())
            lo = pointwiseMin(lo, v - r)
            hi = pointwiseMax(hi, v + r)
        }
        let mid = (lo + hi) / 2
        let center = right * mid.x + up * mid.y + toward * mid.z
        var radius: Float = 0
        for i in 0..<n {
            let d = SIMD3(spheres[4 * i], spheres[4 * i + 1], spheres[4 * i + 2]) - center
            radius = max(radius, d.length + spheres[4 * i + 3])
        }
        var camera = Camera(center: center, radius: radius)
        camera.rotation = rotation
        camera.margin = margin
        camera.fit = pointwiseMax(SIMD2(hi.x - lo.x, hi.y - lo.y) / 2, SIMD2(repeating: 0.25))
        return camera
    }

    /// The camera turned by each of `turns` (degrees about the screen's `axis`: 0 x, 1 y, 2 z)
    /// about its center, fitted once for all of them: a fitted camera's extent becomes the widest
    /// the atoms (`spheres`, x, y, z, r each) reach about the center in any of the turns, so that
    /// nothing is cropped and the scale does not change as a movie turns. A camera fitted to its
    /// bounding sphere fits every turn already, and nil `spheres` keep the fit as it is (a view
    /// focused on a part).
    public func turning(_ turns: [Float], axis: Int, spheres: [Float]?) -> [Camera] {
        let cameras = turns.map { degrees -> Camera in
            var c = self
            c.rotate(degreesX: axis == 0 ? degrees : 0, degreesY: axis == 1 ? degrees : 0, degreesZ: axis == 2 ? degrees : 0)
            return c
        }
        guard fit != nil, let spheres, !cameras.isEmpty else { return cameras }
        // The widest reach, from turns sampled evenly (every one up to 72).
        let step = max(1, cameras.count / 72)
        var reach = SIMD2<Float>(repeating: 0.25)
        for i in Swift.stride(from: 0, to: cameras.count, by: step) { reach = pointwiseMax(reach, cameras[i].reach(spheres)) }
        return cameras.map { c in
            var c = c
            c.fit = reach
            return c
        }
    }

    /// Half the width and height the spheres span on screen about the center, as this camera's rotation shows them.
    func reach(_ spheres: [Float]) -> SIMD2<Float> {
        let m = rotation.matrix
        let right = SIMD3(m.0.x, m.1.x, m.2.x), up = SIMD3(m.0.y, m.1.y, m.2.y)
        var r = SIMD2<Float>(0, 0)
        for i in 0..<(spheres.count / 4) {
            let d = SIMD3(spheres[4 * i], spheres[4 * i + 1], spheres[4 * i + 2]) - center, radius = spheres[4 * i + 3]
            r = pointwiseMax(r, SIMD2(abs((d * right).sum()) + radius, abs((d * up).sum()) + radius))
        }
        return r
    }
}
