import Foundation
import SDRifyCaptions
import SDRifyLayers
import SDRifyMedia
import SDRifyPresets
import SDRifyProbe
import SDRifyTimeline

/// Every parser of untrusted bytes written in this project, reachable from one place for the fuzz targets
/// (`Sources/sdrify-fuzz-parsers`, `scripts/fuzz swift`). Each takes any bytes: a thrown error is the expected answer
/// to a bad file and is dropped here; a crash, a hang or a sanitizer report is a finding. Parsers that read a file
/// by path get the bytes written to a scratch file first.
package enum ParserEntryPoint: String, CaseIterable, Sendable {
    case doviRPU = "dovi-rpu"
    case sei, gpmf, mebx
    case boxes  // top-level boxes, the movie structure, edit lists, the 'mebx' key tables
    case srt, webvtt, ass, ttml, scc, lrc
    case captions  // a caption file of any kind, told apart by its content
    case timeline, overlay, gpx
    case slowMotion = "slow-motion"  // the smta box and the SEF trailer of a slow-motion recording
    case temporalLayers = "temporal-layers"  // a packet's temporal layer and reference mark (H.264 SVC prefix, HEVC)
    case heif  // a HEIF file's item structure: items, locations, references, properties, a grid, each item's bytes
    case motionPhoto = "motion-photo"  // where a motion photo's movie lies (XMP, SEF trailer, 'mpvd')
    case av1SequenceHeader = "av1-sequence-header"  // an AV1 sequence header OBU, bare or in an av1C record
    case gainMapJPEG = "gain-map-jpeg"  // a JPEG with a gain map: MPF index, XMP container, hdrgm XMP, ISO 21496-1
    case outputMark = "output-mark"  // sdrify's mark found in a file that is there (movie, JPEG, PNG, WebP), and stamped

    /// The extension of the scratch file (what the CLI would be given), nil for parsers of bytes in memory.
    var fileExtension: String? {
        switch self {
        case .doviRPU, .sei, .gpmf, .mebx, .srt, .webvtt, .ass, .scc, .lrc, .temporalLayers, .av1SequenceHeader, .gainMapJPEG: nil
        case .boxes, .slowMotion, .outputMark: "mp4"
        case .heif: "heic"
        case .motionPhoto: "jpg"
        case .ttml: "ttml"
        case .captions: "srt"
        case .timeline, .overlay: "json"
        case .gpx: "gpx"
        }
    }

    package func parse(_ bytes: [UInt8]) {
        guard let ext = fileExtension else { return parseInMemory(bytes) }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sdrify-parse-\(getpid()).\(ext)").path
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else { return }
        defer { try? FileManager.default.removeItem(atPath: path) }
        parseFile(path, bytes)
    }

    private func parseInMemory(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        switch self {
        case .doviRPU:
            _ = DolbyVisionLevel1.read(rpu: bytes)
        case .sei:
            // The first byte picks what the container would say: codec and NAL length size (or start codes).
            let mode = bytes.first ?? 0, rest = Array(bytes.dropFirst())
            let codec: SEIReader.Codec = mode & 1 == 0 ? .h264 : .hevc
            _ = SEIReader.lengthSize(codec: codec, extradata: rest)
            _ = SEIReader(codec: codec, lengthSize: [nil, 1, 2, 4][Int(mode >> 1) & 3]).read(rest)
        case .gpmf:
            _ = GPMF.values(Data(bytes), duration: 1)
        case .mebx:
            // One key for each data type the decoder knows (and one it does not), local IDs 1…
            let types: [UInt32?] = [1, 23, 24, 65, 66, 67, 74, 75, 76, 77, 78, 70, 71, 72, 99, nil]
            let keys = types.enumerated().map { n, type in
                QuickTimeMetadata.Key(
                    id: UInt32(n + 1), namespace: "mdta", name: n == 0 ? "com.apple.quicktime.location.ISO6709" : "key\(n)", dataType: type)
            }
            _ = QuickTimeMetadata.values(Data(bytes), keys: keys)
        case .srt, .webvtt:
            _ = SubtitleParser.cues(self == .webvtt ? "WEBVTT\n\n" + text : text)
        case .ass:
            _ = ASSReader.cues(text)
        case .scc:
            _ = try? SCCReader.cues(text, path: "fuzz.scc")
        case .temporalLayers:
            // The first byte picks the codec and the NAL length size (or start codes), as the stream's record would.
            let mode = bytes.first ?? 0, rest = Array(bytes.dropFirst())
            let layers = TemporalLayers(hevc: mode & 1 == 1, lengthSize: [nil, 1, 2, 4][Int(mode >> 1) & 3])
            _ = rest.withUnsafeBufferPointer { layers.picture($0) }
        case .av1SequenceHeader:
            _ = AV1SequenceHeader(bytes)?.codecString
        case .gainMapJPEG:
            if let found = try? GainMapJPEG.read(bytes) { _ = found.metadata.hdr(sdr: 0.5, stored: 0.5, channel: 0, headroom: 1) }
        case .lrc:
            _ = LRC.looksLike(Substring(text))
            if let cues = try? LRC.cues(text, path: "fuzz.lrc") { _ = LRC.text(cues) }
        default:
            break
        }
    }

    private func parseFile(_ path: String, _ bytes: [UInt8]) {
        switch self {
        case .boxes:
            _ = MovieStructure.problem(path: path)
            _ = MovieStructure.externalVideoData(path: path)
            _ = EditList.segments(path: path, trackID: 1)
            _ = TopLevelBoxes(path: path)?.indexedEnd(path: path)
            _ = QuickTimeMetadata(path: path).keys
        case .ttml:
            _ = try? TimedTextReader.cues(Data(bytes), path: path)
        case .captions:
            _ = try? CaptionFile.cues(path)
        case .timeline:
            _ = try? Timeline.load(jsonFile: path, base: OutputSpec(path: "fuzz-output.mp4", preset: ExportPreset.named(ExportPreset.defaultName)!))
        case .overlay:
            _ = try? OverlaySpec.load(jsonFile: path)
        case .gpx:
            _ = try? DataSeries.gpx(path)
        case .slowMotion:
            _ = SlowMotion.read(path: path, captureTag: "240.000000")?.flattening
        case .heif:
            guard let file = try? HEIFFile(data: Data(bytes)) else { return }
            for (id, item) in file.items {
                _ = try? file.data(of: id, limit: 1 << 20)
                if item.type == "grid" { _ = try? file.grid(id) }
            }
        case .motionPhoto:
            _ = try? MotionPhoto.find(path: path)
        case .outputMark:
            _ = OutputMark.isMarked(path: path)
            _ = OutputMark.stamped(bytes)
        default:
            break
        }
    }
}
