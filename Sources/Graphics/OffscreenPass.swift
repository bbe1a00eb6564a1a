import Core
import Dispatch
import Imaging

/// What is left to do on the CPU after a picture is read back.
public enum Finishing: Sendable, Equatable {
    case none
    /// Edge smoothing (`EdgeSmoothing`), where the pass drew one sample a pixel.
    case smoothEdges
}

/// A picture as read back from the GPU, with what is left to do on the CPU.
public struct DrawnPicture: Sendable {
    private var ready: RGBAImage
    /// Antialiasing by edge smoothing is still to come.
    public var smoothEdges: Bool
    /// Depth cues still to draw: the drawn samples and their depths, before averaging.
    private var samples: DrawnSamples?

    public init(image: RGBAImage, smoothEdges: Bool) {
        self.ready = image
        self.smoothEdges = smoothEdges
    }

    /// Drawn samples (RGBA, bottom row first, `factor` x `factor` a pixel) and their window depths,
    /// with depth cues still to draw: they are drawn on the samples before they are averaged, in the
    /// finishing step, off the drawing thread. `projection`: for the output's pixels.
    public init(samples pixels: [UInt8], depth: [Float], width: Int, height: Int, factor: Int, effects: DepthEffects,
                projection: DepthEffects.Projection, smoothEdges: Bool) {
        var projection = projection
        projection.unitsPerPixel /= Float(factor)
        self.ready = RGBAImage(width: 0, height: 0, pixels: [])
        self.samples = DrawnSamples(pixels: pixels, depth: depth, width: width, height: height, factor: factor,
                                    effects: effects, projection: projection)
        self.smoothEdges = smoothEdges
    }

    /// The picture read back, averaged to the output size, its depth cues drawn (work done here
    /// when they were left to the finishing step), not yet edge smoothed.
    public var image: RGBAImage { samples?.finished() ?? ready }

    /// The finished picture. Separate from drawing so that a pipeline can do it on another thread:
    /// depth cues (outlines, occlusion), averaging of supersamples and edge smoothing all happen here
    /// (smoothing in `bands` bands of rows at once).
    public func finished(bands: Int = 1) -> RGBAImage {
        let image = self.image
        return smoothEdges ? EdgeSmoothing.smoothed(image, bands: bands) : image
    }
}

/// Drawn samples (RGBA, bottom row first) and their window depths, with the depth cues still to
/// draw on them and the supersampling factor to average away afterwards.
struct DrawnSamples: Sendable {
    var pixels: [UInt8]
    var depth: [Float]
    var width: Int
    var height: Int
    var factor: Int
    var effects: DepthEffects
    var projection: DepthEffects.Projection

    func finished() -> RGBAImage {
        var pixels = self.pixels
        pixels.withUnsafeMutableBufferPointer { p in
            depth.withUnsafeBufferPointer { d in
                effects.apply(to: p, depth: d, width: width, height: height, samples: factor, projection: projection)
            }
        }
        return pixels.withUnsafeBufferPointer { RGBAImage.fromBottomUp($0, width: width, height: height, factor: factor) }
    }
}

/// One offscreen picture, the part every drawer shares: the size limits, the supersampling
/// actually used, a framebuffer kept between pictures of the same size, the clear, the readback
/// (averaging supersamples) and the finishing step handed back to the caller. Molecules and
/// pathways are two drawers over it.
public final class OffscreenPass {
    /// Largest output side a pass accepts.
    public static let maximumSide = PictureBounds.maximumSide
    /// Most pixels drawn for one image, supersampling included; past it the factor is lowered.
    public static let maximumDrawnPixels = 64 << 20

    public let device: GraphicsDevice
    private var framebuffer: Framebuffer?
    /// Seconds the last pass spent drawing (until the GPU finished) and reading back.
    public private(set) var lastTimings: (draw: Double, readback: Double) = (0, 0)

    /// Whether the framebuffer has a depth buffer: molecules need one, flat maps do not.
    public let depth: Bool

    public init(device: GraphicsDevice, depth: Bool = true) {
        self.device = device
        self.depth = depth
    }

    /// Where a drawer draws: the framebuffer, the output size and how many samples a pixel has per side.
    public struct Target {
        public let framebuffer: Framebuffer
        public let width: Int
        public let height: Int
        public let samples: Int
    }

    /// The supersampling factor actually used for an output of `width` x `height` when `requested` is asked.
    public func samples(_ requested: Int, width: Int, height: Int) -> Int {
        var factor = max(1, min(requested, 4))
        let limit = device.maxRenderbufferSize
        while factor > 1 && (width * factor > limit || height * factor > limit
                             || width * height * factor * factor > OffscreenPass.maximumDrawnPixels) {
            factor -= 1
        }
        return factor
    }

    /// Clears to `background`, lets `draw` draw, waits for the GPU and reads the picture back.
    /// `finishing` is kept only where one sample a pixel was drawn.
    public func run(width: Int, height: Int, samples requested: Int, background: Color, finishing: Finishing,
                    effects: DepthEffects = DepthEffects(), projection: DepthEffects.Projection? = nil,
                    draw: (Target) throws -> Void) throws -> DrawnPicture {
        guard width > 0, height > 0, width <= OffscreenPass.maximumSide, height <= OffscreenPass.maximumSide else {
            throw RequestError(field: "size", "\(width)x\(height) is outside 1 to \(OffscreenPass.maximumSide) pixels per side")
        }
        let started = DispatchTime.now().uptimeNanoseconds
        let factor = samples(requested, width: width, height: height)
        let fw = width * factor, fh = height * factor
        if framebuffer?.width != fw || framebuffer?.height != fh {
            framebuffer = nil
            framebuffer = try Framebuffer(device: device, width: fw, height: fh, depth: depth)
        }
        let target = Target(framebuffer: framebuffer!, width: width, height: height, samples: factor)
        trace("pass: framebuffer cleared")
        device.clear(target.framebuffer, red: background.red, green: background.green, blue: background.blue, alpha: background.alpha)
        try draw(target)
        try device.checkError("drawing")
        trace("pass: draw calls made")
        device.finish()
        trace("pass: drawn")
        let finished = DispatchTime.now().uptimeNanoseconds
        let picture: DrawnPicture
        let smooth = finishing == .smoothEdges && factor == 1
        if !effects.isEmpty, depth, let projection {
            picture = DrawnPicture(samples: device.readSamples(target.framebuffer), depth: device.readDepth(target.framebuffer),
                                   width: fw, height: fh, factor: factor, effects: effects, projection: projection, smoothEdges: smooth)
        } else {
            picture = DrawnPicture(image: device.read(target.framebuffer, downsample: factor), smoothEdges: smooth)
        }
        trace("pass: read back")
        lastTimings = (Double(finished - started) / 1e9, Double(DispatchTime.now().uptimeNanoseconds - finished) / 1e9)
        return picture
    }
}
