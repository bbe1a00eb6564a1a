import Core
import Graphics
import Imaging

/// Looks of a picture that change no geometry: background, antialiasing, lighting.
public struct RenderStyle: Sendable, Equatable {
    /// Straight RGBA in 0...1; alpha 0 gives a transparent PNG.
    public var background = Color.white
    /// 0: off. 1 (automatic): edge smoothing after drawing (`EdgeSmoothing`), nearly as smooth
    /// as four samples a pixel at a fraction of the cost; where atoms are drawn smaller than a
    /// pixel, which no filter can mend and where drawing is bound by the number of atoms rather
    /// than by pixels, 2 x 2 supersampling instead. 2 to 4: supersampling, N x N samples a pixel.
    public var antialias = 1
    public var depthCue = false
    public var lightDirection = SIMD3<Float>(-0.35, 0.45, 0.82)
    /// Key light, fill light from the camera and ambient: a face turned from the key light gets
    /// the fill's share and keeps its shape instead of going flat dark (PyMOL lights from the camera too).
    public var ambient: Float = 0.24
    public var fill: Float = 0.24
    public var diffuse: Float = 0.66
    public var specular: Float = 0.35
    /// Outlines and ambient occlusion from the depth buffer.
    public var effects = DepthEffects()
    /// No atom is drawn with a radius under this many output pixels (a few atoms far apart stay visible).
    public var minimumAtomPixels: Float = 1.5

    public init() {}
}
