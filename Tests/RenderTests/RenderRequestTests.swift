import Core
import Graphics
import Imaging
import MoleculeView
import Scene
import XCTest

/// The one request every front end builds, from the same named fields.
final class RenderRequestTests: XCTestCase {
    /// The names PyMOL, ChimeraX and Jmol users type: modes in any case and by alias, color names
    /// for the background, and the nearest name for a near miss.
    func testNamesUsersTypeAndNearMisses() throws {
        let r = try RenderRequest([("mode", "Cartoon,SPHERES,stick,cpk"), ("background", "Blue")])
        XCTAssertEqual(r.modes, [.cartoon, .spacefill, .sticks, .spacefill])
        XCTAssertEqual(r.background.rgb, 0x0000FF)
        XCTAssertEqual(try RenderRequest([("background", "slate")]).background.rgb, 0x7F7FFF)
        let shows = try RenderRequest([("show", "Spheres red: ligand")]).shows
        XCTAssertEqual(shows.first?.representation, .spacefill)
        for (field, value, message) in [("mode", "catoon", "(did you mean cartoon?)"), ("color", "chian", "(did you mean chain?)"),
                                        ("background", "bleu", "(did you mean blue?)"), ("look", "ilustrated", "(did you mean illustrated?)")] {
            XCTAssertThrowsError(try RenderRequest([(field, value)]), field) { e in
                XCTAssertTrue("\(e)".hasSuffix(message), "\(field): \(e)")
            }
        }
        XCTAssertThrowsError(try RenderRequest([("mode", "hologram")])) { e in XCTAssertFalse("\(e)".contains("did you mean"), "\(e)") }
        XCTAssertEqual(NearMiss.suggestion(for: "xyz", among: ["element", "chain"]), nil)
    }

    func testFieldsSetFromTheirTextForms() throws {
        let r = try RenderRequest([("size", "320x200"), ("mode", "spacefill"), ("color", "chain"), ("background", "#102030"),
                                   ("rotate", "-90,0,10"), ("zoom", "1.5"), ("pan", "-4,6"), ("perspective", "true"),
                                   ("hydrogens", ""), ("waters", "1"), ("antialias", "3"), ("depth-cue", "yes"), ("png-level", "6"),
                                   ("max-bytes", "1000"), ("view", "file"), ("look", "plain"), ("outline", "2"), ("occlusion", "0.5")])
        XCTAssertEqual(r.width, 320)
        XCTAssertEqual(r.height, 200)
        XCTAssertEqual(r.modes, [.spacefill])
        XCTAssertEqual(r.color, .theme(.chain))
        XCTAssertEqual(r.background.rgb, 0x102030)
        XCTAssertEqual(r.rotate, SIMD3(-90, 0, 10))
        XCTAssertEqual(r.zoom, 1.5)
        XCTAssertEqual(r.pan, SIMD2(-4, 6))
        XCTAssertTrue(r.perspective && r.filter.hydrogens && r.filter.waters && r.depthCue == true)
        XCTAssertEqual(r.antialias, 3)
        XCTAssertEqual(r.pngLevel, 6)
        XCTAssertEqual(r.maxBytes, 1000)
        XCTAssertEqual(r.view, .file)
        XCTAssertEqual(r.look, .plain)
        let style = r.style(shownAtoms: 10)
        XCTAssertEqual(style.antialias, 3)
        XCTAssertEqual(style.effects, DepthEffects(outline: 2, occlusion: 0.5))
        XCTAssertTrue(style.depthCue)
        XCTAssertEqual(r.pngEncoder.level, 6)
    }

    func testAWrongValueNamesItsField() {
        for (field, value) in [("size", "10x"), ("mode", "cartoonish"), ("color", "sepia"), ("background", "#12"), ("zoom", "0"),
                               ("zoom", "1e30"), ("zoom", "0.00001"),
                               ("antialias", "5"), ("rotate", "1,2"), ("pan", "x,y"), ("hydrogens", "perhaps"),
                               ("view", "sideways"), ("look", "fancy"), ("outline", "-1"), ("occlusion", "2")] {
            XCTAssertThrowsError(try RenderRequest([(field, value)]), field) { error in
                XCTAssertEqual((error as? RequestError)?.field, field)
                XCTAssertTrue("\(error)".contains(value), "\(error)")
            }
        }
        XCTAssertThrowsError(try RenderRequest([("colour", "red")])) { XCTAssertEqual(($0 as? RequestError)?.field, "colour") }
        XCTAssertThrowsError(try RenderRequest([("mode", "ball-and-stick,spacefill")]).singleMode())
    }

