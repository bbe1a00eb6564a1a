import Core
import Gestures
import MoleculeView
import PathwayModel
import Pathways
import Structure

/// One bound on what a request may make the service do: its name, its value and unit, the
/// status a request past it gets, and what it bounds. `ServiceLimits.all` is the table docs/serve.md's
/// "Limits" section prints (a test reads both), as nginx's directives each have a name, a default
/// and a line in its documentation.
public struct ServiceLimit: Sendable, Equatable {
    /// The name docs/serve.md's table and the error messages use.
    public let name: String
    public let value: Int
    public let unit: String
    /// The HTTP status a request past the limit gets.
    public let status: Int
    /// What it bounds, and where it can be set (a `serve` option), if anywhere.
    public let bounds: String
}

/// Every limit of the service that is not a setting of `serve` (those are `ServiceConfiguration`'s,
/// listed after them in `all` with their defaults). Each is checked before the work it bounds starts.
public enum ServiceLimits {
    public static let selectionLength = ServiceLimit(name: "selection length", value: Selection.Limits.length, unit: "characters", status: 400,
                                                     bounds: "one selection in show=")
    public static let selectionWords = ServiceLimit(name: "selection words", value: Selection.Limits.words, unit: "words", status: 400,
                                                    bounds: "words, parentheses and operators in one selection")
    public static let selectionDepth = ServiceLimit(name: "selection depth", value: Selection.Limits.depth, unit: "levels", status: 400,
                                                    bounds: "parentheses, not, byres and within inside one another")
    public static let shows = ServiceLimit(name: "shows", value: Show.maxCount, unit: "show= parameters", status: 400,
                                           bounds: "representations in one picture")
    public static let pictureSamples = ServiceLimit(name: "picture samples", value: 1 << 26, unit: "samples", status: 413,
                                                    bounds: "width x height x antialias^2 x (1 + occlusion + outline effects) of one picture; an outline counts (outline x antialias)^2 / 32")
    public static let pictureMemory = ServiceLimit(name: "picture memory", value: 1 << 30, unit: "bytes", status: 503,
                                                   bounds: "pictures' memory in flight at once, each estimated from its samples before it starts "
                                                   + "(413 for one that alone is more)")
    public static let replayFrames = ServiceLimit(name: "replay frames", value: 600, unit: "frames", status: 413,
                                                  bounds: "frames one POST /v1/replay makes, counted before they are listed")
    public static let replayFPS = ServiceLimit(name: "replay fps", value: 60, unit: "frames a second", status: 400,
                                               bounds: "the frame rate one POST /v1/replay may ask for (the command line takes up to 240)")
    public static let replayBytes = ServiceLimit(name: "replay bytes", value: 256 << 20, unit: "bytes", status: 413,
                                                 bounds: "the PNG frames one replay keeps for its animation")
    public static let replayLines = ServiceLimit(name: "replay lines", value: 200_000, unit: "lines", status: 413,
                                                 bounds: "lines of one POST /v1/replay's event file, counted before any is read (each line at most the event message bytes)")
    public static let moviePixels = ServiceLimit(name: "movie pixels", value: 1 << 22, unit: "pixels", status: 413,
                                                 bounds: "width x height of a replay's movie frames (mp4, webm, gif), checked before the first frame: the encoder's memory grows with them")
    public static let sessionLinesWaiting = ServiceLimit(name: "session lines waiting", value: 4096, unit: "lines", status: 0,
                                                         bounds: "a live session's event lines taken and not yet applied, in the server and in its render process (more are dropped, and the client told once a burst)")
    public static let sessionBytesWaiting = ServiceLimit(name: "session bytes waiting", value: 1 << 20, unit: "bytes", status: 0,
                                                         bounds: "the bytes of those lines")
    public static let jsonDepth = ServiceLimit(name: "JSON depth", value: JSONText.maximumDepth, unit: "levels", status: 400,
                                               bounds: "arrays and objects inside one another in a JSON body or event line")
    public static let xmlDepth = ServiceLimit(name: "XML depth", value: XMLLimits.depth, unit: "levels", status: 400,
                                              bounds: "elements inside one another in a pathway map")
    public static let xmlAttributes = ServiceLimit(name: "XML attributes", value: XMLPreflight.maxAttributes, unit: "attributes", status: 400,
                                                  bounds: "attributes of one element in a pathway map or EMDB header, counted before it is parsed")
    public static let entities = ServiceLimit(name: "entities", value: 100, unit: "entities", status: 413,
                                              bounds: "entities one POST /v1/entities asks for")
    public static let entityAnswerBytes = ServiceLimit(name: "entity answer bytes", value: 64 << 20, unit: "bytes", status: 413,
                                                       bounds: "the answer of one POST /v1/entities, images included")
    public static let sessionBacklogMessages = ServiceLimit(name: "session backlog messages", value: 1024, unit: "messages", status: 0,
                                                            bounds: "errors and taps waiting for a live session's client (more are dropped)")
    public static let sessionBacklogBytes = ServiceLimit(name: "session backlog bytes", value: 1 << 20, unit: "bytes", status: 0,
                                                         bounds: "the bytes of those messages (each error cut to 1 KiB)")
    public static let eventLineBytes = ServiceLimit(name: "event message bytes", value: 1 << 20, unit: "bytes", status: 0,
                                                    bounds: "one WebSocket message of a live session (the session is closed past it)")
    public static let requestLineBytes = ServiceLimit(name: "request line bytes", value: 16 << 10, unit: "bytes", status: 414,
                                                      bounds: "a request's first line, its path and query (answered at once)")
    public static let headBytes = ServiceLimit(name: "head bytes", value: 64 << 10, unit: "bytes", status: 431,
                                               bounds: "a request's head, its first line and header fields (answered at once)")
    public static let fileReads = ServiceLimit(name: "file reads", value: 4, unit: "reads", status: 503,
                                               bounds: "structure files read and prepared for requests at once (as many more as the render queue wait)")
    public static let libraryReaders = ServiceLimit(name: "library readers", value: 4, unit: "connections", status: 0,
                                                    bounds: "read connections to the library open at once (callers past them wait their turn)")
    public static let keptMaps = ServiceLimit(name: "kept maps", value: 16, unit: "maps", status: 0,
                                              bounds: "pathway maps kept parsed and laid out (the least recently asked for goes first)")
    public static let searchLength = ServiceLimit(name: "search length", value: 1000, unit: "characters", status: 400,
                                             bounds: "the query= text of a molecule or map-node search")
    public static let nodeResults = ServiceLimit(name: "node results", value: 200, unit: "nodes", status: 0,
                                             bounds: "nodes one map-node search answers (limit= past it is cut to it)")
    public static let keptThumbnailBytes = ServiceLimit(name: "kept thumbnail bytes", value: 64 << 20, unit: "bytes", status: 0,
                                             bounds: "thumbnails kept in memory to serve (the least recently read go first)")
    public static let keptRecordingBytes = ServiceLimit(name: "kept recording bytes", value: 64 << 20, unit: "bytes", status: 0,
                                             bounds: "live sessions' recordings kept after they close, at most an hour each")
    public static let keptScenes = ServiceLimit(name: "kept scenes", value: 4, unit: "scenes", status: 0,
                                             bounds: "map scenes kept on the render thread for tiles (the oldest go first)")
    public static let connectionsPerClient = ServiceLimit(name: "connections per client", value: 128, unit: "connections", status: 503,
                                                          bounds: "connections open at once from one address (more are answered 503 and closed)")
    public static let clientHalfLife = ServiceLimit(name: "client half-life", value: 10, unit: "seconds", status: 429,
                                                    bounds: "a client's render seconds count half after this; while other clients are active, "
                                                    + "one with its share of the render queue at once (the queue over the active clients) gets 429")

    /// The table, in docs/serve.md's order: these limits, then `serve`'s settings with their defaults.
    public static var all: [ServiceLimit] {
        [selectionLength, selectionWords, selectionDepth, shows, pictureSamples, pictureMemory, replayFrames, replayFPS, replayBytes, replayLines, moviePixels, jsonDepth, xmlDepth, xmlAttributes,
                entities, entityAnswerBytes, sessionBacklogMessages, sessionBacklogBytes, eventLineBytes, sessionLinesWaiting, sessionBytesWaiting, requestLineBytes, headBytes,
                fileReads, libraryReaders, keptMaps, searchLength, nodeResults, keptThumbnailBytes, keptRecordingBytes, keptScenes,
                connectionsPerClient, clientHalfLife] + ServiceSettings.limits
    }
}
