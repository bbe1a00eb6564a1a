import Core
import Dispatch

/// What is left to do on the CPU after a picture is read back.
public enum Finishing: Sendable, Equatable {
    case none
    /// Edge smoothing (`EdgeSmoothing`), where the pass drew one sample a pixel.
    case smoothEdges
}

/// A picture as read back from the GPU, with what is left to do on the CPU.
public struct DrawnPicture: Sendable {
    public var image: RGBAImage
    /// Antialiasing by edge smoothing is still to come.
    public var smoothEdges: Bool

    public init(image: RGBAImage, smoothEdges: Bool) {
        self.image = image
        self.smoothEdges = smoothEdges
    }

    /// The finished picture. Separate from drawing so that a pipeline can do it on another thread.
    public func finished() -> RGBAImage { smoothEdges ? EdgeSmoothing.smoothed(image) : image }
}

/// One offscreen picture, the part every drawer shares: the size limits, the supersampling
/// actually used, a framebuffer kept between pictures of the same size, the clear, the readback
/// (averaging supersamples) and the finishing step handed back to the caller. Molecules and
/// pathways are two drawers over it.
public final class OffscreenPass {
    /// Largest output side a pass accepts.
    public static let maximumSide = 8192
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
        device.clear(target.framebuffer, red: background.red, green: background.green, blue: background.blue, alpha: background.alpha)
        try draw(target)
        try device.checkError("drawing")
        device.finish()
        let finished = DispatchTime.now().uptimeNanoseconds
        let image: RGBAImage
        if !effects.isEmpty, depth, var projection {
            // Outlines and occlusion on the drawn samples, before they are averaged.
            let depths = device.readDepth(target.framebuffer)
            projection.unitsPerPixel /= Float(factor)
            image = device.read(target.framebuffer, downsample: factor) { pixels in
                depths.withUnsafeBufferPointer {
                    effects.apply(to: pixels, depth: $0, width: fw, height: fh, samples: factor, projection: projection)
                }
            }
        } else {
            image = device.read(target.framebuffer, downsample: factor)
        }
        lastTimings = (Double(finished - started) / 1e9, Double(DispatchTime.now().uptimeNanoseconds - finished) / 1e9)
        return DrawnPicture(image: image, smoothEdges: finishing == .smoothEdges && factor == 1)
    }
}
