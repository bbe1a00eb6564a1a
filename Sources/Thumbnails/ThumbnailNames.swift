import Core
import MoleculeView

extension RenderRequest {
    /// The thumbnails' defaults: 256 x 256, ball-and-stick and spacefill in element colors (the
    /// sample browser's two cards, whose names stay as they were before `auto` was the default).
    public static var thumbnails: RenderRequest {
        var r = RenderRequest()
        (r.width, r.height) = (256, 256)
        r.modes = Representations.thumbnailModes
        r.color = .theme(.element)
        return r
    }

    /// The PNG file name for a source of content checksum `checksum` in `mode`:
    /// CHECKSUM-SETTINGS-MODE.png, so a changed file or changed settings never overwrite.
    public func thumbnailName(checksum: UInt64, mode: DrawMode) -> String {
        "\(FNV1a.hex(checksum, digits: 16))-\(settingsKey)-\(mode).png"
    }
}
