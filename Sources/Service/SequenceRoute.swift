import Hummingbird
import Library

extension MolshotService {
    /// `GET /v1/molecules/{id}/sequence`: each polymer chain's sequence with its secondary
    /// structure (`ChainSequence`), read from the library's copy on the file-reading gate.
    func moleculeSequence(_ request: Request, _ reference: String) async throws -> Response {
        let r = try await record(reference, viewer: viewer(request))
        let chains = try await reading { ChainSequence.of(try $0.load(String(r.id)).structure) }
        struct Answer: Encodable { var chains: [ChainSequence] }
        return try Self.json(Answer(chains: chains))
    }
}
