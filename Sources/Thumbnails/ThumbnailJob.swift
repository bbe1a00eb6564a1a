import Core
import Foundation
import MoleculeView
import Structure

/// What a thumbnail run is asked to do.
public struct ThumbnailJob: Sendable {
    public var inputs: [String]
    public var outputDirectory: String
    /// The pictures: size, modes, look and view.
    public var request = RenderRequest.thumbnails

    /// How thumbnails of `request` read their files: as it says, but the first model only (a
    /// thumbnail shows no other).
    public static func structureOptions(_ request: RenderRequest) -> StructureFile.Options {
        var o = request.structureOptions
        o.firstModelOnly = true
        return o
    }
    /// Threads reading and parsing, and threads encoding PNG; drawing has one thread of its own.
    public var jobs = Cores.active
    public var shard = Shard.whole
    /// Within the shard, every `part.count`-th input from the `part.index`-th: how one run splits
    /// its work over several processes (llvmpipe draws faster in two processes than in one).
    public var part = Shard.whole
    /// True in a part process: it writes its own part index for the main process to merge.
    public var isPartProcess = false
    /// Render even what is up to date.
    public var force = false
    /// Loads `lib:` and `pdb:` inputs (the library's structures, with the checksum of the file each
    /// was imported from); nil where the run has no library.
    public var entries: (@Sendable (String) throws -> (checksum: UInt64, structure: Structure))?
    /// Pages of labelled thumbnails, per mode, when set.
    public var contactSheet: ContactSheet.Layout?

    static func isEntry(_ source: String) -> Bool { source.hasPrefix("lib:") || source.hasPrefix("pdb:") }

    public init(inputs: [String], outputDirectory: String) {
        self.inputs = inputs
        self.outputDirectory = outputDirectory
    }
}
