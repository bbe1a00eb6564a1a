import Foundation
import Resources

/// Finds the `Assets/` folder (element table, bond templates, fonts, samples); see `ResourceLocator`.
/// `$MOLSHOT_ASSETS` overrides.
public enum Assets {
    public static let directory: URL? = ResourceLocator.find("Assets", marker: "elements.tsv", environment: "MOLSHOT_ASSETS")

    public static func url(_ name: String) throws -> URL {
        guard let dir = directory else {
            throw StructureError(file: name, line: nil, message: "Molshot's Assets folder was not found; set MOLSHOT_ASSETS to it")
        }
        return dir.appendingPathComponent(name)
    }
}
