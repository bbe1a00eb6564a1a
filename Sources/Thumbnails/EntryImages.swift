import Core
import Density
import Foundation
import Graphics
import Imaging
import MoleculeView
import Scene
import Structure

/// The images an archive publishes for an entry, as PDBe's pdb-images makes them: the deposited
/// model and each biological assembly coloured by chain and by entity, each entity highlighted in
/// its preferred assembly, each distinct ligand in ball-and-stick with the residues within 5 Å
/// as lines and nothing else (turned to and fitted, `focus`), the modified residues highlighted, B-factors and AlphaFold confidence where
/// the file has them; each in the views asked for, at several sizes drawn once, with a caption.
/// With a folder of EMDB maps, an EM entry's map too (EMDB's entry pictures): with its model by
/// chain, and alone by radius, at the recommended contour.
public enum EntryImages {
    public enum Kind: String, Sendable, CaseIterable {
        case entry, assembly, entity, ligand, modres, bfactor, plddt, map
        /// A binding-site figure of `Options.site` (`RenderRequest.site`), where it selects atoms.
        case site
    }

    /// Front: the oriented view (principal axes, fitted); side and top turned 90 degrees about the
    /// screen's vertical and horizontal axes, as pdb-images' three views.
    public enum View: String, Sendable, CaseIterable {
        case front, side, top
        var rotation: SIMD3<Float> {
            switch self {
            case .front: return .zero
            case .side: return SIMD3(0, 90, 0)
            case .top: return SIMD3(-90, 0, 0)
            }
        }
    }

    public struct Options: Sendable {
        /// Kinds to make (those that do not apply to an entry are left out).
        public var kinds = Set(Kind.allCases)
        public var views: [View] = [.front]
        /// Sizes, the largest drawn and the others shrunk from it (area filter) unless `renderEachSize`.
        public var sizes: [(width: Int, height: Int)] = [(800, 800)]
        public var renderEachSize = false
        /// Axis arrows in a corner where several views are drawn (`--no-axes`: none).
        public var axes = true
        /// Picture options every image starts from (look, antialias, background, ...).
        public var base = RenderRequest()
        /// Most atoms an assembly may be built to.
        public var maxAtoms = RenderRequest.defaultMaxAtoms
        /// A folder of EMDB maps (emd_NNNN.map.gz, or EMDB's EMD-NNNN/map/ layout): an entry whose
        /// file names an EMDB map found here gets map images.
        public var maps: String?
        /// A selection drawn as a binding-site figure in each entry that has it (`site` images).
        public var site: String?
        public init() {
            base.background = .transparent
        }
    }

    /// One colour of a caption's key.
    public struct LegendItem: Codable, Sendable, Equatable {
        public var color: String
        public var label: String
    }

    /// One file of an image: its size and name.
    public struct SizedFile: Codable, Sendable, Equatable {
        public var width: Int
        public var height: Int
        public var file: String
    }

    /// What one image shows, in words (`text`) and as fields: written beside it as NAME.caption.json.
    public struct Caption: Codable, Sendable, Equatable {
        public var entry: String
        public var kind: String
        public var view: String
        /// The file name's stem, without its size: `1hpv_entity_1_front`.
        public var name: String
        /// `model` (the deposited coordinates) or an assembly id.
        public var assembly: String
        public var entity: String?
        public var entityName: String?
        public var ligand: String?
        public var ligandName: String?
        /// The ligand instance shown: chain and residue number.
        public var ligandInstance: String?
        /// The EMDB map drawn (EMD-NNNN), its contour level and where the level came from.
        public var map: String?
        public var mapLevel: Double?
        public var mapLevelSource: String?
        public var chains: [String]
        public var coloring: String
        public var legend: [LegendItem]
        public var text: String
        public var files: [SizedFile]
        /// A site figure's camera, parts, interactions and labels (`FigureCaption`).
        public var figure: FigureCaption?
    }

