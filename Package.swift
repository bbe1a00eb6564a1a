// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Molshot",
    products: [
        .executable(name: "molshot", targets: ["molshot"]),
        .library(name: "Structure", targets: ["Structure"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        // Hummingbird's own foundations, named because the service uses their types directly
        // (ByteBuffer and Channel; the connection guard's Logger): already in every build through Hummingbird.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        // The HTTP parts NIO's pipeline carries (NIOHTTPTypes), for the event loop's thumbnail answers.
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.34.1"),
    ],
    targets: [
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // OSMesa or EGL is opened at run time (dlopen), not linked: see Sources/COpenGL/include/COpenGL.h.
        .target(name: "COpenGL", path: "Sources/COpenGL", exclude: ["generate_entry_points.py"],
                linkerSettings: [.linkedLibrary("dl"), .linkedLibrary("pthread")]),
        .systemLibrary(name: "CZstd", path: "Sources/CZstd", pkgConfig: "libzstd", providers: [.apt(["libzstd-dev"])]),
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CFreeType", path: "Sources/CFreeType", pkgConfig: "freetype2", providers: [.apt(["libfreetype-dev"])]),
        .systemLibrary(name: "CLibDeflate", path: "Sources/CLibDeflate", pkgConfig: "libdeflate", providers: [.apt(["libdeflate-dev"])]),
        // ISA-L: PNG's deflate at level 1, and an inflater that streams at the speed libdeflate inflates whole (large gzip PDB files are read as they are inflated).
        .systemLibrary(name: "CISAL", path: "Sources/CISAL", pkgConfig: "libisal", providers: [.apt(["libisal-dev"])]),
        .target(name: "CPNGWriter", dependencies: ["CZlib", "CLibDeflate", "CISAL"], path: "Sources/CPNGWriter",
                linkerSettings: [.linkedLibrary("png16"), .linkedLibrary("pthread")]),
        // Live frames as JPEG (libjpeg-turbo) and WebP (libwebp), for browsers that take them.
        .target(name: "CFrameWriter", path: "Sources/CFrameWriter", linkerSettings: [.linkedLibrary("jpeg"), .linkedLibrary("webp")]),
        // Movies (MP4, WebM, GIF) through FFmpeg's libraries, opened at run time (dlopen): building needs
        // libavcodec-dev, libavformat-dev and libswscale-dev's headers; commands that make no movie load none of them.
        .target(name: "CVideoWriter", path: "Sources/CVideoWriter", linkerSettings: [.linkedLibrary("dl"), .linkedLibrary("pthread")]),
        .target(name: "CMemory", path: "Sources/CMemory"),
        // libcurl is opened at run time (dlopen) by the commands that go to the network.
        .target(name: "CHTTP", path: "Sources/CHTTP", linkerSettings: [.linkedLibrary("dl"), .linkedLibrary("pthread")]),
        // Values, text formats, errors, files in and out (gzip included): what every layer shares.
        // SHA-256's compression on the CPU's SHA instructions where it has them (a library import hashes every file).
        .target(name: "CDigest", path: "Sources/CDigest"),
        .target(name: "Core", dependencies: ["CZlib", "CLibDeflate", "CISAL", "CDigest"]),
        .target(name: "Structure", dependencies: ["CZlib", "Core"]),
        .target(name: "Density", dependencies: ["Core"]),
        // Pictures as pixels, with no GL: images, PNG and APNG, edge smoothing, depth effects.
        .target(name: "Imaging", dependencies: ["CPNGWriter", "CFrameWriter", "CVideoWriter", "CZlib", "Core"]),
        // The GL device: OSMesa, buffers, programs, the offscreen pass.
        .target(name: "Graphics", dependencies: ["COpenGL", "Imaging", "Core"]),
        .target(name: "Scene", dependencies: ["Core"]),
        .target(name: "Library", dependencies: ["CHTTP", "CSQLite", "CZstd", "Core", "Structure"]),
        // Pathway maps without GL: the map model, the readers of each format, layout, JSON.
        .target(name: "PathwayModel", dependencies: ["Core"]),
        // Pathway maps drawn: meshes, labels, pictures, tiles.
        .target(name: "Pathways", dependencies: ["PathwayModel", "Imaging", "Core", "Graphics", "Text"]),
        .target(name: "Text", dependencies: ["CFreeType", "Imaging", "Core"]),
        .target(name: "Service", dependencies: ["Imaging", "CMemory", "Core", "Structure", "Density", "Library", "MoleculeView", "Pathways", "PathwayModel", "Graphics", "Gestures", "Thumbnails",
                                                .product(name: "Hummingbird", package: "hummingbird"),
                                                .product(name: "HummingbirdCore", package: "hummingbird"),
                                                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                                                .product(name: "NIOCore", package: "swift-nio"),
                                                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                                                .product(name: "Logging", package: "swift-log")]),
        // A WebSocket client of the live-session protocol, for the tests and `measure-live`, not the service.
        .target(name: "LiveClient"),
        .target(name: "MoleculeView", dependencies: ["Imaging", "Structure", "Density", "Graphics", "Scene", "Text", "Core", "CMemory"]),
        .target(name: "Gestures", dependencies: ["Imaging", "MoleculeView", "Pathways", "PathwayModel", "Structure", "Graphics", "Scene", "Text", "Core"]),
        .target(name: "Thumbnails", dependencies: ["Imaging", "MoleculeView", "Structure", "Density", "Graphics", "Scene", "Text", "Core", "CMemory"]),
        .executableTarget(
            name: "molshot",
            dependencies: ["Core", "Structure", "Density", "Library", "Pathways", "Service", "MoleculeView", "Graphics", "Imaging", "Scene", "Thumbnails", "Gestures", "CMemory", "LiveClient", "PathwayModel",
                           .product(name: "ArgumentParser", package: "swift-argument-parser"),
                           .product(name: "NIOCore", package: "swift-nio")]
        ),
        // The tests' one rule for OpenGL (GLPolicy): a test that needs a context fails without one
        // unless MOLSHOT_ALLOW_NO_GL=1.
        .target(name: "TestSupport", dependencies: ["Graphics"], path: "Tests/TestSupport"),
        .testTarget(name: "CoreTests", dependencies: ["Core", "TestSupport"]),
        .testTarget(name: "SceneTests", dependencies: ["Scene"]),
        .testTarget(name: "StructureTests", dependencies: ["Structure", "Core", "TestSupport"]),
        .testTarget(name: "DensityTests", dependencies: ["Density", "Core"]),
        .testTarget(name: "PathwayTests", dependencies: ["TestSupport", "PathwayModel", "Imaging", "Pathways", "Graphics", "Text", "Core"]),
        .testTarget(name: "LibraryTests", dependencies: ["Library", "Structure", "Core"]),
        .testTarget(name: "GraphicsTests", dependencies: ["TestSupport", "Imaging", "Core", "Graphics"]),
        .testTarget(name: "RenderTests", dependencies: ["TestSupport", "Imaging", "Core", "MoleculeView", "Density", "Graphics", "Scene", "Structure"]),
        .testTarget(name: "GestureTests", dependencies: ["TestSupport", "Core", "Imaging", "Gestures", "Pathways", "PathwayModel", "MoleculeView", "Structure", "Graphics", "Scene"]),
        .testTarget(name: "ThumbnailTests", dependencies: ["TestSupport", "Imaging", "Thumbnails", "MoleculeView", "Structure", "Graphics", "Scene"]),
        .testTarget(name: "ServiceTests", dependencies: ["TestSupport", "PathwayModel", "Imaging", "MoleculeView", "Service", "Library", "Structure", "Graphics", "Core", "Gestures", "Pathways",
                                                         .product(name: "Hummingbird", package: "hummingbird"),
                                                         .product(name: "NIOCore", package: "swift-nio"),
                                                         .product(name: "NIOEmbedded", package: "swift-nio"),
                                                         .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "MolshotCLITests", dependencies: ["TestSupport", "Service", "Imaging", "molshot", "Graphics", "LiveClient"]),
    ]
)
