import Foundation
import XCTest

/// A test case whose every test gets a folder of its own (`work`), made before the test and removed after it: tests
/// run side by side in separate processes, so no two share a file name.
class FolderTestCase: XCTestCase {
    private(set) var work: URL!

    override func setUpWithError() throws {
        work = FileManager.default.temporaryDirectory.appendingPathComponent("sdrify-\(type(of: self))-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: work) }

    /// A path inside `work`.
    func file(_ name: String) -> String { work.appendingPathComponent(name).path }
}