    /// The set of one entry: every image's caption (with its files), as ID.json holds it.
    public struct Summary: Codable, Sendable {
        public var entry: String
        public var title: String
        public var source: String
        public var images: [Caption]
    }

    /// An image to draw: how it is chosen and coloured, and its caption's fields.
    struct Spec {
        /// The request's settings by name (over the options' base).
        var settings: [(String, String)] = []
        var kind: Kind
        var stem: String
        var assembly: AssemblyChoice
        var request: RenderRequest
        var caption: Caption
        /// The legend is read off the drawn colours by this rule.
        var legend: LegendRule
        var views: [View]
        /// A density map drawn too: its file; `mapOnly`, without the model.
        var map: String? = nil
        var mapOnly = false
    }

    enum LegendRule {
        case chains, entities, fixed([LegendItem]), none
        /// The one entity a picture highlights.
        case entity(String)
    }

    /// The entry's id for file names: the file's entry id, lower case, else the file's name.
    public static func entryID(_ structure: Structure, source: String) -> String {
        let id = structure.metadata.id.trimmingCharacters(in: .whitespaces)
        if !id.isEmpty { return safe(id.lowercased()) }
        var stem = (source as NSString).lastPathComponent
        for ext in [".gz", ".cif", ".bcif", ".pdb", ".ent", ".mmcif", ".sdf", ".mol2", ".xyz"] where stem.lowercased().hasSuffix(ext) {
            stem = String(stem.dropLast(ext.count))
        }
        return safe(stem.lowercased())
    }

