import CFFmpeg
import Foundation
import SDRifyProbe
import SDRifySecurity
import SDRifyValues

/// A HEIF file's primary picture (HEIC, AVIF), decoded: its coded pictures (one, or a grid of tiles) decoded by
/// libavcodec from the item's own configuration (`hvcC`/`av1C`) and put together, the clean aperture cut, with its
/// colour (the `nclx` property, else the bitstream's) and its orientation (`irot`/`imir`, in the order given).
/// Auxiliary pictures (alpha, depth, gain maps, Apple's `tmap`) and thumbnails are not read: a gain-map photo shows
/// its SDR base, as every viewer without gain-map support does.
struct HEIFPicture {
    let frame: Frame  // planar Y'CbCr or grey, coded orientation
    let format: PlanarFormat
    package let color: ColorDescription
    let orientation: Orientation
    let codec: String  // hevc, av1
    let brands: [String]  // the file's (avif, heic, mif1…)
    /// What the file holds besides the picture, for probe: "grid 8x6", "gain map", "alpha", "depth", "tmap"…
    let notes: [String]
}

package enum HEIFDecoder {
    /// Whether the file starts as a HEIF still (its `ftyp`).
    static func isHEIF(path: String) -> Bool {
        guard let h = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? h.close() }
        return HEIFFile.looksLike((try? h.read(upToCount: 64)) ?? Data())
    }

    /// The primary picture's size as it is stored (before its turns), read from the headers alone.
    package static func size(path: String) throws -> (width: Int, height: Int) {
        guard let data = FileManager.default.contents(atPath: path) else { throw SDRifyError.invalidInput("\(path): cannot read this image") }
        do {
            let heif = try HEIFFile(data: data)
            guard let item = heif.items[heif.primary] else { throw HEIFFile.failure("no primary item") }
            if item.type == "grid" {
                let g = try heif.grid(item.id)
                return (g.width, g.height)
            }
            guard let size = item.size else { throw HEIFFile.failure("the primary picture has no size ('ispe')") }
            return size
        } catch let e as SDRifyError {
            throw SDRifyError(e.status, "\(path): \(e.message)")
        }
    }

    static func decode(path: String, maxPixels: Int) throws -> HEIFPicture {
        guard let data = FileManager.default.contents(atPath: path) else { throw SDRifyError.invalidInput("\(path): cannot read this image") }
        guard data.count <= HEIFFile.maxBytes else { throw SDRifyError.unsupported("\(path): a HEIF file larger than sdrify reads") }
        do {
            return try decode(HEIFFile(data: data), path: path, maxPixels: maxPixels)
        } catch let e as SDRifyError {
            throw SDRifyError(e.status, e.message.hasPrefix(path) ? e.message : "\(path): \(e.message)")
        }
    }

    /// The primary picture's planes as stored (coded orientation), or with `auxiliary` those of its auxiliary
    /// picture whose type (`auxC`) contains it (Apple's gain map: `urn:com:apple:photo:2020:aux:hdrgainmap`); nil when
    /// the file has no such picture. For measuring tools.
    package static func planes(path: String, auxiliary urn: String? = nil, maxPixels: Int = 1 << 28) throws -> (
        planes: [[UInt8]], width: Int, height: Int, pixelFormat: String, color: ColorDescription
    )? {
        guard let data = FileManager.default.contents(atPath: path) else { throw SDRifyError.invalidInput("\(path): cannot read this image") }
        let heif = try HEIFFile(data: data)
        var id = heif.primary
        if let urn {
            let found = heif.items.values.first { item in
                item.references["auxl"]?.contains(heif.primary) == true
                    && item.properties.contains { if case .auxC(let type) = $0 { type.contains(urn) } else { false } }
            }
            guard let found else { return nil }
            id = found.id
        }
        let picture = try decode(heif, path: path, maxPixels: maxPixels, item: id)
        return (picture.frame.planeBytes(picture.format), picture.frame.width, picture.frame.height, picture.frame.pixelFormatName, picture.color)
    }

    /// The primary picture, or the item `id`.
    static func decode(_ heif: HEIFFile, path: String, maxPixels: Int, item id: UInt32? = nil) throws -> HEIFPicture {
        guard let item = heif.items[id ?? heif.primary] else { throw HEIFFile.failure("no primary item") }
        var notes: [String] = []
        let frame: Frame
        switch item.type {
        case "hvc1", "av01":
            guard let size = item.size else { throw HEIFFile.failure("the primary picture has no size ('ispe')") }
            try check(size, maxPixels: maxPixels, path: path)
            var d = try TileDecoder(item, label: path)
            frame = try d.decode([try heif.data(of: item.id)])[0]
        case "grid":
            let grid = try heif.grid(item.id)
            try check((grid.width, grid.height), maxPixels: maxPixels, path: path)
            let tiles = item.references["dimg"] ?? []
            guard tiles.count == grid.rows * grid.columns else {
                throw HEIFFile.failure("a \(grid.columns)x\(grid.rows) grid with \(tiles.count) tiles")
            }
            notes.append("grid \(grid.columns)x\(grid.rows)")
            frame = try assemble(heif, grid: grid, tiles: tiles, label: path)
        case "iden", "iovl":
            throw SDRifyError.unsupported("\(path): a HEIF picture derived as '\(item.type)' (sdrify reads coded pictures and grids)")
        default:
            throw SDRifyError.unsupported("\(path): a HEIF picture coded as '\(item.type)' (sdrify reads HEVC and AV1)")
        }
        guard let format = frame.format else { throw SDRifyError.unsupported("\(path): pixel format \(frame.pixelFormatName)") }
        var color = frame.color
        for case .nclx(let p, let t, let m, let full) in item.properties {
            color.primaries = ColorPrimaries(rawValue: Int32(p)) ?? .unspecified
            color.transfer = TransferCharacteristic(rawValue: Int32(t)) ?? .unspecified
            color.matrix = MatrixCoefficients(rawValue: Int32(m)) ?? .unspecified
            color.range = full ? .full : .limited
        }
        if item.properties.contains(where: { if case .icc = $0 { true } else { false } }) { notes.append("ICC profile") }
        // Transformative properties apply in the order the item lists them: the clean aperture, then turns and mirrors.
        var cropped = frame
        var orientation = Orientation.up
        for p in item.properties {
            switch p {
            case .clap(let w, let h, let dx, let dy):
                cropped = try cleanAperture(cropped, format: format, width: w, height: h, dx: dx, dy: dy)
            case .irot(let quarters):
                orientation = orientation.then(Orientation(rotate: (4 - quarters) % 4 * 90, flip: nil) ?? .up)
            case .imir(let leftRight):
                orientation = orientation.then(Orientation(rotate: 0, flip: leftRight ? .horizontal : .vertical) ?? .up)
            default: continue
            }
        }
        // What refers to the picture: auxiliary pictures by their type's URN, Apple's and ISO's gain-map derivation.
        for (id, other) in heif.items where id != item.id {
            if other.type == "tmap", other.references["dimg"]?.contains(item.id) == true { notes.append("tmap (ISO 21496-1 gain map)") }
            guard other.references["auxl"]?.contains(item.id) == true else { continue }
            for case .auxC(let urn) in other.properties {
                let kind =
                    urn.contains("alpha")
                    ? "alpha"
                    : urn.contains("depth") ? "depth" : urn.contains("gainmap") ? "gain map" : urn.contains("matte") ? "matte" : "auxiliary picture"
                notes.append(kind)
            }
        }
        let coded = item.type == "grid" ? heif.items[item.references["dimg"]?.first ?? 0]?.type : item.type
        return HEIFPicture(
            frame: cropped, format: format, color: color, orientation: orientation, codec: coded == "av01" ? "av1" : "hevc",
            brands: heif.brands, notes: Array(Set(notes)).sorted())
    }

    private static func check(_ size: (Int, Int), maxPixels: Int, path: String) throws {
        try Limits.checkPicture(width: size.0, height: size.1, in: path)
        guard size.0 > 0, size.1 > 0 else { throw HEIFFile.failure("a picture of \(size.0)x\(size.1)") }
        guard size.0 * size.1 <= maxPixels else {
            throw SDRifyError.unsupported("\(path): image size \(size.0)x\(size.1) is larger than sdrify takes here")
        }
    }

    /// The tiles of a grid, decoded in row order and copied into one picture of the grid's size (the right and
    /// bottom tiles cut at its edge).
    private static func assemble(_ heif: HEIFFile, grid: HEIFFile.Grid, tiles: [UInt32], label: String) throws -> Frame {
        guard let first = heif.items[tiles[0]] else { throw HEIFFile.failure("tile \(tiles[0]) is not described") }
        var decoder = try TileDecoder(first, label: label)
        let frames = try decoder.decode(
            try tiles.map { id in
                guard heif.items[id]?.type == first.type, heif.items[id]?.configuration == first.configuration else {
                    throw SDRifyError.unsupported("\(label): grid tiles coded differently from each other")
                }
                return try heif.data(of: id)
            })
        guard let format = frames[0].format else { throw SDRifyError.unsupported("\(label): pixel format \(frames[0].pixelFormatName)") }
        let tw = frames[0].width, th = frames[0].height
        guard tw * grid.columns >= grid.width, th * grid.rows >= grid.height else {
            throw HEIFFile.failure("\(grid.columns)x\(grid.rows) tiles of \(tw)x\(th) do not cover \(grid.width)x\(grid.height)")
        }
        let out = try Frame(width: grid.width, height: grid.height, format: format)
        out.color = frames[0].color
        for (n, tile) in frames.enumerated() {
            guard tile.width == tw, tile.height == th, tile.format == format else { throw HEIFFile.failure("grid tiles of different sizes") }
            let x = n % grid.columns * tw, y = n / grid.columns * th
            for p in 0..<format.planeCount {
                let sx = p == 0 ? 0 : format.chromaShiftX, sy = p == 0 ? 0 : format.chromaShiftY
                let (pw, ph) = format.planeSize(p, width: grid.width, height: grid.height)
                let px = x >> sx, py = y >> sy
                let w = min(format.planeSize(p, width: tw, height: th).width, pw - px),
                    h = min(format.planeSize(p, width: tw, height: th).height, ph - py)
                guard w > 0, h > 0 else { continue }
                let bytes = format.bytesPerSample
                for row in 0..<h {
                    (out.data(p) + (py + row) * out.stride(p) + px * bytes).copyMemory(
                        from: tile.data(p) + row * tile.stride(p), byteCount: w * bytes)
                }
            }
        }
        return out
    }

    /// The clean aperture (`clap`): a centred window, moved by its offsets, rounded to whole chroma samples.
    private static func cleanAperture(_ frame: Frame, format: PlanarFormat, width: Double, height: Double, dx: Double, dy: Double) throws -> Frame {
        let W = Double(frame.width), H = Double(frame.height)
        let stepX = 1 << format.chromaShiftX, stepY = 1 << format.chromaShiftY
        var left = Int(((W - width) / 2 + dx).rounded()), top = Int(((H - height) / 2 + dy).rounded())
        left -= left % stepX; top -= top % stepY
        let w = Int(width.rounded()), h = Int(height.rounded())
        guard width.isFinite, height.isFinite, left >= 0, top >= 0, w > 0, h > 0, left + w <= frame.width, top + h <= frame.height else {
            throw HEIFFile.failure("a clean aperture outside the picture")
        }
        if left == 0, top == 0, w == frame.width, h == frame.height { return frame }
        let out = try Frame(width: w, height: h, format: format)
        out.color = frame.color
        for p in 0..<format.planeCount {
            let sx = p == 0 ? 0 : format.chromaShiftX, sy = p == 0 ? 0 : format.chromaShiftY
            let (pw, ph) = format.planeSize(p, width: w, height: h)
            for row in 0..<ph {
                (out.data(p) + row * out.stride(p)).copyMemory(
                    from: frame.data(p) + ((top >> sy) + row) * frame.stride(p) + (left >> sx) * format.bytesPerSample,
                    byteCount: pw * format.bytesPerSample)
            }
        }
        return out
    }
}

