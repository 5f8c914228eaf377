import Foundation
import XCTest

/// scripts/package: the Debian package builds, says what it needs, and its unpacked binary (Swift runtime inside)
/// converts a sample; scripts/install, which it uses, put the man page and completions in it. scripts/test builds the
/// package once for this test and the image test (SDRIFY_TEST_DEB); run alone, the test builds it.
final class PackagingTests: CLITestCase {
    func testDebianPackageUnpacksAndConverts() throws {
        var deb = ProcessInfo.processInfo.environment["SDRIFY_TEST_DEB"] ?? ""
        if deb.isEmpty || !FileManager.default.fileExists(atPath: deb) {
            let build = try Support.run(Support.packageRoot.appendingPathComponent("scripts/package").path, ["--fast", file("deb")])
            XCTAssertEqual(build.status, 0, build.stderr)
            deb = build.stdout.split(whereSeparator: \.isNewline).last.map(String.init) ?? ""
        }
        XCTAssertNotNil(deb.range(of: #"/sdrify_\d+\.\d+\.\d+_[a-z0-9]+\.deb$"#, options: .regularExpression), deb)

        let field = { (name: String) throws -> String in
            let r = try Support.run("/usr/bin/dpkg-deb", ["-f", deb, name])
            XCTAssertEqual(r.status, 0, r.stderr)
            return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        XCTAssertEqual(try field("Package"), "sdrify")
        let depends = try field("Depends")
        for library in [
            "libavformat59", "libavcodec59", "libavutil57", "libswscale6", "libswresample4", "libzimg2", "libass9",
            "libc6", "fonts-dejavu-core"
        ] {
            XCTAssertTrue(depends.contains(library), "Depends names \(library): \(depends)")
        }
        XCTAssertFalse(depends.contains("swift"), depends)

        let root = file("root")
        let unpack = try Support.run("/usr/bin/dpkg-deb", ["-x", deb, root])
        XCTAssertEqual(unpack.status, 0, unpack.stderr)
        let bin = root + "/usr/bin/sdrify"
        let version = try Support.run(bin, ["--version"])
        XCTAssertEqual(version.status, 0, version.stderr)
        XCTAssertEqual(
            "Version: " + (version.stdout.split(separator: "\n").first?.split(separator: " ").last.map(String.init) ?? "?"),
            "Version: " + (try field("Version")))
        let linked = try Support.run("/usr/bin/ldd", [bin])
        XCTAssertFalse(linked.stdout.contains("libswiftCore"), "the Swift runtime is linked in: \(linked.stdout)")
        XCTAssertFalse(linked.stdout.contains("not found"), linked.stdout)

        let out = file("portrait.mp4")
        let converted = try Support.run(bin, [Support.vector("sample_hlg_portrait.mov"), out, "--preset", "960x540", "--json"])
        XCTAssertEqual(converted.status, 0, converted.stderr)
        let video = Support.streams(try Support.ffprobe(out), "video")[0]
        XCTAssertEqual(video["codec_name"] as? String, "h264")
        XCTAssertEqual(video["color_transfer"] as? String, "bt709")
        XCTAssertLessThan(video["width"] as? Int ?? 0, video["height"] as? Int ?? 0, "upright portrait")

        // What scripts/install adds beside the binary.
        let man = root + "/usr/share/man/man1/sdrify.1.gz"
        let page = try Support.run("/bin/sh", ["-c", "gzip -dc '\(man)'"])
        XCTAssertTrue(page.stdout.contains(".SH SDRIFY CONVERT") && page.stdout.contains("output\\-dir"), "man page from the arguments")
        let bash = try String(contentsOfFile: root + "/usr/share/bash-completion/completions/sdrify", encoding: .utf8)
        XCTAssertTrue(bash.contains("--output-dir"), "bash completion knows the options")
        for path in ["/usr/share/zsh/site-functions/_sdrify", "/usr/share/fish/vendor_completions.d/sdrify.fish", "/usr/share/doc/sdrify/README.md"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: root + path), path)
        }

        // apt resolves what it depends on from bookworm (simulated: nothing is installed on the test machine).
        let apt = try Support.run("/usr/bin/apt-get", ["install", "--simulate", "-q", deb])
        XCTAssertEqual(apt.status, 0, apt.stdout + apt.stderr)
        XCTAssertTrue(apt.stdout.contains("Inst sdrify"), apt.stdout)
    }
}
