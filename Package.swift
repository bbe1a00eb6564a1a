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
    ],
    targets: [
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .target(name: "Structure", dependencies: ["CZlib"]),
        .executableTarget(
            name: "molshot",
            dependencies: ["Structure", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .testTarget(name: "StructureTests", dependencies: ["Structure"]),
        .testTarget(name: "MolshotCLITests", dependencies: ["molshot"]),
    ]
)
