import Core
import Density
import Foundation
import Imaging
import Scene
import Structure

/// One picture of a molecule as a front end asks for it: what to show and how, the view, the
/// output. The CLI's options and the service's query fields are the same named fields, parsed
/// here from the same small text formats (`512x384`, `#RRGGBB`, `X,Y,Z`), so every look option
/// means the same in every command and a wrong value is a `RequestError` naming its field.
public struct RenderRequest: Sendable, Equatable {
    public var width = 512
    public var height = 512
    /// Representations by name; one picture each where a front end draws several (thumbnails).
    public var modes: [DrawMode] = [.auto]
    /// Several representations in one picture, each on a selection in its own colors; where
    /// given, `modes` is `[Show.mode]`.
    public var shows: [Show] = []
    /// Whether `mode` was given (it and `show` exclude each other).
    private var modeGiven = false
    public var color = AtomColoring.theme(.auto)
    public var background = Color.white
    public var filter = AtomFilter()
    /// Where the view starts before `rotate`, `zoom` and `pan`.
    public enum View: String, Sendable, CaseIterable {
        /// The structure's principal axes: largest spread along x, next along y, fitted to what is seen.
        case orient
        /// The file's own axes, fitted to the bounding sphere.
        case file
        /// Down an assembly's 5-, 3- or 2-fold symmetry axis (an icosahedral capsid's are all
        /// three; `orient` takes the 5-fold where there is one); as `orient` where there is none.
        case fivefold = "5fold", threefold = "3fold", twofold = "2fold"

        var fold: Int? {
            switch self {
            case .fivefold: 5
            case .threefold: 3
            case .twofold: 2
            case .orient, .file: nil
            }
        }
    }
    public var view = View.orient
    /// Degrees about the screen's x, y and z axes, in that order, after the fitted view.
    public var rotate = SIMD3<Float>(0, 0, 0)
    public var zoom: Float = 1
    /// The zooms a request may ask for.
    public static let zoomRange: ClosedRange<Float> = 0.001...10_000
    /// Output pixels, x right, y down.
    public var pan = SIMD2<Float>(0, 0)
    public var perspective = false
    /// 0 off, 1 edge smoothing (automatic), 2 to 4 supersampling N x N.
    public var antialias = 1
    /// Depth cues as a whole; `outline`, `occlusion` and `depthCue`, where given, override it.
    public enum Look: String, Sendable, CaseIterable {
        /// `illustrated` for spacefill pictures of `illustratedAtoms` shown atoms or more, else `plain`.
        case auto
        /// Shading alone.
        case plain
        /// Outlines, ambient occlusion and depth cue: packed atoms read in depth.
        case illustrated
    }
    public var look = Look.auto
    /// Shown atoms from which `auto` draws the illustrated look (below it, shading alone reads well
    /// and outlines only thicken a small molecule's lines).
    public static let illustratedAtoms = 2000
    public var depthCue: Bool?
    /// Outline width in output pixels (0 none) and ambient occlusion strength (0 none to 1).
    public var outline: Float?
    public var occlusion: Float?
    /// How occlusion is found: per picture from its depth buffer, or once per structure per atom (`AtomOcclusion`).
    public enum OcclusionMethod: String, Sendable, CaseIterable {
        case screen, atoms
    }
    public var occlusionMethod = OcclusionMethod.screen
    /// How see-through surfaces are: 0 opaque to 1 (PyMOL's `transparency`).
    public var transparency: Float = 0
    /// How a density map is drawn, where there is one: its level, style and colouring.
    public var map = MapLook()
    /// PNG compression level, 0 to 9.
    public var pngLevel = 1
    /// Input files larger than this once inflated are refused.
    public var maxBytes = FileInput.defaultLimit
    /// Which alternate locations a file is read with.
    public var altloc = AltLocChoice.first
    /// Which molecule: the file's coordinates or one of its biological assemblies.
    public var assembly = AssemblyChoice.auto
    /// The atoms the view turns to and fits (PyMOL's `orient SELECTION`), with the text as given.
    public var focus: Focus?
    /// Å in front of and behind the view's centre that are drawn (`clip`, `slab`); nil: all of it,
    /// or with a focus, a slab about the focused atoms (`Slab.auto`).
    public enum Slab: Sendable, Equatable {
        case auto, none
        case clip(near: Float, far: Float)

        /// The clip asked for outright (`clip`, `slab`), as a camera takes it.
        var given: SIMD2<Float>? {
            if case .clip(let near, let far) = self { return SIMD2(near, far) }
            return nil
        }
    }
    public var slab = Slab.auto
    /// The default slab about a focus: this far in front of its nearest atom, this far behind its farthest.
    public static let focusSlabFront: Float = 2, focusSlabBack: Float = 12
    /// A selection drawn as asked while the rest is pale grey (made into two shows once every
    /// field is read).
    public var highlight: Focus?
    /// A binding-site figure of this selection, the text as given (`applySite`).
    public var site: Focus?
    /// The fields whose values `site` made: a value given for one of them replaces the site's.
    private var siteMade: Set<String> = []
    /// The pale grey of what a highlight leaves out.
    public static let paleGrey = "#E3E3E3"
    /// Labels, distances, angles, a colour key and a scale bar over the picture.
    public var annotations = Annotations()
    public struct Focus: Sendable, Equatable {
        public var selection: Selection
        public var text: String
    }
    /// Most atoms an assembly may be built to (every model); a front end's own limit, not a field.
    public var maxAtoms = RenderRequest.defaultMaxAtoms
    public static let defaultMaxAtoms = 20_000_000

