import Core
import Foundation
import Hummingbird
import Library
import Thumbnails

extension MolshotService {
    /// `GET /v1/molecules/{id}/images?size=N`: the entry's image set as `molshot images` makes it
    /// (`EntryImages`): each image's caption with a link to the image route drawing it (cached
    /// there, with its ETag), at `size` (512 by default, at most `--max-side`).
    func moleculeImages(_ request: Request, _ reference: String) async throws -> Response {
        let r = try await record(reference, viewer: viewer(request))
        let asked = Self.parameter(request, "size") ?? "512"
        let side: (width: Int, height: Int)
        do { side = try ValueText.size(asked, field: "size", maximumSide: configuration.maxSide) } catch { throw Self.badRequest(error) }
        let structure = try await reading { try $0.load(String(r.id)).structure }
        let id = EntryImages.entryID(structure, source: r.name)
        let planned = EntryImages.plannedWithSettings(structure, id: id, options: EntryImages.Options())
        func escaped(_ text: String) -> String {
            text.addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")) ?? text
        }
        struct Item: Encodable {
            var name: String
            var kind: String
            var text: String
            var assembly: String
            var entity: String?
            var entityName: String?
            var ligand: String?
            var ligandName: String?
            var legend: [EntryImages.LegendItem]
            var image: String
        }
        let items = planned.map { caption, settings -> Item in
            let query = (settings + [("size", "\(side.width)x\(side.height)")]).map { "\($0.0)=\(escaped($0.1))" }.joined(separator: "&")
            return Item(name: "\(id)_\(caption.name)_front", kind: caption.kind, text: caption.text + ".", assembly: caption.assembly,
                        entity: caption.entity, entityName: caption.entityName, ligand: caption.ligand, ligandName: caption.ligandName,
                        legend: caption.legend, image: "/v1/molecules/\(r.id)/image?\(query)")
        }
        struct Answer: Encodable { var entry: String; var images: [Item] }
        return try Self.json(Answer(entry: id, images: items))
    }
}
