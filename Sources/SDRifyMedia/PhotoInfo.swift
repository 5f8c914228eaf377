import CFFmpeg
import Foundation
import SDRifyProbe
import SDRifyValues

/// What `sdrify probe` says of a photo (a still, not a video): its format and coding, its upright size, its
/// colour, what a HEIF file holds besides the picture (grid, gain map, alpha, depth), and the movie of a motion
/// photo.
package struct PhotoInfo: Sendable {
    package var path: String
    var format: String  // "heif", "avif", or FFmpeg's codec name (mjpeg, png, webp…)
    var codec: String
    package var width: Int, height: Int  // upright
    package var hdr: HDRKind
    var notes: [String] = []
    var motion: MotionPhoto? = nil
    var movieDuration: Double? = nil

    package var json: JSONValue {
        .object([
            (
                "photo",
                .object([
                    ("format", .string(format)), ("codec", .string(codec)), ("width", .int(Int64(width))), ("height", .int(Int64(height))),
                    ("hdr", .string(hdr.rawValue)), ("holds", .array(notes.map { .string($0) })),
                    (
                        "motion_photo",
                        motion.map { m in
                            .object([
                                ("format", .string(m.format)), ("offset", .int(Int64(m.offset))), ("length", .int(Int64(m.length))),
                                ("duration", .number(movieDuration))
                            ])
                        } ?? .null
                    )
                ])
            )
        ])
    }

    package var summary: String {
        let kind = format == codec ? format : "\(format), \(codec)"
        var line = "\(path): photo (\(kind)), \(width)x\(height) upright, \(hdr.rawValue.uppercased())"
        if !notes.isEmpty { line += "; holds: " + notes.joined(separator: ", ") }
        if let m = motion {
            line += "\n  motion photo (\(m.format)): a movie of \(m.length) bytes"
            if let d = movieDuration { line += String(format: ", %.3f s", d) }
            line += " (compose shows it with \"motion\": true; convert converts it)"
        }
        return line
    }
}

extension Prober {
    /// What a JPEG's gain map is, as probe lists it: Ultra HDR's `hdrgm` XMP or ISO 21496-1 with its headroom, or a
    /// second picture the MPF index calls the gain map without either (Apple's, headroom in its maker notes).
    static func gainMapNote(jpeg path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path), data.count < 256 << 20 else { return nil }
        do {
            let found = try GainMapJPEG.read([UInt8](data))
            let headroom = pow(2, found.metadata.hdrCapacityMax)
            return String(format: "gain map (Ultra HDR / ISO 21496-1, up to ×%.2f over SDR white)", headroom)
        } catch GainMapJPEGError.noMetadata {
            return "gain map (a second picture, its headroom not in hdrgm or ISO 21496-1 metadata)"
        } catch {
            return nil
        }
    }

    /// The photo `path` is, or nil when it is not a still (a video, or nothing readable: the caller's usual errors).
    package static func photo(path: String) throws -> PhotoInfo? {
        var info: PhotoInfo
        if HEIFDecoder.isHEIF(path: path) {
            let picture = try HEIFDecoder.decode(path: path, maxPixels: 1 << 30)
            let (w, h) = picture.orientation.uprightSize(width: picture.frame.width, height: picture.frame.height)
            let avif = picture.brands.contains("avif")
            info = PhotoInfo(
                path: path, format: avif ? "avif" : "heif", codec: picture.codec, width: w, height: h,
                hdr: picture.color.hdrKind,
                notes: picture.notes + (picture.orientation == .up ? [] : ["orientation EXIF \(picture.orientation.rawValue)"]))
        } else {
            guard let demuxer = try? Demuxer(path: path), MediaInspector.isStillImage(demuxer) else { return nil }
            let codec = String(cString: avcodec_get_name(demuxer.videoStream.pointee.codecpar.pointee.codec_id))
            let upright = try ImageDecoder.decode(path: path, maxPixels: 1 << 30, firstOnly: true)[0]
            let name = codec == "mjpeg" ? "jpeg" : codec
            info = PhotoInfo(path: path, format: name, codec: name, width: upright.width, height: upright.height, hdr: .sdr)
            if name == "jpeg", let note = gainMapNote(jpeg: path) { info.notes.append(note) }
        }
        if let movie = try MotionPhoto.find(path: path) {
            info.motion = movie
            info.movieDuration = (try? Prober.probe(path: movie.movieURL(path)))?.format.duration?.seconds
        }
        return info
    }
}