    public init() {}

    /// The first (for most front ends, the only) mode.
    public var mode: DrawMode { modes[0] }

    /// The look of a picture of `prepared`: `auto` decided by how many atoms it shows.
    public func style(for prepared: PreparedMolecule) -> RenderStyle {
        style(shownAtoms: prepared.geometry.sphereCount, bonds: prepared.geometry.cylinderCount > 0)
    }

    /// The look of a picture of `shownAtoms` atoms, drawn with bonds (ball-and-stick) or without
    /// (spacefill). `auto` illustrates large spacefill pictures only: in ball-and-stick the
    /// background shows between every atom, and outlines and occlusion there only darken it.
    public func style(shownAtoms: Int, bonds: Bool = false) -> RenderStyle {
        let illustrated = illustrates(shownAtoms: shownAtoms, bonds: bonds)
        var s = RenderStyle()
        s.background = background
        s.antialias = antialias
        s.depthCue = depthCue ?? illustrated
        s.effects = DepthEffects(outline: outline ?? (illustrated ? 1 : 0),
                                 occlusion: occlusionMethod == .screen ? occlusionStrength(illustrated: illustrated) : 0)
        return s
    }

    /// How strongly atoms' own colors are darkened where they are buried (`occlusion-method atoms`), 0 for none.
    public func atomOcclusion(shownAtoms: Int, bonds: Bool) -> Float {
        guard occlusionMethod == .atoms else { return 0 }
        return occlusionStrength(illustrated: illustrates(shownAtoms: shownAtoms, bonds: bonds))
    }

    /// Whether the look is illustrated for a picture of `shownAtoms` atoms, with bonds or without.
    private func illustrates(shownAtoms: Int, bonds: Bool) -> Bool {
        look == .illustrated || (look == .auto && !bonds && shownAtoms >= RenderRequest.illustratedAtoms)
    }

    /// Occlusion as given, else as the look has it.
    private func occlusionStrength(illustrated: Bool) -> Float { occlusion ?? (illustrated ? 0.6 : 0) }

    /// The requested view of a scene whose fitted camera is `fitted`.
    public func camera(fittedTo fitted: Camera) -> Camera {
        var camera = fitted
        if let clip = slab.given { camera.clip = clip }
        if perspective { camera.projection = .perspective(fieldOfView: 30) }
        camera.zoom = zoom
        camera.pan = pan
        camera.rotate(degreesX: rotate.x, degreesY: rotate.y, degreesZ: rotate.z)
        return camera
    }

    /// The requested view of `prepared`: oriented (or the file's axes), turned by `rotate`, then
    /// fitted to the atoms as that rotation shows them (or to the bounding sphere), zoomed and panned.
    public func camera(for prepared: PreparedMolecule) -> Camera {
        if let focus, let camera = FocusView.camera(focus.selection, in: prepared, request: self) { return camera }
        guard view != .file else { return camera(fittedTo: prepared.fittedCamera) }
        var turned = Camera(center: .zero, radius: 1)
        turned.rotation = symmetryView(prepared.model.symmetryAxes) ?? prepared.principalAxes
        turned.rotate(degreesX: rotate.x, degreesY: rotate.y, degreesZ: rotate.z)
        var camera = Camera.fitted(spheres: prepared.geometry.extentSpheres, rotation: turned.rotation)
        if let clip = slab.given { camera.clip = clip }
        if perspective { camera.projection = .perspective(fieldOfView: 30) }
        camera.zoom = zoom
        camera.pan = pan
        return camera
    }

    /// Down the symmetry axis `view` asks for (the 5-fold of an icosahedral assembly unasked),
    /// with the nearest other axis up the picture; nil where the model has no such axis.
    func symmetryView(_ axes: [Int: SIMD3<Float>]) -> Quaternion? {
        let fold = view.fold ?? (axes[5] != nil && axes[3] != nil ? 5 : nil)
        guard let fold, let toward = axes[fold] else { return nil }
        // Up: another fold's axis made square to the view (a 5-fold view with a 2-fold up, as the EMDB shows capsids), else y.
        let candidates = [2, 3, 5].filter { $0 != fold }.compactMap { axes[$0] } + [SIMD3<Float>(0, 1, 0), SIMD3<Float>(1, 0, 0)]
        for c in candidates {
            var up = c - (c * toward).sum() * toward
            let n = (up * up).sum().squareRoot()
            guard n > 1e-3 else { continue }
            up /= n
            let right = SIMD3(up.y * toward.z - up.z * toward.y, up.z * toward.x - up.x * toward.z, up.x * toward.y - up.y * toward.x)
            return Quaternion(rows: (right, up, toward))
        }
        return nil
    }

