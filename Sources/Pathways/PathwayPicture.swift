import PathwayModel
import Core
import Imaging

/// A picture of a map, in the steps every front end (the `pathway` command, the service's images,
/// the entity protocol, replays and live views) runs where they suit it: `init` works out the view
/// and builds the triangles and labels, off the render thread; `draw` on it; `png` anywhere.
public struct PathwayPicture: Sendable {
    public let view: MapView
    public let width: Int
    public let height: Int
    public let theme: PathwayTheme
    /// Supersamples a pixel.
    public let samples: Int
    let parts: PathwaySceneParts

    /// The picture `request` asks for of `map`.
    public init(_ map: PathwayMap, request: PathwayRequest) throws {
        let frame = try request.frame(for: map)
        try self.init(map, view: frame.view, width: frame.width, height: frame.height, theme: request.theme, samples: request.samples)
    }

    /// `map` seen through `view` at `width` x `height` pixels, with `focus` (a node's id) and
    /// what it touches highlighted.
    public init(_ map: PathwayMap, view: MapView, width: Int, height: Int, theme: PathwayTheme, focus: String? = nil, samples: Int = 1) throws {
        self.view = view
        self.width = width
        self.height = height
        self.theme = theme
        self.samples = samples
        parts = try PathwayRenderer.parts(map, scale: view.scale, theme: theme, focus: focus)
    }

    /// Uploads and draws it; on the renderer's thread.
    public func draw(_ renderer: PathwayRenderer) throws -> RGBAImage {
        renderer.samples = samples
        return try renderer.draw(renderer.scene(parts), corner: view.origin * view.scale, width: width, height: height, theme: theme)
    }

    /// As a PNG, with the filters that suit flat colour.
    public func png(_ image: RGBAImage) throws -> [UInt8] { try PNGEncoder.flat.encode(image) }
}