    /// Letters, digits, `-` and `_` only (a name from a file is a file name part).
    static func safe(_ text: String) -> String {
        String(text.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" }.prefix(64))
    }

    /// The images `options` ask for that apply to `structure` (as read: the deposited model and
    /// the assemblies it declares).
    static func plan(_ structure: Structure, id: String, options: Options) -> [Spec] {
        guard let model = structure.models.first else { return [] }
        var specs: [Spec] = []
        let upper = id.uppercased()
        // Each image is a request's settings by name, over the options' base: the same names the
        // service's image route takes, so a listing can link each image to it.
        var settings: [(String, String)] = []
        func request(_ given: [(String, String)]) -> RenderRequest? {
            settings = given
            guard var r = try? RenderRequest(given, defaults: options.base) else { return nil }
            r.maxAtoms = options.maxAtoms
            return r
        }
        func caption(_ kind: Kind, _ stem: String, assembly: String, coloring: String, text: String) -> Caption {
            Caption(entry: id, kind: kind.rawValue, view: "front", name: stem, assembly: assembly, chains: [], coloring: coloring,
                    legend: [], text: text, files: [])
        }
        let buildable = structure.assemblies.filter { $0.problem == nil }
        if options.kinds.contains(.entry) {
            for coloring in ["chain", "entity"] {
                guard let r = request([("assembly", "model"), ("color", coloring)]) else { continue }
                specs.append(Spec(settings: settings, kind: .entry, stem: "deposited_\(coloring)", assembly: .model, request: r,
                                  caption: caption(.entry, "deposited_\(coloring)", assembly: "model", coloring: coloring,
                                                   text: "The deposited model of \(upper), coloured by \(coloring)"),
                                  legend: coloring == "chain" ? .chains : .entities, views: options.views))
            }
        }
        if options.kinds.contains(.assembly) {
            for a in buildable {
                for coloring in ["chain", "entity"] {
                    let stem = "assembly_\(safe(a.id))_\(coloring)"
                    // Each chain of each copy apart, as pdb-images colours an assembly by chain.
                    guard let r = request([("assembly", a.id), ("color", coloring == "chain" ? "copy" : coloring)]) else { continue }
                    let details = a.details.isEmpty ? "" : " (\(a.details))"
                    specs.append(Spec(settings: settings, kind: .assembly, stem: stem, assembly: .id(a.id), request: r,
                                      caption: caption(.assembly, stem, assembly: a.id, coloring: coloring,
                                                       text: "Assembly \(a.id)\(details) of \(upper), coloured by \(coloring)"),
                                      legend: coloring == "chain" ? .chains : .entities, views: options.views))
                }
            }
        }
        if options.kinds.contains(.entity) {
            for e in structure.entities where e.type.lowercased() != "water" {
                // The first assembly that holds one of its chains, else the deposited model.
                let holder = buildable.first { a in
                    a.generators.contains { g in g.chains.contains { c in a.byAuthorChain ? model.chains.contains { $0.id == c && $0.entity == e.id } : e.chains.contains(c) } }
                }
                let choice: AssemblyChoice = holder.map { .id($0.id) } ?? .model
                let stem = "entity_\(safe(e.id))"
                // Waters never; an ion (single-atom entity) as spheres of its size over cartoons, so
                // that it is seen and not buried in the rest's spacefill.
                let ion = model.chains.contains { $0.entity == e.id } && model.chains.filter { $0.entity == e.id }.allSatisfy { chain in
                    chain.residues.allSatisfy { model.residues[Int($0)].atoms.count == 1 }
                }
                let rest = ion ? "cartoon" : "auto"
                guard let r = request([("assembly", holder?.id ?? "model"), ("show", "\(rest) \(RenderRequest.paleGrey): not entity \(e.id) and not water"),
                                       ("show", "\(ion ? "spacefill" : "auto") entity: entity \(e.id)")]) else { continue }
                var c = caption(.entity, stem, assembly: holder?.id ?? "model", coloring: "entity",
                                text: "Entity \(e.id)\(e.description.isEmpty ? "" : " (\(e.description))") of \(upper) in "
                                    + (holder.map { "assembly \($0.id)" } ?? "the deposited model") + ", the rest pale")
                c.entity = e.id
                c.entityName = e.description.isEmpty ? nil : e.description
                specs.append(Spec(settings: settings, kind: .entity, stem: stem, assembly: choice, request: r, caption: c, legend: .entity(e.id), views: options.views))
            }
        }
        if options.kinds.contains(.ligand) {
            // Each distinct ligand once: its first instance, in the deposited model.
            var seen = Set<String>()
            for residue in model.residues where residue.isLigand {
                let name = residue.name.description
                guard seen.insert(name).inserted else { continue }
                let chain = model.chains[Int(residue.chain)]
                let instance: String
                if !chain.labelID.isEmpty && structure.format == .mmcif {
                    instance = "label_asym \(chain.labelID) and resn \(name)"
                } else if chain.id.isEmpty {
                    instance = "resi \(residue.number) and resn \(name)"
                } else {
                    instance = "chain \(chain.id) and resi \(residue.number) and resn \(name)"
                }
                let stem = "ligand_\(safe(name))"
                // The ligand and its surroundings only, as pdb-images draws a binding site.
                guard let r = request([("assembly", "model"),
                                       ("show", "lines element: byres (within 5 of (\(instance))) and not (\(instance)) and not water"),
                                       ("show", "ball-and-stick element: \(instance)"), ("focus", instance),
                                       ("interactions", instance)]) else { continue }
                let chemical = structure.componentNames[name]
                var c = caption(.ligand, stem, assembly: "model", coloring: "element",
                                text: "Ligand \(name)\(chemical.map { " (\($0.lowercased()))" } ?? "") of \(upper), "
                                    + (chain.id.isEmpty ? "" : "chain \(chain.id) ") + "residue \(residue.number), with the residues within 5 Å and its interactions with them")
                c.ligand = name
                c.ligandName = chemical
                c.ligandInstance = chain.id.isEmpty ? "\(residue.number)" : "\(chain.id) \(residue.number)"
                c.chains = [chain.id]
                specs.append(Spec(settings: settings, kind: .ligand, stem: stem, assembly: .model, request: r, caption: c,
                                  legend: .fixed([LegendItem(color: "#909090", label: "carbon (elements by their CPK colours)")]), views: [.front]))
            }
        }
        if options.kinds.contains(.site), let site = options.site, let selection = try? Selection(parsing: site),
           selection.mask(in: model).contains(true), let r = request([("assembly", "model"), ("site", site)]) {
            // The caption's words are the figure's own sentence, made when it is drawn.
            specs.append(Spec(settings: settings, kind: .site, stem: "site", assembly: .model, request: r,
                              caption: caption(.site, "site", assembly: "model", coloring: "muted", text: "The binding site of \(site) in \(upper)"),
                              legend: .none, views: [.front]))
        }
        if options.kinds.contains(.modres), model.residues.contains(where: \.isModified) {
            var names: [String] = []
            for r in model.residues where r.isModified && !names.contains(r.name.description) { names.append(r.name.description) }
            if let r = request([("assembly", "model"), ("show", "auto \(RenderRequest.paleGrey): not modres"), ("show", "ball-and-stick #FF00FF: modres")]) {
                specs.append(Spec(settings: settings, kind: .modres, stem: "modres", assembly: .model, request: r,
                                  caption: caption(.modres, "modres", assembly: "model", coloring: "fixed",
                                                   text: "Modified residues of \(upper) (\(names.joined(separator: ", "))) in magenta, the rest pale"),
                                  legend: .fixed([LegendItem(color: "#FF00FF", label: "modified residues: " + names.joined(separator: ", "))]),
                                  views: options.views))
            }
        }
        // The putty's scale: the trace's B-factors, as its colours are made.
        let (lo, hi) = ColorTheme.bfactorRange(of: model, traced: true)
        if options.kinds.contains(.bfactor), !structure.metadata.predicted, hi - lo > 0.01 {
            if let r = request([("assembly", "model"), ("mode", "putty"), ("color", "bfactor")]) {
                specs.append(Spec(settings: settings, kind: .bfactor, stem: "bfactor", assembly: .model, request: r,
                                  caption: caption(.bfactor, "bfactor", assembly: "model", coloring: "bfactor",
                                                   text: "B-factor putty of \(upper) (tube radius and colour by B-factor): blue \(String(format: "%.1f", lo)) through white to red \(String(format: "%.1f", hi)) Å² (the range of its CA and P atoms)"),
                                  legend: .fixed([LegendItem(color: "#0000FF", label: String(format: "B %.1f Å² (lowest)", lo)),
                                                  LegendItem(color: "#FFFFFF", label: String(format: "B %.1f Å²", (lo + hi) / 2)),
                                                  LegendItem(color: "#FF0000", label: String(format: "B %.1f Å² (highest)", hi))]),
                                  views: options.views))
            }
        }
        if options.kinds.contains(.map), let folder = options.maps,
           let (emd, file) = structure.metadata.relatedMaps.lazy.compactMap({ id in mapFile(for: id, in: folder).map { (id, $0) } }).first {
            // The surface is far from the atoms in a low-resolution map: zone colours reach as far as the resolution (5 to 20 Å).
            let reach = max(5, min(20, Double(structure.metadata.resolution ?? 5)))
            let stem = "map_\(safe(emd.lowercased()))"
            if let r = request([("assembly", "model"), ("mode", "cartoon"), ("color", "chain"), ("map-style", "transparent"),
                                ("map-color", reach == 5 ? "zone" : "zone:\(reach)")]) {
                var c = caption(.map, stem + "_model", assembly: "model", coloring: "chain",
                                text: "\(emd) with the model \(upper) fitted to it, the map see-through and each part in the colour of its nearest chain")
                c.map = emd
                specs.append(Spec(settings: settings, kind: .map, stem: stem + "_model", assembly: .model, request: r, caption: c,
                                  legend: .chains, views: options.views, map: file))
            }
            if let r = request([("assembly", "model"), ("map-color", "radial")]) {
                var c = caption(.map, stem + "_radial", assembly: "model", coloring: "radial",
                                text: "\(emd), the map of \(upper), coloured by distance from its centre (red to blue)")
                c.map = emd
                specs.append(Spec(settings: settings, kind: .map, stem: stem + "_radial", assembly: .model, request: r, caption: c,
                                  legend: .none, views: options.views, map: file, mapOnly: true))
            }
        }
        if options.kinds.contains(.plddt), structure.metadata.predicted {
            if let r = request([("assembly", "model"), ("mode", "cartoon"), ("color", "plddt")]) {
                specs.append(Spec(settings: settings, kind: .plddt, stem: "plddt", assembly: .model, request: r,
                                  caption: caption(.plddt, "plddt", assembly: "model", coloring: "plddt",
                                                   text: "The predicted model \(upper) coloured by AlphaFold's confidence (pLDDT)"),
                                  legend: .fixed(ColorTheme.plddtBands.map { LegendItem(color: hex($0.color), label: $0.label) }),
                                  views: options.views))
            }
        }
        return specs
    }

    /// The captions of the images `options` ask for (front view, no files yet), without drawing:
    /// what `make` would draw for `structure`.
    public static func planned(_ structure: Structure, id: String, options: Options) -> [Caption] {
        plan(structure, id: id, options: options).map(\.caption)
    }

    /// Each image's caption (front view) with the request settings that draw it, by name: what the
    /// service lists with a link to its image route.
    public static func plannedWithSettings(_ structure: Structure, id: String, options: Options) -> [(caption: Caption, settings: [(String, String)])] {
        plan(structure, id: id, options: options).map { ($0.caption, $0.settings) }
    }

    static func hex(_ rgb: UInt32) -> String { String(format: "#%06X", rgb) }

    /// Draws the set of `structure` (read from `source`) into `folder`: the images, a caption
    /// beside each, `ID.json` (every caption) and `ID_filelist` (every file, one a line). Every file
    /// goes through a temporary name and a rename; ID.json is written last, so a set with one is whole.
    public static func make(_ structure: Structure, source: String, id: String, options: Options, into folder: String,
                            renderer: MoleculeRenderer, perception: BondPerception) throws -> Summary {
        let sizes = options.sizes.sorted { $0.width * $0.height > $1.width * $1.height }
        guard let largest = sizes.first else { throw RequestError(field: "size", "give at least one size") }
        var built: [String: Structure] = [:]
        var maps: [String: LoadedMap] = [:]
        var captions: [Caption] = []
        for spec in plan(structure, id: id, options: options) {
            var request = spec.request
            request.width = largest.width
            request.height = largest.height
            // Each assembly built once for all the images drawn from it (`molecule()` less the cache).
            let key = "\(spec.assembly)"
            let molecule: Structure
            if let b = built[key] { molecule = b } else {
                molecule = try structure.applying(request.assembly, source: source, maxAtoms: request.maxAtoms)
                built[key] = molecule
            }
            try request.checkFocus(in: molecule, source: source)
            let prepared: PreparedMolecule
            var mapCaption: LoadedMap? = nil
            if let file = spec.map {
                // Each map read, and its level found, once for the entry's images of it.
                let loaded = try maps[file] ?? loadMap(file, model: molecule.models.first ?? Model(number: 1), maxBytes: request.maxBytes)
                maps[file] = loaded
                mapCaption = loaded
                if spec.mapOnly {
                    // The map alone: no molecule's geometry made for it.
                    prepared = PreparedMolecule(meshes: [try mapMesh(loaded, look: request.map, model: molecule.models.first, atomColors: [])])
                } else {
                    var withMap = try PreparedMolecule(molecule, mode: try request.singleMode(), request: request, perception: perception)
                    withMap.geometry.meshes.append(try mapMesh(loaded, look: request.map, model: withMap.model, atomColors: withMap.atomColors))
                    prepared = withMap
                }
            } else {
                prepared = try PreparedMolecule(molecule, mode: try request.singleMode(), request: request, perception: perception)
            }
            defer { renderer.forget(prepared) }
            let legend = legendItems(spec.legend, prepared: prepared, molecule: molecule)
            let chains = spec.caption.chains.isEmpty ? Array(Set(prepared.model.chains.map(\.id))).sorted() : spec.caption.chains
            // The front view's rotation, where arrows are drawn: what their directions are taken from.
            let front = options.axes && options.views.count > 1 ? MoleculePicture(prepared, request: request).camera.rotation : nil
            for view in spec.views {
                var r = request
                r.rotate = view.rotation
                let picture = MoleculePicture(prepared, request: r)
                // Where the front view's right, up and towards-the-viewer point in this view.
                let arrows = front.map { EntryImages.axes(front: $0, view: picture.camera.rotation) }
                // Finished with what the request draws over it (a ligand's interactions).
                var (image, labels) = try picture.finishLabelled(try picture.draw(renderer, keepScene: true))
                if let arrows { image.axisArrows(arrows) }
                var figure: FigureCaption?
                if spec.kind == .site { figure = try FigureCaption(picture, labels: labels) }
                let stem = "\(id)_\(spec.stem)_\(view.rawValue)"
                var files: [SizedFile] = []
                for (k, size) in sizes.enumerated() {
                    let shown: RGBAImage
                    if k == 0 {
                        shown = image
                    } else if options.renderEachSize {
                        var each = r
                        each.width = size.width
                        each.height = size.height
                        let sized = MoleculePicture(prepared, request: each)
                        var drawn = try sized.finish(try sized.draw(renderer, keepScene: true))
                        if let arrows { drawn.axisArrows(arrows) }
                        shown = drawn
                    } else {
                        shown = image.shrunk(width: size.width, height: size.height)
                    }
                    let file = "\(stem)_\(size.width)x\(size.height).png"
                    try AtomicFile.write(try r.pngEncoder.encode(shown), to: (folder as NSString).appendingPathComponent(file))
                    files.append(SizedFile(width: size.width, height: size.height, file: file))
                }
                var caption = spec.caption
                if let mapCaption {
                    caption.mapLevel = mapCaption.level
                    caption.mapLevelSource = mapCaption.from
                    caption.text += " (contour level \(String(format: "%.4g", mapCaption.level)), \(mapCaption.from))"
                }
                if let figure {
                    caption.text = String(figure.sentence.dropLast())
                    caption.figure = figure
                }
                caption.view = view.rawValue
                caption.name = stem
                caption.chains = chains
                caption.legend = legend
                caption.text += options.views.count > 1 || view != .front ? ", \(view.rawValue) view." : "."
                caption.files = files
                try AtomicFile.write(Array(try encoder.encode(caption)), to: (folder as NSString).appendingPathComponent("\(stem).caption.json"))
                captions.append(caption)
            }
        }
        let summary = Summary(entry: id, title: structure.metadata.title, source: (source as NSString).lastPathComponent, images: captions)
        let list = captions.flatMap { c in c.files.map(\.file) + ["\(c.name).caption.json"] } + ["\(id).json"]
        try AtomicFile.write(Array((list.joined(separator: "\n") + "\n").utf8), to: (folder as NSString).appendingPathComponent("\(id)_filelist"))
        try AtomicFile.write(Array(try encoder.encode(summary)), to: (folder as NSString).appendingPathComponent("\(id).json"))
        return summary
    }

    /// The map file of EMDB entry `id` (EMD-NNNN) in `folder`: emd_NNNN.map.gz, .map, .mrc or
    /// .ccp4 (gzip or not), in the folder or in EMDB's own layout (EMD-NNNN/map/emd_NNNN.map.gz).
    public static func mapFile(for id: String, in folder: String) -> String? {
        guard let number = Metadata.emdbID(id)?.dropFirst(4) else { return nil }
        let names = ["map", "mrc", "ccp4"].flatMap { ext in ["emd_\(number).\(ext).gz", "emd_\(number).\(ext)", "EMD-\(number).\(ext).gz", "EMD-\(number).\(ext)"] }
        for dir in [folder, (folder as NSString).appendingPathComponent("EMD-\(number)/map")] {
            for n in names {
                let p = (dir as NSString).appendingPathComponent(n)
                if FileManager.default.fileExists(atPath: p) { return p }
            }
        }
        return nil
    }

    /// An entry's map, read once with its level: the contour its EMDB header recommends (the header
    /// beside the map), else the level that encloses `model`'s volume as protein
    /// (`MapLook.proteinVolume`); `from` says which.
    struct LoadedMap {
        let file: String
        let map: DensityMap
        let level: Double
        let from: String
    }

    static func loadMap(_ file: String, model: Model, maxBytes: Int) throws -> LoadedMap {
        let map = try DensityMap.load(path: file, limits: DensityLimits(maxBytes: maxBytes))
        if let header = try EMDBHeader.beside(file)?.header, let recommended = header.recommendedLevel {
            return LoadedMap(file: file, map: map, level: recommended,
                             from: "recommended by EMDB's header" + (header.levelSource.map { " (\($0.lowercased()))" } ?? ""))
        }
        let volume = MapLook.proteinVolume(of: model)
        return LoadedMap(file: file, map: map, level: Double(MapLevel.enclosing(volume).value(in: map)),
                         from: "enclosing the model's volume, \(Int(volume.rounded())) Å³ (no recommended level beside the map)")
    }

    /// A loaded map's surface at its level for an entry image: round `model` where the map holds its whole cell.
    static func mapMesh(_ loaded: LoadedMap, look given: MapLook, model: Model?, atomColors: [UInt32]) throws -> Mesh {
        var look = given
        look.level = .absolute(loaded.level)
        guard let part = try MapLook.part(of: loaded.map, around: model, file: loaded.file) else {
            throw InputFileError(file: loaded.file, message: "lies nowhere near the model it was named for")
        }
        return try look.mesh(part, statistics: loaded.map.statistics, model: model, atomColors: atomColors, file: loaded.file)
    }

    /// The screen directions (x right, y up, z towards the viewer) of the front view's right, up
    /// and out in a view turned from it: the axis arrows of a side or top view.
    static func axes(front: Quaternion, view: Quaternion) -> [SIMD3<Float>] {
        [SIMD3<Float>(1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1)].map { view.rotate(front.inverse.rotate($0)) }
    }

    static var encoder: JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return e
    }

