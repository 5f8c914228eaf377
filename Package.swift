// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "sdrify",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "sdrify", targets: ["sdrify"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // sdrify tap's page server: small, no SwiftNIO (BENCHMARKS.md: what it adds to a clean build).
        .package(url: "https://github.com/swhitty/FlyingFox", from: "0.27.1")
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
        // The library, one target per layer, bottom to top: a target depends only on targets above it in this
        // list, so a reference upward does not compile (docs/ARCHITECTURE.md; scripts/check-architecture).
        .target(name: "SDRifyValues"),
        .target(name: "SDRifySecurity", dependencies: ["SDRifyValues", "CSystem", "CKernels"]),
        .target(name: "SDRifyProbe", dependencies: ["SDRifyValues"]),
        .target(name: "SDRifyCaptions", dependencies: ["SDRifyProbe"]),
        // Files written whole or not at all, and the signals that must not leave half of one: no FFmpeg under it.
        .target(name: "SDRifyFiles", dependencies: ["SDRifySecurity", "SDRifyCaptions", "CSystem"]),
        .target(
            name: "SDRifyMedia",
            dependencies: ["SDRifyValues", "SDRifySecurity", "SDRifyProbe", "CFFmpeg", "CRubberBand", "CEbur128", "CBitstream"]
        ),
        .target(name: "SDRifyPresets", dependencies: ["SDRifyMedia"]),
        .target(name: "SDRifyToneMap", dependencies: ["SDRifyMedia", "CZimg", "CKernels"]),
        .target(name: "SDRifyLayers", dependencies: ["SDRifyCaptions", "SDRifyMedia", "CAss"]),
        .target(name: "SDRifyTimeline", dependencies: ["SDRifyLayers", "SDRifyPresets", "SDRifyToneMap"]),
        .target(name: "SDRifyAudio", dependencies: ["SDRifyTimeline"]),
        .target(name: "SDRifyOutput", dependencies: ["SDRifyAudio", "SDRifyFiles"]),
        .target(name: "SDRifyRender", dependencies: ["SDRifyOutput", "CKernels"]),
        // The entry points: convert, compose, hls, the stills, captions, the scene survey.
        .target(name: "SDRify", dependencies: ["SDRifyRender"]),
        .target(name: "SDRifyTap", dependencies: ["SDRifyFiles", "SDRifyCaptions", .product(name: "FlyingFox", package: "FlyingFox")]),
        // Every parser of untrusted bytes behind one entry, for the fuzz targets.
        .target(name: "SDRifyFuzzing", dependencies: ["SDRifyTimeline"]),
        // The CLI, in Sources/CLI (a folder named sdrify would differ from the library's SDRify only in case).
        .executableTarget(
            name: "sdrify",
            dependencies: ["SDRify", "SDRifyTap", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Sources/CLI"
        ),
        // Measurement code shared by the tests and the benchmark/comparison tools (CIEDE2000, round trip).
        .target(
            name: "SDRifyMeasure", dependencies: ["SDRifyValues"],
            // Optimised in the debug build too: the tests' scenes and scores run in it (the same IEEE arithmetic).
            swiftSettings: [.unsafeFlags(["-Ounchecked"], .when(configuration: .release)), .unsafeFlags(["-O"], .when(configuration: .debug))]),
        .executableTarget(name: "sdrify-bench", dependencies: ["SDRifyRender", "SDRifyMeasure"]),
        .executableTarget(name: "sdrify-fuzz", dependencies: ["SDRifyMedia"]),
        // libFuzzer targets for the Swift parsers (scripts/fuzz swift); a plain build replays files through them.
        .executableTarget(name: "sdrify-fuzz-parsers", dependencies: ["SDRifyFuzzing"]),
        .testTarget(name: "SDRifyTests", dependencies: ["SDRify", "SDRifyFuzzing", "SDRifyMeasure"]),
        .testTarget(name: "CLITests", dependencies: ["sdrify", "SDRify", "SDRifyMeasure"])
    ]
)