extension HEIFFile.Item {
    package var size: (Int, Int)? {
        for case .ispe(let w, let h) in properties { return (w, h) }
        return nil
    }
    /// The decoder configuration (`hvcC`/`av1C`) bytes.
    var configuration: Data? {
        for p in properties {
            switch p {
            case .hvcC(let d), .av1C(let d): return d
            default: continue
            }
        }
        return nil
    }
}

/// One libavcodec decoder for coded HEIF pictures of one configuration: each item's data is one packet.
private struct TileDecoder {
    let ctx: UnsafeMutablePointer<AVCodecContext>
    let label: String

    init(_ item: HEIFFile.Item, label: String) throws {
        self.label = label
        let id: AVCodecID
        switch item.type {
        case "hvc1": id = AV_CODEC_ID_HEVC
        case "av01": id = AV_CODEC_ID_AV1
        default: throw SDRifyError.unsupported("\(label): HEIF tiles coded as '\(item.type)'")
        }
        guard let config = item.configuration else { throw HEIFFile.failure("a coded picture without its configuration ('hvcC'/'av1C')") }
        guard let codec = avcodec_find_decoder(id) else { throw SDRifyError.unsupported("\(label): no decoder for '\(item.type)' here") }
        guard let c = avcodec_alloc_context3(codec), let extra = av_mallocz(config.count + Int(AV_INPUT_BUFFER_PADDING_SIZE)) else {
            throw SDRifyError.conversion("out of memory")
        }
        ctx = c
        config.withUnsafeBytes { extra.copyMemory(from: $0.baseAddress!, byteCount: config.count) }
        c.pointee.extradata = extra.assumingMemoryBound(to: UInt8.self)
        c.pointee.extradata_size = Int32(config.count)
        c.pointee.err_recognition = AV_EF_CRCCHECK | AV_EF_BITSTREAM | AV_EF_BUFFER | AV_EF_CAREFUL
        if let cap = Limits.current.maxPixels { c.pointee.max_pixels = Int64(cap) }
        c.pointee.thread_count = 0
        c.pointee.thread_type = FF_THREAD_FRAME | FF_THREAD_SLICE  // tiles are independent pictures: decoded side by side
        let r = avcodec_open2(c, codec, nil)
        guard r >= 0 else {
            var p: UnsafeMutablePointer<AVCodecContext>? = c
            avcodec_free_context(&p)
            throw SDRifyError.invalidInput("\(label): damaged HEIF image: its decoder configuration (\(ffErrorString(r)))")
        }
    }