    /// The key of a picture's colours: each chain's (or entity's) colour as drawn, at most 40.
    static func legendItems(_ rule: LegendRule, prepared: PreparedMolecule, molecule: Structure) -> [LegendItem] {
        let model = prepared.model
        switch rule {
        case .none: return []
        case .fixed(let items): return items
        case .entity(let id):
            guard let e = molecule.entities.first(where: { $0.id == id }),
                  let first = model.atoms.indices.first(where: { model.chains[Int(model.residues[Int(model.atoms[$0].residue)].chain)].entity == id }),
                  first < prepared.atomColors.count else { return [] }
            return [LegendItem(color: hex(prepared.atomColors[first]), label: "entity \(id)" + (e.description.isEmpty ? "" : ": \(e.description)"))]
        case .chains, .entities:
            var out: [LegendItem] = []
            var seen = Set<String>()
            let names = Dictionary(molecule.entities.map { ($0.id, $0.description) }, uniquingKeysWith: { a, _ in a })
            // Waters are not drawn: not in the key.
            let waters = Set(molecule.entities.filter { $0.type.lowercased() == "water" }.map(\.id))
            for chain in model.chains {
                guard let first = chain.residues.first.map({ Int(model.residues[Int($0)].atoms.lowerBound) }),
                      first < prepared.atomColors.count else { continue }
                let key: String, label: String
                if case .chains = rule {
                    key = chain.id
                    label = "chain \(chain.id)"
                } else {
                    key = chain.entity
                    guard !key.isEmpty, !waters.contains(key) else { continue }
                    label = "entity \(key)" + (names[key].map { $0.isEmpty ? "" : ": \($0)" } ?? "")
                }
                guard seen.insert(key).inserted else { continue }
                out.append(LegendItem(color: hex(prepared.atomColors[first]), label: label))
                if out.count == 40 { break }
            }
            return out
        }
    }
}
