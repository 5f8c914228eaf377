import ArgumentParser
import Foundation
import SDRifyPresets
import SDRifyValues

struct Presets: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the export presets and their encoder settings.")

    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        if json {
            let rows = ExportPreset.all.map { p -> JSONValue in
                .object([
                    ("name", .string(p.name)),
                    ("max_long_edge", p.box.map { .int(Int64($0.long)) } ?? .null),
                    ("max_short_edge", p.box.map { .int(Int64($0.short)) } ?? .null),
                    ("video_codec", .string(p.passthrough ? "copy" : p.codec.rawValue)),
                    ("encoder", p.passthrough ? .null : .string(p.codec.catalog.encoder)),
                    ("profile", p.passthrough ? .null : .string(p.codec.catalog.profile)),
                    ("crf", p.passthrough ? .null : .int(Int64(p.crf))),
                    ("encoder_preset", p.passthrough ? .null : .string(p.encoderSpeed)),
                    ("audio", .string("AAC-LC copied, or transcoded at 48 kHz, 160 kb/s stereo / 96 kb/s mono")),
                    ("default", .bool(p.name == ExportPreset.defaultName)), ("summary", .string(p.summary))
                ])
            }
            print(JSONValue.array(rows).serialized(pretty: true))
        } else {
            for p in ExportPreset.all {
                let mark = p.name == ExportPreset.defaultName ? " (default)" : ""
                let settings = p.passthrough ? "copy" : "crf \(p.crf), \(p.codec.catalog.shortName) \(p.encoderSpeed)"
                print(
                    "\(p.name.padding(toLength: 16, withPad: " ", startingAt: 0)) \(settings.padding(toLength: 22, withPad: " ", startingAt: 0)) \(p.summary)\(mark)"
                )
            }
        }
    }
}