    func testTheCameraAppliesTheViewAfterTheFit() {
        var r = RenderRequest()
        r.zoom = 2
        r.pan = SIMD2(3, -1)
        r.rotate = SIMD3(0, 90, 0)
        r.perspective = true
        let fitted = Camera(center: SIMD3(1, 2, 3), radius: 7)
        let c = r.camera(fittedTo: fitted)
        XCTAssertEqual(c.center, fitted.center)
        XCTAssertEqual(c.radius, fitted.radius)
        XCTAssertEqual(c.zoom, 2)
        XCTAssertEqual(c.pan, SIMD2(3, -1))
        XCTAssertFalse(c.isOrthographic)
        var turned = fitted
        turned.rotate(degreesX: 0, degreesY: 90, degreesZ: 0)
        XCTAssertEqual(c.rotation, turned.rotation)
    }

    /// Thumbnail names written before the request existed stay valid for the pictures they hold (the
    /// file's view, plain look): the same settings text and key. Today's defaults draw other
    /// pictures, so they make other names.
    func testTheSettingsKeyOfEarlierThumbnailsIsKept() {
        var r = RenderRequest()
        (r.width, r.height) = (256, 256)
        r.modes = [.ballAndStick, .spacefill]
        r.color = .theme(.element)
        XCTAssertNotEqual(r.settingsKey, "35caef4a", "the oriented, auto look is a new picture")
        r.view = .file
        r.look = .plain
        XCTAssertEqual(r.canonical, "v1 size=256x256 modes=ball-and-stick,spacefill color=element background=1.0,1.0,1.0,1.0 "
                       + "hydrogens=false waters=false antialias=1 rotate=0.0,0.0,0.0 zoom=1.0 perspective=false depthcue=false")
        XCTAssertEqual(r.settingsKey, "35caef4a")
        r.pan = SIMD2(1, 0)
        XCTAssertNotEqual(r.settingsKey, "35caef4a", "a new setting makes new names")
    }

    /// A value unlike the default for every field of the table: a field added without one here
    /// fails the test below, so none can be left out of what pictures are keyed on.
    static let fieldExamples: [String: String] = [
        "size": "320x200", "mode": "spacefill", "show": "cartoon: polymer", "view": "file", "focus": "resn HEM", "clip": "2,8", "slab": "10",
        "highlight": "chain B", "site": "resn HEM", "rotate": "0,90,0", "zoom": "1.5", "pan": "4,-2", "perspective": "1", "color": "rainbow",
        "background": "black", "hydrogens": "1", "waters": "1", "antialias": "2", "depth-cue": "1", "look": "illustrated",
        "outline": "2", "occlusion": "0.5", "occlusion-method": "atoms", "level": "2.5s", "map-style": "mesh", "map-color": "radial",
        "transparency": "0.4", "label": "name CA: %resn", "interactions": "resn HEM", "interactions-with": "protein",
        "distance": "resi 1 and name CA, resi 2 and name CA", "angle": "resi 1 and name N, resi 1 and name CA, resi 1 and name C",
        "label-size": "18", "legend": "1", "scale-bar": "1", "png-level": "6", "assembly": "2", "altloc": "B", "max-bytes": "1000",
    ]

    /// Cached pictures and ETags are keyed on `pictureKey`: setting any field of the table to
    /// another value makes another key (the cache once answered `altloc=B` with `altloc=A`'s
    /// picture, as `canonical` left `altloc` out), and the same settings make the same key.
    func testEveryFieldChangesThePictureKey() throws {
        let plain = RenderRequest()
        XCTAssertEqual(plain.pictureKey, try RenderRequest([]).pictureKey, "the same settings, the same key")
        XCTAssertEqual(try RenderRequest([("mode", "auto")]).pictureKey, plain.pictureKey, "a default given is the default")
        var seen: [String: String] = [plain.pictureKey: "(none)"]
        for field in RenderRequest.fields {
            let value = try XCTUnwrap(Self.fieldExamples[field.name], "field \(field.name) has no example here: add one")
            let key = try RenderRequest([(field.name, value)]).pictureKey
            XCTAssertNil(seen[key], "\(field.name)=\(value) makes the same key as \(seen[key] ?? "")")
            seen[key] = field.name
            XCTAssertEqual(try RenderRequest([(field.name, value)]).pictureKey, key, "\(field.name): the same key each time")
        }
        let a = try RenderRequest([("altloc", "A")]), b = try RenderRequest([("altloc", "B")])
        XCTAssertNotEqual(a.pictureKey, b.pictureKey)
        XCTAssertNotEqual(a.canonical, b.canonical, "thumbnails' names tell alternate locations apart too")
        XCTAssertEqual(RenderRequest().canonical, try RenderRequest([("altloc", "first")]).canonical, "names made before stay as they were")
    }
}