    /// Every picture, one per packet, in order; a packet that gives no picture is damage.
    mutating func decode(_ packets: [Data]) throws -> [Frame] {
        defer {
            var p: UnsafeMutablePointer<AVCodecContext>? = ctx
            avcodec_free_context(&p)
        }
        let packet = try Packet()
        var frames: [Frame] = []
        func receive() throws {
            while true {
                let frame = try Frame()
                let r = avcodec_receive_frame(ctx, frame.av)
                if r == ffEAGAIN || r == ffEOF { return }
                guard r >= 0 else { throw SDRifyError.invalidInput("\(label): damaged HEIF image (\(ffErrorString(r)))") }
                guard frame.av.pointee.decode_error_flags == 0, frame.av.pointee.flags & AV_FRAME_FLAG_CORRUPT == 0 else {
                    throw SDRifyError.invalidInput("\(label): damaged HEIF image (a picture decodes with errors)")
                }
                frames.append(frame)
            }
        }
        for data in packets {
            guard !data.isEmpty else { throw SDRifyError.invalidInput("\(label): damaged HEIF image (a picture without data)") }
            try ffCheck(av_new_packet(packet.av, Int32(data.count)), "\(label): a packet")
            data.withUnsafeBytes { packet.av.pointee.data.update(from: $0.bindMemory(to: UInt8.self).baseAddress!, count: data.count) }
            packet.av.pointee.flags |= AV_PKT_FLAG_KEY
            let s = avcodec_send_packet(ctx, packet.av)
            av_packet_unref(packet.av)
            guard s >= 0 || s == ffEAGAIN else { throw SDRifyError.invalidInput("\(label): damaged HEIF image (\(ffErrorString(s)))") }
            try receive()
        }
        avcodec_send_packet(ctx, nil)
        try receive()
        guard frames.count == packets.count else {
            throw SDRifyError.invalidInput("\(label): damaged HEIF image (\(frames.count) of \(packets.count) pictures decode)")
        }
        return frames
    }
}
