import Core
import MoleculeView

extension RenderRequest {
    /// The thumbnails' defaults: 256 x 256, the automatic representation in automatic colours
    /// (cartoons by chain, small molecules by element), as `render` draws by default.
    public static var thumbnails: RenderRequest {
        var r = RenderRequest()
        (r.width, r.height) = (256, 256)
        r.modes = Representations.thumbnailModes
        return r
    }

    /// The PNG file name for a source of content checksum `checksum` in `mode`:
    /// CHECKSUM-SETTINGS-MODE.png, so a changed file or changed settings never overwrite.
    public func thumbnailName(checksum: UInt64, mode: DrawMode) -> String {
        "\(FNV1a.hex(checksum, digits: 16))-\(settingsKey)-\(mode).png"
    }
}
