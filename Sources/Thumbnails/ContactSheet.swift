import Foundation
import Graphics
import Imaging
import MoleculeView
import Text

/// Pages of thumbnails in a grid, each with its structure's name under it, as the sample
/// browser showed them (nine a page).
public enum ContactSheet {
    public struct Layout: Sendable, Equatable {
        public var columns: Int
        public var rows: Int
        public init(columns: Int, rows: Int) {
            self.columns = columns
            self.rows = rows
        }

        /// "COLSxROWS", each 1...100.
        public init?(_ text: String) {
            let v = text.lowercased().split(separator: "x").map { Int($0) }
            guard v.count == 2, let c = v[0], let r = v[1], (1...100).contains(c), (1...100).contains(r) else { return nil }
            self.init(columns: c, rows: r)
        }
    }

    /// The name shown under a thumbnail: the file name, extensions and all, so that
    /// `1A8O.cif`, `1A8O.cif.gz` and `1A8O.pdb` are told apart.
    public static func label(_ source: String) -> String {
        URL(fileURLWithPath: source).lastPathComponent
    }

    /// Writes `contact-KEY-MODE-NNN.png` pages into `directory` for `items` (label, thumbnail file
    /// name) in order; returns the page file names.
    public static func write(_ items: [(label: String, file: String)], mode: DrawMode, request: RenderRequest,
                             layout: Layout, directory: String) throws -> [String] {
        guard !items.isEmpty else { return [] }
        let w = request.width, h = request.height
        let labelHeight = max(16, h / 9)
        let font = try Font.standard(pixelSize: Int(Double(labelHeight) * 0.62))
        let perPage = layout.columns * layout.rows
        var pages: [String] = []
        for (pageIndex, start) in stride(from: 0, to: items.count, by: perPage).enumerated() {
            let pageItems = items[start..<min(start + perPage, items.count)]
            let rows = (pageItems.count + layout.columns - 1) / layout.columns
            var page = RGBAImage(width: w * layout.columns, height: (h + labelHeight) * rows, fill: (255, 255, 255, 255))
            for (k, item) in pageItems.enumerated() {
                let x0 = (k % layout.columns) * w, y0 = (k / layout.columns) * (h + labelHeight)
                if let thumb = try? PNGDecoder.read((directory as NSString).appendingPathComponent(item.file)),
                   thumb.width == w, thumb.height == h {
                    blit(thumb, onto: &page, x: x0, y: y0)
                }
                let text = font.fitted(item.label, maxWidth: w - 6)
                let baseline = y0 + h + (labelHeight + font.ascent - font.descent) / 2
                font.draw(text, into: &page, x: x0 + (w - font.width(of: text)) / 2, baseline: baseline, color: 0x202020)
            }
            let name = "contact-\(request.settingsKey)-\(mode)-\(String(format: "%03d", pageIndex + 1)).png"
            try PNGEncoder(level: 6, filter: .adaptive).write(page, to: (directory as NSString).appendingPathComponent(name))
            pages.append(name)
        }
        return pages
    }

    /// Copies `image` onto `page` at (x, y), blending by the thumbnail's alpha over the page.
    static func blit(_ image: RGBAImage, onto page: inout RGBAImage, x: Int, y: Int) {
        for row in 0..<image.height {
            let py = y + row
            guard py < page.height else { break }
            for col in 0..<image.width {
                let px = x + col
                guard px < page.width else { break }
                let s = (row * image.width + col) * 4, d = (py * page.width + px) * 4
                let a = UInt32(image.pixels[s + 3])
                for c in 0..<3 {
                    page.pixels[d + c] = UInt8((UInt32(image.pixels[s + c]) * a + UInt32(page.pixels[d + c]) * (255 - a) + 127) / 255)
                }
                page.pixels[d + 3] = 255
            }
        }
    }
}