    public var pngEncoder: PNGEncoder { PNGEncoder(level: pngLevel, filter: pngLevel <= 1 ? PNGEncoder.fast.filter : .adaptive) }

    public var structureOptions: StructureFile.Options {
        var o = StructureFile.Options()
        o.maxBytes = maxBytes
        o.altloc = altloc
        return o
    }

    /// Everything that decides the picture, as one line in a fixed order: hashed into thumbnail
    /// names, so a changed setting makes new files. The first fields (size to depthcue) are written
    /// as thumbnail names have always hashed them, so files already named stay valid; the later
    /// ones appear only when not default.
    public var canonical: String {
        let b = [background.red, background.green, background.blue, background.alpha].map { String($0) }.joined(separator: ",")
        let r = [rotate.x, rotate.y, rotate.z].map { String($0) }.joined(separator: ",")
        var line = "v1 size=\(width)x\(height) modes=\(modes.map(\.name).joined(separator: ",")) color=\(color.text) background=\(b) "
            + "hydrogens=\(filter.hydrogens) waters=\(filter.waters) antialias=\(antialias) rotate=\(r) zoom=\(zoom) "
            + "perspective=\(perspective) depthcue=\(depthCue ?? false)"
        if pan != .zero { line += " pan=\(pan.x),\(pan.y)" }
        if view != .file { line += " view=\(view.rawValue)" }
        if look != .plain { line += " look=\(look.rawValue)" }
        if let outline { line += " outline=\(outline)" }
        if let occlusion { line += " occlusion=\(occlusion)" }
        if occlusionMethod != .screen { line += " occlusion-method=\(occlusionMethod.rawValue)" }
        if pngLevel != 1 { line += " png=\(pngLevel)" }
        if transparency != 0 { line += " transparency=\(transparency)" }
        if map != MapLook() { line += " map=\(map.level),\(map.style.rawValue),\(map.coloringText)" }
        if !shows.isEmpty { line += " show=" + shows.map(\.text).joined(separator: "|") }
        if assembly != .auto { line += " assembly=\(assembly)" }
        if altloc != .first { line += " altloc=\(altloc)" }
        if let focus { line += " focus=\(focus.text)" }
        if let site { line += " site=\(site.text)" }
        switch slab {
        case .auto: break
        case .none: line += " slab=none"
        case .clip(let near, let far): line += " clip=\(near),\(far)"
        }
        line += annotations.canonical
        return line
    }

    /// The molecule to draw from `structure` as read: itself, or the assembly `assembly` names,
    /// built (refused past `maxAtoms`). `source` names the file in errors.
    public func molecule(_ structure: Structure, source: String) throws -> Structure {
        let built = try structure.applying(assembly, source: source, maxAtoms: maxAtoms)
        try checkFocus(in: built, source: source)
        return built
    }

    /// Refuses a focus that selects no atom of `molecule`'s first model (`source` names the file).
    public func checkFocus(in molecule: Structure, source: String) throws(RequestError) {
        if let focus, let model = molecule.models.first, !focus.selection.mask(in: model).contains(true) {
            // A focus the site made is the site's.
            throw RequestError(field: siteMade.contains("focus") ? "site" : "focus", "\"\(Excerpt.of(focus.text))\" selects no atoms in \(source)")
        }
    }

    /// Everything in the request that decides its picture, as text derived from the request's own
    /// stored values (every value a field of `fields` sets, and any added later), not from a list
    /// kept beside them: what cached pictures and ETags are keyed on. (`canonical` stays as
    /// thumbnail names have always hashed it; `altloc` was missing from it, and a cached picture
    /// drawn with `altloc=A` was answered for `altloc=B`.) A test sets every field of the table
    /// and sees the key change.
    public var pictureKey: String {
        var normalized = self
        // Whether mode was given is how the text was written, not what is drawn.
        normalized.modeGiven = false
        normalized.siteMade = []
        return String(reflecting: normalized)
    }

    /// Eight hex digits naming these settings (FNV-1a 64 of `canonical`, high half).
    public var settingsKey: String {
        FNV1a.hex(FNV1a.hash(canonical.utf8) >> 32, digits: 8)
    }

    // MARK: Fields

    /// A named field: its help (the same text in every front end) and how a value sets it.
    public struct Field: Sendable {
        public let name: String
        public let help: String
        /// Given without a value on the command line (a flag).
        public let isFlag: Bool
        let apply: @Sendable (inout RenderRequest, String) throws(RequestError) -> Void
    }

