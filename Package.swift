// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "sdrify",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "sdrify", targets: ["sdrify"]),
        .library(name: "SDRify", targets: ["SDRify"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0")
    ],
    targets: [
        // C libraries from Debian bookworm (scripts/setup installs them).
        .systemLibrary(
            name: "CFFmpeg",
            path: "Sources/CFFmpeg",
            pkgConfig: "libavformat",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev", "libswscale-dev", "libswresample-dev"])]
        ),
        .systemLibrary(
            name: "CZimg",
            path: "Sources/CZimg",
            pkgConfig: "zimg",
            providers: [.apt(["libzimg-dev"])]
        ),
        .systemLibrary(
            name: "CAss",
            path: "Sources/CAss",
            pkgConfig: "libass",
            providers: [.apt(["libass-dev"])]
        ),
        .systemLibrary(
            name: "CRubberBand",
            path: "Sources/CRubberBand",
            pkgConfig: "rubberband",
            providers: [.apt(["librubberband-dev"])]
        ),
        .systemLibrary(
            name: "CEbur128",
            path: "Sources/CEbur128",
            pkgConfig: "libebur128",
            providers: [.apt(["libebur128-dev"])]
        ),
        // Our own hot per-pixel kernels (auto-vectorised C with an AVX2 clone); see include/sdrify_kernels.h.
        .target(
            name: "CKernels",
            cSettings: [.unsafeFlags(["-O3", "-fno-math-errno"])]
        ),
        // Process containment: the seccomp sandbox and the output helper (see include/sdrify_system.h).
        .target(name: "CSystem"),
        // Our own bitstream checks: H.264 and HEVC slice data parsed to its end (see include/sdrify_slice_check.h).
        .target(
            name: "CBitstream",
            cSettings: [.unsafeFlags(["-O3"])]
        ),
        .target(
            name: "SDRify",
            dependencies: ["CFFmpeg", "CZimg", "CAss", "CRubberBand", "CEbur128", "CKernels", "CSystem", "CBitstream"],
            swiftSettings: []
        ),
        .executableTarget(
            name: "sdrify",
            dependencies: ["SDRify", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        // Measurement code shared by the tests and the benchmark/comparison tools (CIEDE2000, round trip).
        .target(name: "SDRifyMeasure", swiftSettings: [.unsafeFlags(["-Ounchecked"], .when(configuration: .release))]),
        .executableTarget(name: "sdrify-bench", dependencies: ["SDRify", "SDRifyMeasure"]),
        .executableTarget(name: "sdrify-fuzz", dependencies: ["SDRify"]),
        // libFuzzer targets for the Swift parsers (scripts/fuzz swift); a plain build replays files through them.
        .executableTarget(name: "sdrify-fuzz-parsers", dependencies: ["SDRify"]),
        .testTarget(name: "SDRifyTests", dependencies: ["SDRify", "SDRifyMeasure"]),
        .testTarget(name: "CLITests", dependencies: ["sdrify", "SDRify", "SDRifyMeasure"])
    ]
)
