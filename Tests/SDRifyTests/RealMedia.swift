import Foundation
import XCTest

/// The shared real recordings (../shared/realmedia beside the clone), for the library's tests.
enum RealMedia {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("../shared/realmedia").standardized

    /// The recording's path; nil, after one line saying the test did not run, where the shared media is absent (a
    /// failure where CI requires it: SDRIFY_REALMEDIA=required).
    static func path(_ name: String, test: String = #function, file: StaticString = #filePath, line: UInt = #line) -> String? {
        let path = folder.appendingPathComponent(name).path
        guard !FileManager.default.fileExists(atPath: path) else { return path }
        if ProcessInfo.processInfo.environment["SDRIFY_REALMEDIA"] == "required" {
            XCTFail("\(path) is absent, and SDRIFY_REALMEDIA=required: this test needs ../shared/realmedia beside the clone", file: file, line: line)
        } else {
            print("realmedia: \(test) not run: \(path) is absent (SDRIFY_REALMEDIA=required makes that a failure)")
        }
        return nil
    }
}