    public static let fields: [Field] = [
        Field(name: "size", help: "WxH or N for a square, up to \(PictureBounds.maximumSide) per side.",
              isFlag: false) { r, v throws(RequestError) in
            (r.width, r.height) = try ValueText.size(v, field: "size", maximumSide: PictureBounds.maximumSide)
        },
        Field(name: "mode", help: "\(Representations.names.joined(separator: ", ")) or auto (cartoon for polymers with their ligands as ball-and-stick, spacefill past \(Representations.spacefillResidues) residues, ball-and-stick for small molecules).", isFlag: false) { r, v throws(RequestError) in
            var names: [DrawMode] = []
            for given in v.split(separator: ",", omittingEmptySubsequences: false).map({ $0.trimmingCharacters(in: .whitespaces) }) {
                guard let canonical = Representations.canonical(given), let mode = DrawMode(rawValue: canonical) else {
                    throw RequestError(field: "mode", Representations.unknown(given.isEmpty ? v : given))
                }
                names.append(mode)
            }
            guard r.shows.isEmpty else { throw RequestError(field: "mode", "cannot be given with show: give one or the other") }
            r.modes = names
            r.modeGiven = true
        },
        Field(name: "show", help: "A representation of a selection in its own colors, REPRESENTATION [COLOR]: SELECTION, as in "
              + "\"cartoon: polymer\", \"ball-and-stick: ligand\", \"sticks element: resn HEM\", \"spacefill #FF8000: chain B\"; "
              + "repeat it for several in one picture (instead of mode). COLOR: a color theme, a name (red, orange, ...) or #RRGGBB; "
              + "SELECTION: chain A, resi 10-20, resn HEM, name CA, elem Fe, polymer, ligand, water, hydrogen, within 5 of ..., "
              + "and/or/not, parentheses.", isFlag: false) { r, v throws(RequestError) in
            guard !r.modeGiven else { throw RequestError(field: "show", "cannot be given with mode: give one or the other") }
            guard r.shows.count < Show.maxCount else { throw RequestError(field: "show", "is given more than \(Show.maxCount) times: that is as many as one picture takes") }
            r.shows.append(try Show(parsing: v))
            r.modes = [.shows]
        },
        Field(name: "view", help: "orient (the default: the largest spread across the picture, the next up it, fitted to the atoms; "
              + "an icosahedral assembly down a 5-fold axis), file (the file's own axes, fitted to a sphere around the atoms), "
              + "or 5fold, 3fold, 2fold (down an assembly's symmetry axis of that fold, where it has one).", isFlag: false) { r, v throws(RequestError) in
            r.view = try choice(v, field: "view")
        },
        Field(name: "focus", help: "A selection to turn to and fit the view to, as PyMOL's orient SELECTION (a ligand, a chain, "
              + "a residue: resn HEM, chain B, resi 57 and chain A): along its principal axes, from the side with the fewest other "
              + "atoms in front of it; the rest stays drawn.", isFlag: false) { r, v throws(RequestError) in
            do { r.focus = Focus(selection: try Selection(parsing: v), text: v) } catch {
                throw RequestError(field: "focus", "\(error)")
            }
        },
        Field(name: "clip", help: "Draw only what lies between NEAR Å in front of the view's centre and FAR Å behind it, NEAR,FAR, "
              + "as PyMOL's clip near and far: a surface or cartoon is cut at the planes, an atom reaching past the near one is left "
              + "out (default: everything, or with focus a slab about the focused atoms).", isFlag: false) { r, v throws(RequestError) in
            let pair = try ValueText.pair(v, field: "clip", meaning: "NEAR,FAR in Å about the view's centre")
            guard pair.x > -10_000, pair.y > -10_000, pair.x < 10_000, pair.y < 10_000, pair.x + pair.y > 0 else {
                throw RequestError(field: "clip", "must keep some depth: NEAR + FAR above 0, each within 10000 Å (got \(v))")
            }
            r.slab = .clip(near: pair.x, far: pair.y)
        },
        Field(name: "slab", help: "Draw only a slab this many Å deep about the view's centre, as PyMOL's clip slab; none draws the "
              + "whole depth (focus otherwise takes a slab from \(Int(focusSlabFront)) Å in front of the focused atoms to "
              + "\(Int(focusSlabBack)) Å behind them, as Mol* clips a ligand's view).", isFlag: false) { r, v throws(RequestError) in
            if v.trimmingCharacters(in: .whitespaces).lowercased() == "none" { r.slab = .none; return }
            let width = try ValueText.number(v, field: "slab", positive: true)
            guard width <= 20_000 else { throw RequestError(field: "slab", "must be at most 20000 Å, or none (got \(v))") }
            r.slab = .clip(near: width / 2, far: width / 2)
        },
        Field(name: "highlight", help: "A selection drawn in the mode and colours asked for while the rest is pale grey, as the "
              + "viewer's picked chain (chain B, resn HEM, entity 1); with mode, not with show.", isFlag: false) { r, v throws(RequestError) in
            do { r.highlight = Focus(selection: try Selection(parsing: v), text: v) } catch {
                throw RequestError(field: "highlight", "\(error)")
            }
        },
        Field(name: "site", help: "A binding-site figure of a selection (a ligand: resn 478, resn HEM and chain A) in one word: the "
              + "polymer as a cartoon in muted chain colours, the selection as ball-and-stick with carbons in a colour of their own, the "
              + "residues it interacts with as sticks (with the backbone N-H or C=O where that is the partner) and labelled, its "
              + "interactions with their key, the view turned to it (a flat ligand face-on) and a slab about it. Options given "
              + "beside it (show, mode, focus, label, interactions) replace its parts.", isFlag: false) { r, v throws(RequestError) in
            do { r.site = Focus(selection: try Selection(parsing: v), text: v) } catch {
                throw RequestError(field: "site", "\(error)")
            }
        },
        Field(name: "rotate", help: "Degrees about the screen's x, y and z axes, X,Y,Z, turned in that order after the fitted view.",
              isFlag: false) { r, v throws(RequestError) in
            r.rotate = try ValueText.triple(v, field: "rotate")
        },
        Field(name: "zoom", help: "Zoom factor; 2 is twice as large (default 1).", isFlag: false) { r, v throws(RequestError) in
            let zoom = try ValueText.number(v, field: "zoom", positive: true)
            // Past these a picture is a few atoms' worth of one pixel, or a pixel's worth of
            // an atom: nothing to see, and scales that overflow what is computed from them.
            guard zoom >= RenderRequest.zoomRange.lowerBound, zoom <= RenderRequest.zoomRange.upperBound else {
                throw RequestError(field: "zoom", "must be from \(RenderRequest.zoomRange.lowerBound) to \(RenderRequest.zoomRange.upperBound) (got \(v))")
            }
            r.zoom = zoom
        },
        Field(name: "pan", help: "Shift in output pixels, DX,DY (x right, y down).", isFlag: false) { r, v throws(RequestError) in
            r.pan = try ValueText.pair(v, field: "pan", meaning: "DX,DY in pixels")
        },
        Field(name: "perspective", help: "Perspective projection instead of orthographic.", isFlag: true) { r, v throws(RequestError) in
            r.perspective = try ValueText.flag(v, field: "perspective")
        },
        Field(name: "color", help: "A color theme: \(ColorTheme.allCases.map(\.rawValue).joined(separator: ", ")) (default auto: elements "
              + "for small molecules, carbons and cartoons in chain colors for polymers, pale chain colors for large assemblies; "
              + "rainbow runs blue to red from each chain's start to its end); or one color for every atom, a name (red, marine, "
              + "...) or #RRGGBB.", isFlag: false) { r, v throws(RequestError) in
            guard let coloring = AtomColoring(parsing: v) else {
                throw RequestError(field: "color", "must be a color theme (\(ColorTheme.allCases.map(\.rawValue).joined(separator: ", "))), "
                                   + "a color name or #RRGGBB (got \(v))" + AtomColoring.hint(for: v))
            }
            r.color = coloring
        },
        Field(name: "background", help: "A color name (white, black, gray, blue, ...), transparent, #RRGGBB or #RRGGBBAA (default white).",
              isFlag: false) { r, v throws(RequestError) in
            guard let color = Color(parsing: v) else {
                throw RequestError(field: "background", "must be a color name (\(Color.names.keys.sorted().joined(separator: ", "))), "
                                   + "transparent, #RRGGBB or #RRGGBBAA (got \(v))" + NearMiss.hint(for: v, among: Array(Color.names.keys)))
            }
            r.background = color
        },
        Field(name: "hydrogens", help: "Show hydrogens.", isFlag: true) { r, v throws(RequestError) in
            r.filter.hydrogens = try ValueText.flag(v, field: "hydrogens")
        },
        Field(name: "waters", help: "Show waters.", isFlag: true) { r, v throws(RequestError) in
            r.filter.waters = try ValueText.flag(v, field: "waters")
        },
        Field(name: "antialias", help: "0 off; 1 edge smoothing (the default, fast); 2 to 4 draw N x N samples a pixel.",
              isFlag: false) { r, v throws(RequestError) in
            r.antialias = try ValueText.integer(v, field: "antialias", in: 0...4)
        },
        Field(name: "depth-cue", help: "Fade far atoms toward the background (default: by look).", isFlag: true) { r, v throws(RequestError) in
            r.depthCue = try ValueText.flag(v, field: "depth-cue")
        },
        Field(name: "look", help: "auto (the default: illustrated for spacefill from \(illustratedAtoms) shown atoms up, else plain), plain (shading "
              + "alone) or illustrated (outlines, ambient occlusion and depth cue, so packed atoms read in depth).",
              isFlag: false) { r, v throws(RequestError) in
            r.look = try choice(v, field: "look")
        },
        Field(name: "outline", help: "Silhouette outlines where depth jumps, this many output pixels wide; 0 none (default: by look).",
              isFlag: false) { r, v throws(RequestError) in
            let width = try ValueText.number(v, field: "outline")
            guard (0...16).contains(width) else { throw RequestError(field: "outline", "must be 0 to 16 pixels (got \(v))") }
            r.outline = width
        },
        Field(name: "occlusion", help: "Ambient occlusion, how dark crevices get: 0 (none) to 1 (default: by look).",
              isFlag: false) { r, v throws(RequestError) in
            let strength = try ValueText.number(v, field: "occlusion")
            guard (0...1).contains(strength) else { throw RequestError(field: "occlusion", "must be 0 to 1 (got \(v))") }
            r.occlusion = strength
        },
        Field(name: "occlusion-method", help: "screen (the default: from each picture's depth buffer, every crevice) or atoms "
              + "(once per structure, from how many atoms surround each one: cheaper for large pictures and many views, coarser).",
              isFlag: false) { r, v throws(RequestError) in
            r.occlusionMethod = try choice(v, field: "occlusion-method")
        },
        Field(name: "level", help: "A density map's contour level: in standard deviations above its mean (1.5s, the default; 1.5sigma), "
              + "absolute (0.02), the level that encloses a volume (12000A3, as EMDB's enclosed volume), "
              + "or recommended (the contour level in the map's EMDB header).", isFlag: false) { r, v throws(RequestError) in
            guard let level = MapLevel(v) else { throw RequestError(field: "level", "give a number (0.02), a number of standard deviations (1.5s), a volume (12000A3) or recommended (got \(Excerpt.of(v)))") }
            r.map.level = level
        },
        Field(name: "map-style", help: "How a density map is drawn: surface (the default), mesh (lines, as PyMOL's isomesh) or transparent.",
              isFlag: false) { r, v throws(RequestError) in
            guard let style = MapLook.Style(rawValue: v.lowercased()) else { throw RequestError(field: "map-style", "give surface, mesh or transparent (got \(Excerpt.of(v)))") }
            let wasDefault = r.map.coloring == .single(r.map.style == .mesh ? MapLook.meshColor : MapLook.defaultColor)
            r.map.style = style
            if wasDefault { r.map.coloring = .single(style == .mesh ? MapLook.meshColor : MapLook.defaultColor) }
        },
        Field(name: "map-color", help: "A density map's colour: a name or #RRGGBB, radial (by distance from its centre, as EMDB's pictures), "
              + "or zone (each part in the colour of the model's nearest atom within 5 Å, as ChimeraX's color zone; zone:R within R Å, "
              + "for low-resolution maps whose surface lies far from the atoms).",
              isFlag: false) { r, v throws(RequestError) in
            switch v.lowercased() {
            case "radial": r.map.coloring = .radial
            case "zone": r.map.coloring = .zone(5)
            case let z where z.hasPrefix("zone:"):
                guard let d = Double(z.dropFirst(5)), d > 0, d <= 50 else {
                    throw RequestError(field: "map-color", "zone:R takes a distance R from 0 to 50 Å (got \(Excerpt.of(v)))")
                }
                r.map.coloring = .zone(d)
            default:
                guard let c = Color(parsing: v) else { throw RequestError(field: "map-color", "give a colour name, #RRGGBB, radial or zone (got \(Excerpt.of(v)))") }
                r.map.coloring = .single(c.rgb)
            }
        },
        Field(name: "transparency", help: "How see-through surfaces are, 0 (opaque, the default) to 1, as PyMOL's transparency "
              + "setting: what lies inside (a cartoon, a ligand) shows through.", isFlag: false) { r, v throws(RequestError) in
            let t = try ValueText.number(v, field: "transparency")
            guard (0...1).contains(t) else { throw RequestError(field: "transparency", "must be 0 to 1 (got \(v))") }
            r.transparency = t
        },
        Field(name: "label", help: "Labels, SELECTION: FORMAT, as PyMOL's label: \"name CA and resi 10-20: %resn %resi\"; fields %resn %resi "
              + "%chain %name %elem %b %q (no format: %resn%resi, with %chain where the model has several chains); one label a residue unless "
              + "the format names an atom's field (then one an atom); set beside "
              + "the atoms with a halo, inside the picture; repeatable (up to \(Annotations.maxEach), \(Annotations.maxLabels) labels).",
              isFlag: false) { r, v throws(RequestError) in
            guard r.annotations.labels.count < Annotations.maxEach else { throw RequestError(field: "label", "is given more than \(Annotations.maxEach) times") }
            r.annotations.labels.append(try Annotations.parseLabel(v))
        },
        Field(name: "interactions", help: "The non-covalent interactions of a selection (a ligand, a residue, a chain) with what "
              + "surrounds it, found as PLIP finds them and drawn as dashed lines in Mol*'s colours with a key: hydrogen bonds, "
              + "hydrophobic contacts, salt bridges, pi-stacking, cation-pi, halogen bonds, metal coordination, water bridges (molshot info "
              + "--interactions lists them).", isFlag: false) { r, v throws(RequestError) in
            do { r.annotations.interactions = Annotations.InteractionsAsked(selection: try Selection(parsing: v), text: v) } catch {
                throw RequestError(field: "interactions", "\(error)")
            }
        },
        Field(name: "interactions-with", help: "With interactions, the atoms on the other side (default: every atom the selection "
              + "does not take); protein for a DNA strand's contacts with its protein rather than with its other strand.",
              isFlag: false) { r, v throws(RequestError) in
            do {
                r.annotations.interactionPartners = Annotations.InteractionsAsked(selection: try Selection(parsing: v), text: v)
            } catch {
                throw RequestError(field: "interactions-with", "\(error)")
            }
        },
        Field(name: "distance", help: "A dashed line and its length in Å between two selections, SEL1, SEL2 (the closest pair of their "
              + "atoms), as PyMOL's distance; repeatable.", isFlag: false) { r, v throws(RequestError) in
            guard r.annotations.distances.count < Annotations.maxEach else { throw RequestError(field: "distance", "is given more than \(Annotations.maxEach) times") }
            r.annotations.distances.append(try Annotations.parseMeasure(v, field: "distance", count: 2))
        },
        Field(name: "angle", help: "The angle at SEL2 between SEL1 and SEL3 (each selection's centre), SEL1, SEL2, SEL3, drawn as two "
              + "dashed arms, an arc and its degrees; repeatable.", isFlag: false) { r, v throws(RequestError) in
            guard r.annotations.angles.count < Annotations.maxEach else { throw RequestError(field: "angle", "is given more than \(Annotations.maxEach) times") }
            r.annotations.angles.append(try Annotations.parseMeasure(v, field: "angle", count: 3))
        },
        Field(name: "label-size", help: "Text size of labels, distances and keys in points (default 12; at 96 dpi for a 512 px picture, "
              + "scaled with the picture).", isFlag: false) { r, v throws(RequestError) in
            let size = try ValueText.number(v, field: "label-size", positive: true)
            guard size >= 4, size <= 72 else { throw RequestError(field: "label-size", "must be 4 to 72 points (got \(v))") }
            r.annotations.points = size
        },
        Field(name: "legend", help: "A colour key in the bottom-right corner: the bar of a continuous scheme (bfactor with its range, "
              + "hydrophobicity, rainbow) or swatches (plddt, secondary-structure, chain); with show, a key for each such scheme the shows colour by.", isFlag: true) { r, v throws(RequestError) in
            r.annotations.legend = try ValueText.flag(v, field: "legend")
        },
        Field(name: "scale-bar", help: "A bar of a round length in Å in the bottom-left corner (at the scale of the view's centre).",
              isFlag: true) { r, v throws(RequestError) in
            r.annotations.scaleBar = try ValueText.flag(v, field: "scale-bar")
        },
        Field(name: "png-level", help: "PNG compression level 0 to 9 (default 1, fast; 9 is smallest).", isFlag: false) { r, v throws(RequestError) in
            r.pngLevel = try ValueText.integer(v, field: "png-level", in: 0...9)
        },
        Field(name: "assembly", help: "auto (the default: the first biological assembly the file declares, as the RCSB's and PDBe's "
              + "pages and Mol* show an entry, or the deposited model where it declares none or its first is the model unchanged), "
              + "model (the coordinates as deposited), or an assembly id (1, 2, ...; molshot info lists them).",
              isFlag: false) { r, v throws(RequestError) in
            let text = v.trimmingCharacters(in: .whitespaces)
            guard !text.isEmpty, text.count <= 40, !text.contains(where: { $0.isWhitespace || $0.isNewline }) else {
                throw RequestError(field: "assembly", "expected auto, model or an assembly id (got \(Excerpt.of(v, length: 40)))")
            }
            r.assembly = AssemblyChoice(text)
        },
        Field(name: "altloc", help: "Which alternate locations a file is read with: first (the default: at each residue, the "
              + "alternate listed first, as gemmi and biotite keep it), occupancy (the one of highest occupancy), all (every atom "
              + "record, counted and exported; pictures draw the first), or one id (A, B: that one where a residue has it).",
              isFlag: false) { r, v throws(RequestError) in
            guard let choice = AltLocChoice(parsing: v) else {
                throw RequestError(field: "altloc", "expected first, occupancy, all or one alternate location id such as A (got \(Excerpt.of(v, length: 40)))")
            }
            r.altloc = choice
        },
        Field(name: "max-bytes", help: "Refuse input files larger than this many bytes once inflated (default 2 GiB).",
              isFlag: false) { r, v throws(RequestError) in
            r.maxBytes = try ValueText.integer(v, field: "max-bytes", in: 1...Int.max)
        },
    ]

    public static func field(_ name: String) -> Field? { fields.first { $0.name == name } }

    /// One of a set of named values, by name in any case.
    private static func choice<T: CaseIterable & RawRepresentable>(_ text: String, field: String) throws(RequestError) -> T
    where T.RawValue == String {
        guard let value = T(rawValue: text.lowercased()) else {
            let known = T.allCases.map(\.rawValue)
            throw RequestError(field: field, "must be one of: \(known.joined(separator: ", ")) (got \(text))" + NearMiss.hint(for: text, among: known))
        }
        return value
    }

    /// The help of a field, for front ends that declare it.
    public static func help(_ name: String) -> String { field(name)?.help ?? "" }

    /// Sets the field `name` from its text form.
    public mutating func set(_ name: String, _ value: String) throws(RequestError) {
        guard let field = RenderRequest.field(name) else {
            throw RequestError(field: name, "is not a render option; known: \(RenderRequest.fields.map(\.name).joined(separator: ", "))")
        }
        if siteMade.contains(name) || (name == "mode" && siteMade.contains("show")) { undoSitePart(name == "mode" ? "show" : name) }
        try field.apply(&self, value)
    }

    /// Leaves out a site's labels, for a view's frames (live sessions, replays), which carry none.
    public mutating func leaveOutSiteLabels() {
        if siteMade.contains("label") { undoSitePart("label") }
    }

    /// Takes back what `applySite` made of the field `name`.
    private mutating func undoSitePart(_ name: String) {
        siteMade.remove(name)
        switch name {
        case "show":
            shows = []
            modes = [.auto]
        case "focus": focus = nil
        case "label": annotations.labels = []
        case "interactions": annotations.interactions = nil
        default: break
        }
    }

    /// `site`'s parts made again from the request as it now stands (after options set later, as
    /// the command line's figure options are: `interactions-with` narrows the site's partners).
    public mutating func refreshSite() throws(RequestError) {
        for part in siteMade { undoSitePart(part) }
        try applySite()
    }

    /// `site` as the figure's parts, each where the request does not give it already: shows (the
    /// polymer's cartoon muted, the selection in ball-and-stick with its own carbons, the residues
    /// it interacts with as sticks from their CA, the backbone atoms an interaction ends on with
    /// their neighbours), the focus, labels on the interacting residues and the interactions.
    public mutating func applySite() throws(RequestError) {
        guard let site, siteMade.isEmpty else { return }
        // The site's interactions' other side, where `interactions-with` narrows it.
        let s = "(\(site.text))", with = annotations.interactionPartners.map { " with (\($0.text))" } ?? ""
        func interacting(_ word: String) -> String { "(\(word) \(s)\(with))" }
        if shows.isEmpty && !modeGiven {
            // The polymer but the site (a DNA strand as the site is drawn in its own style, not under a tube).
            shows.append(try Show(parsing: "cartoon muted: polymer and not \(s)"))
            shows.append(try Show(parsing: "ball-and-stick ligand: \(s)"))
            shows.append(try Show(parsing: "sticks muted: \(interacting("interacting")) and not \(s) and not ion and not (backbone and not name CA)"))
            // The backbone atoms an interaction ends on, with their bonded neighbours (an N-H's
            // CA and C, a C=O's C), which the cartoon would otherwise stand in for.
            var fragment = try Show(parsing: "sticks muted: backbone and not \(s) and within 1.6 of (\(interacting("partners")) and backbone)")
            fragment.keepsMainChain = true
            shows.append(fragment)
            // A bridge's waters, which pictures otherwise leave out, and the metals it binds, as balls.
            shows.append(try Show(parsing: "ball-and-stick: \(interacting("interacting")) and water"))
            shows.append(try Show(parsing: "ball-and-stick: \(interacting("interacting")) and ion"))
            modes = [.shows]
            siteMade.insert("show")
        }
        if focus == nil {
            focus = site
            siteMade.insert("focus")
        }
        if annotations.labels.isEmpty {
            annotations.labels = [try Annotations.parseLabel("\(interacting("interacting")) and not \(s) and not water:")]
            siteMade.insert("label")
        }
        if annotations.interactions == nil {
            annotations.interactions = Annotations.InteractionsAsked(selection: site.selection, text: site.text)
            siteMade.insert("interactions")
        }
    }

    /// `defaults` with `values` (name, text) set in order.
    public init(_ values: [(String, String)], defaults: RenderRequest = RenderRequest()) throws(RequestError) {
        self = defaults
        for (name, value) in values { try set(name, value) }
        try applyHighlight()
        try applySite()
    }

    /// `highlight` as two shows: the rest pale grey, the selection as asked, in the one mode given.
    public mutating func applyHighlight() throws(RequestError) {
        guard let highlight else { return }
        guard shows.isEmpty else { throw RequestError(field: "highlight", "cannot be given with show: give mode (or nothing) with it") }
        guard modes.count == 1 else { throw RequestError(field: "highlight", "takes one mode (got \(modes.map(\.name).joined(separator: ",")))") }
        let mode = modes[0].name
        shows = [try Show(parsing: "\(mode) \(Self.paleGrey): not (\(highlight.text))"), try Show(parsing: "\(mode) \(color.text): \(highlight.text)")]
        modes = [.shows]
        modeGiven = true
        self.highlight = nil
    }

    /// Refuses more than one mode, for front ends that draw one picture at a time.
    public func singleMode() throws(RequestError) -> DrawMode {
        guard modes.count == 1 else { throw RequestError(field: "mode", "takes one mode here (got \(modes.map(\.name).joined(separator: ",")))") }
        return modes[0]
    }
}
