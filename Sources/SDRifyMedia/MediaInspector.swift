import CFFmpeg
import SDRifyProbe
import SDRifySecurity
import SDRifyValues

/// Builds a MediaInfo from an open input: container headers, stream side data, and the first decoded
/// picture for what only the bitstream carries (HDR SEI, display-orientation SEI). Never decodes further.
enum MediaInspector {
    /// `firstPicture`: also decode the first picture for what only the bitstream says (HDR10 SEI, orientation
    /// SEI, untagged colour). The conversion skips it: it reads the same from the first frame it decodes anyway.
    /// `allowTruncated`: a file cut short (or with other header damage) is described rather than refused (see `headerDamage`).
    static func inspect(_ demuxer: Demuxer, firstPicture: Bool = true, allowTruncated: Bool = false) throws -> MediaInfo {
        let ctx = demuxer.ctx
        let st = demuxer.videoStream
        let par = st.pointee.codecpar.pointee
        let path = demuxer.path

        let (w, h) = (Int(par.width), Int(par.height))
        guard w > 0, h > 0 else { throw SDRifyError.invalidInput("\(path): video stream has no picture size") }
        try Limits.checkPicture(width: w, height: h, in: path)
        if let cut = headerDamage(demuxer) {
            // Tolerated, a file cut short is converted as far as it goes; one that holds none of its video is refused.
            guard allowTruncated else { throw SDRifyError.invalidInput(cut) }
            if demuxer.holdsAnyVideoSample == false { throw SDRifyError.invalidInput("\(cut): none of its video is in the file") }
        }
        // probe describes a video this libavcodec cannot decode (AV1 Dolby Vision 'dav1', say); convert refuses it.
        let decodable = avcodec_find_decoder(par.codec_id) != nil
        guard decodable || firstPicture else { throw Decoder.missing(par, label: "\(path): video") }
        if isStillImage(demuxer) {
            let codec = String(cString: avcodec_get_name(par.codec_id))
            throw SDRifyError.photoGivenAsVideo(path, kind: codec == "mjpeg" ? "jpeg" : codec)
        }

        let pixFmt = AVPixelFormat(rawValue: par.format)
        let desc = av_pix_fmt_desc_get(pixFmt)
        // The container's sample aspect ratio ('pasp') wins over the bitstream's VUI, as in ffmpeg.
        let containerSAR = st.pointee.sample_aspect_ratio
        let sar = containerSAR.num > 0 && containerSAR.den > 0 ? containerSAR : par.sample_aspect_ratio
        var video = VideoInfo(
            codec: Demuxer.codecName(st),
            profile: avcodec_profile_name(par.codec_id, par.profile).map { String(cString: $0) },
            width: w, height: h,
            sampleAspectRatio: sar.num > 0 && sar.den > 0 ? (Int(sar.num), Int(sar.den)) : (1, 1),
            pixelFormat: av_get_pix_fmt_name(pixFmt).map { String(cString: $0) } ?? "unknown",
            bitDepth: desc.map { Int($0.pointee.comp.0.depth) } ?? 0,
            frameRate: frameRate(st).map { demuxer.pictureTiming?.agrees(withRate: $0) == false ? demuxer.videoFrameRate.fps : $0 },
            frameCount: st.pointee.nb_frames > 0 ? Int(st.pointee.nb_frames) : nil,
            fieldOrder: fieldOrderName(par.field_order),
            color: ColorMapping.description(
                primaries: par.color_primaries, transfer: par.color_trc,
                matrix: par.color_space, range: par.color_range,
                chroma: par.chroma_location),
            hdrMetadata: containerHDRMetadata(st),
            dolbyVision: dolbyVision(st),
            containerMatrix: displayMatrix(st),
            frameMatrix: nil)
        video.decodable = decodable
        video.nominalFrameRate = frameRate(st) == nil ? nil : demuxer.nominalFrameRate.fps

        if firstPicture && decodable {
            // The SEI probe reports is read from the first access unit without decoding it. A stream with no
            // colour tags at all (a raw bitstream, whose VUI only the decoder reads), or whose layout and profile
            // the short stream analysis did not reach (H.264 without timing information in its SPS), has its
            // first picture decoded.
            if video.color.transfer == .unspecified || par.format < 0 || video.profile == nil,
                let (first, profile) = try firstFrame(demuxer)
            {
                merge(first.hdrMetadata, matrix: first.displayMatrix, into: &video)
                video.color = video.color.filled(from: first.color)
                // As the decoder does: a preferred HDR transfer (SEI) overrides the VUI's.
                if first.color.hdrKind != .sdr { video.color.transfer = first.color.transfer }
                if par.format < 0 {
                    video.pixelFormat = first.pixelFormatName
                    video.bitDepth = first.bitDepth
                }
                video.profile = video.profile ?? profile
            } else if let sei = try firstAccessUnitSEI(demuxer) {
                merge(
                    HDRMetadata(masteringDisplay: sei.masteringDisplay, contentLightLevel: sei.contentLightLevel),
                    matrix: sei.displayMatrix, into: &video)
                // As the decoder does: a preferred HDR transfer overrides the VUI's.
                if let code = sei.preferredTransfer, let t = TransferCharacteristic(rawValue: Int32(code)),
                    t == .aribStdB67 || t == .smpte2084
                {
                    video.color.transfer = t
                }
            }
        }

        var audio: [AudioInfo] = []
        for i in 0..<Int(ctx.pointee.nb_streams) {
            let s = demuxer.stream(i)
            let p = s.pointee.codecpar.pointee
            guard p.codec_type == AVMEDIA_TYPE_AUDIO else { continue }
            audio.append(
                AudioInfo(
                    codec: String(cString: avcodec_get_name(p.codec_id)), sampleRate: Int(p.sample_rate),
                    channels: Int(p.ch_layout.nb_channels), bitRate: p.bit_rate > 0 ? Int(p.bit_rate) : nil,
                    isDefault: i == demuxer.audioStreamIndex))
        }

        let duration = ctx.pointee.duration == ffNoPTS ? nil : MediaTime(ticks: ctx.pointee.duration, .microseconds)
        let size = ctx.pointee.pb.map { avio_size($0) }.flatMap { $0 >= 0 ? $0 : nil }
        let start = ctx.pointee.start_time == ffNoPTS ? nil : MediaTime(ticks: ctx.pointee.start_time, .microseconds)
        let format = FormatInfo(
            name: String(cString: ctx.pointee.iformat.pointee.name), duration: duration, startTime: start, size: size,
            bitRate: ctx.pointee.bit_rate > 0 ? Int(ctx.pointee.bit_rate) : nil)
        var info = MediaInfo(path: path, format: format, video: video, audio: audio)
        info.tracks = (0..<demuxer.trackCount).map(demuxer.track)
        if info.tracks.contains(where: { $0.codecTag == "mebx" }) {
            let table = QuickTimeMetadata(path: path)
            for i in info.tracks.indices where info.tracks[i].codecTag == "mebx" {
                info.tracks[i].metadataKeys = (table.keys[demuxer.containerTrackID(i)] ?? []).map(\.name)
            }
        }
        info.chapters = (0..<Int(ctx.pointee.nb_chapters)).compactMap { i in
            guard let c = ctx.pointee.chapters[i] else { return nil }
            let tb = c.pointee.time_base
            return ChapterInfo(
                start: Double(c.pointee.start) * tb.double, end: Double(c.pointee.end) * tb.double,
                title: tag(c.pointee.metadata, "title"))
        }
        info.tags = tags(ctx.pointee.metadata)
        if info.format.name.contains("mp4") || info.format.name.contains("mov") {
            info.slowMotion = SlowMotion.read(path: path, captureTag: info.tags.first { $0.key == "com.android.capture.fps" }?.value)
        }
        return info
    }

    /// One stream as a track: type, codec, sample entry, handler, language, title, dispositions.
    static func track(_ st: UnsafeMutablePointer<AVStream>, index: Int, main: Bool) -> TrackInfo {
        let par = st.pointee.codecpar.pointee
        let type = av_get_media_type_string(par.codec_type).map { String(cString: $0) } ?? "unknown"
        let tagValue = par.codec_tag
        let fourcc = tagValue == 0 ? nil : String(bytes: (0..<4).map { UInt8((tagValue >> (8 * $0)) & 0xFF) }, encoding: .isoLatin1)
        let d = st.pointee.disposition
        var t = TrackInfo(
            index: index, type: type,
            codec: par.codec_id == AV_CODEC_ID_NONE ? nil : String(cString: avcodec_get_name(par.codec_id)),
            codecTag: fourcc?.trimmingCharacters(in: .controlCharacters), handler: tag(st.pointee.metadata, "handler_name"),
            language: tag(st.pointee.metadata, "language").flatMap { $0 == "und" ? nil : $0 },
            title: tag(st.pointee.metadata, "title"), isDefault: d & AV_DISPOSITION_DEFAULT != 0,
            isForced: d & AV_DISPOSITION_FORCED != 0)
        t.isMain = main
        t.timecode = tag(st.pointee.metadata, "timecode")
        return t
    }

    static func tag(_ dict: OpaquePointer?, _ key: String) -> String? {
        guard let e = av_dict_get(dict, key, nil, 0), let v = e.pointee.value else { return nil }
        return String(cString: v)
    }

    /// Every entry of a metadata dictionary, in order.
    static func tags(_ dict: OpaquePointer?) -> [(key: String, value: String)] {
        var out: [(key: String, value: String)] = []
        var e: UnsafeMutablePointer<AVDictionaryEntry>? = nil
        while let next = av_dict_get(dict, "", e, AV_DICT_IGNORE_SUFFIX) {
            out.append((String(cString: next.pointee.key), String(cString: next.pointee.value)))
            e = next
        }
        return out
    }

    static func fieldOrderName(_ order: AVFieldOrder) -> String? {
        switch order {
        case AV_FIELD_PROGRESSIVE: "progressive"
        case AV_FIELD_TT: "tt"
        case AV_FIELD_BB: "bb"
        case AV_FIELD_TB: "tb"
        case AV_FIELD_BT: "bt"
        default: nil
        }
    }

    /// Image files open as one-picture "videos" through the image demuxers; they are not what sdrify converts.
    static func isStillImage(_ demuxer: Demuxer) -> Bool {
        let format = String(cString: demuxer.ctx.pointee.iformat.pointee.name)
        if format == "image2" || format.hasSuffix("_pipe") { return true }
        let st = demuxer.videoStream
        let codec = String(cString: avcodec_get_name(st.pointee.codecpar.pointee.codec_id))
        let stillCodecs: Set<String> = ["png", "mjpeg", "bmp", "tiff", "webp", "jpeg2000", "jpegls", "ppm", "pgm", "pam", "qoi"]
        return stillCodecs.contains(codec) && st.pointee.nb_frames <= 1
    }

    static func frameRate(_ st: UnsafeMutablePointer<AVStream>) -> Double? {
        let avg = st.pointee.avg_frame_rate.double
        if avg > 0, avg < 1000 { return avg }
        let r = st.pointee.r_frame_rate.double
        return r > 0 && r < 1000 ? r : nil
    }

    /// Damage in the headers, which the demuxer reads past without an error: the reason, or nil. A moov or a
    /// segment index that lists samples past the end of the file (the file was cut short); a movie box whose boxes
    /// do not fit each other (MovieStructure); an MP4/MOV video time scale under 10 ticks per second, which no
    /// muxer writes (ffmpeg raises its own to 10000 and more, cameras use 600 to 90000) and which a damaged header
    /// makes of one (the frames then come seconds or hours apart, or fall outside the edit list).
    static func headerDamage(_ demuxer: Demuxer) -> String? {
        if let broken = demuxer.movieStructureProblem { return "\(demuxer.path): \(broken)" }
        let scale = demuxer.videoTimeBase.den
        if demuxer.isMovie, demuxer.videoTimeBase.num == 1, scale > 0, scale < 10 {
            return "\(demuxer.path): damaged timing: a video time scale of \(scale) ticks per second"
        }
        guard let pb = demuxer.ctx.pointee.pb else { return nil }
        let fileSize = avio_size(pb)
        guard fileSize > 0 else { return nil }
        let st = demuxer.videoStream
        let count = avformat_index_get_entries_count(st)
        if count > 0, let last = avformat_index_get_entry(st, count - 1), last.pointee.pos + Int64(last.pointee.size) > fileSize {
            return "\(demuxer.path): truncated: the video samples run past the end of the file (\(fileSize) bytes)"
        }
        // A fragmented file cut at a fragment boundary plays as a shorter, valid file; only its segment index says
        // what is missing.
        if let end = TopLevelBoxes(path: demuxer.path)?.indexedEnd(path: demuxer.path), end > UInt64(fileSize) {
            return "\(demuxer.path): truncated: its fragment index (sidx) lists \(end) bytes, the file has \(fileSize)"
        }
        return nil
    }

    static func sideData(_ st: UnsafeMutablePointer<AVStream>, _ type: AVPacketSideDataType) -> (UnsafeRawPointer, Int)? {
        var size = 0
        guard let p = av_stream_get_side_data(st, type, &size), size > 0 else { return nil }
        return (UnsafeRawPointer(p), size)
    }

    static func displayMatrix(_ st: UnsafeMutablePointer<AVStream>) -> DisplayMatrix? {
        guard let (p, size) = sideData(st, AV_PKT_DATA_DISPLAYMATRIX), size >= 36 else { return nil }
        return DisplayMatrix(fixedPoint: Array(UnsafeBufferPointer(start: p.assumingMemoryBound(to: Int32.self), count: 9)))
    }

    static func containerHDRMetadata(_ st: UnsafeMutablePointer<AVStream>) -> HDRMetadata {
        var md = HDRMetadata()
        if let (p, size) = sideData(st, AV_PKT_DATA_MASTERING_DISPLAY_METADATA),
            size >= MemoryLayout<AVMasteringDisplayMetadata>.size
        {
            md.masteringDisplay = mastering(p.assumingMemoryBound(to: AVMasteringDisplayMetadata.self).pointee)
        }
        if let (p, size) = sideData(st, AV_PKT_DATA_CONTENT_LIGHT_LEVEL), size >= MemoryLayout<AVContentLightMetadata>.size {
            let c = p.assumingMemoryBound(to: AVContentLightMetadata.self).pointee
            md.contentLightLevel = ContentLightLevel(maxCLL: Int(c.MaxCLL), maxFALL: Int(c.MaxFALL))
        }
        return md
    }

    static func mastering(_ m: AVMasteringDisplayMetadata) -> MasteringDisplay? {
        guard m.has_primaries != 0 || m.has_luminance != 0 else { return nil }
        let p = m.display_primaries
        return MasteringDisplay(
            redX: p.0.0.double, redY: p.0.1.double, greenX: p.1.0.double, greenY: p.1.1.double,
            blueX: p.2.0.double, blueY: p.2.1.double,
            whitePointX: m.white_point.0.double, whitePointY: m.white_point.1.double,
            minLuminance: m.min_luminance.double, maxLuminance: m.max_luminance.double)
    }

    static func dolbyVision(_ st: UnsafeMutablePointer<AVStream>) -> DolbyVisionConfig? {
        guard let (p, size) = sideData(st, AV_PKT_DATA_DOVI_CONF), size >= MemoryLayout<AVDOVIDecoderConfigurationRecord>.size
        else { return nil }
        let r = p.assumingMemoryBound(to: AVDOVIDecoderConfigurationRecord.self).pointee
        return DolbyVisionConfig(
            profile: Int(r.dv_profile), level: Int(r.dv_level), rpuPresent: r.rpu_present_flag != 0,
            elPresent: r.el_present_flag != 0, blPresent: r.bl_present_flag != 0,
            blCompatibilityID: Int(r.dv_bl_signal_compatibility_id))
    }

    static func merge(_ sei: HDRMetadata, matrix: DisplayMatrix?, into video: inout VideoInfo) {
        if video.hdrMetadata.masteringDisplay == nil { video.hdrMetadata.masteringDisplay = sei.masteringDisplay }
        if video.hdrMetadata.contentLightLevel == nil { video.hdrMetadata.contentLightLevel = sei.contentLightLevel }
        video.frameMatrix = matrix
    }

    /// A reader of the video stream's access units (H.264, HEVC; nil for other codecs).
    static func accessUnitReader(_ demuxer: Demuxer) -> SEIReader? {
        let par = demuxer.videoStream.pointee.codecpar.pointee
        let codec: SEIReader.Codec
        switch par.codec_id {
        case AV_CODEC_ID_H264: codec = .h264
        case AV_CODEC_ID_HEVC: codec = .hevc
        default: return nil
        }
        let extradata = par.extradata.map { Array(UnsafeBufferPointer(start: $0, count: Int(par.extradata_size))) } ?? []
        return SEIReader(codec: codec, lengthSize: SEIReader.lengthSize(codec: codec, extradata: extradata))
    }

    /// The SEI of the first video packet (H.264, HEVC), parsed without decoding.
    static func firstAccessUnitSEI(_ demuxer: Demuxer) throws -> SEIReader.Result? {
        guard let reader = accessUnitReader(demuxer) else { return nil }
        let packet = try Packet()
        for _ in 0..<500 {
            guard try demuxer.readPacket(into: packet) else { return nil }
            guard packet.streamIndex == demuxer.videoStreamIndex, let data = packet.av.pointee.data else { continue }
            return reader.read(Array(UnsafeBufferPointer(start: data, count: Int(packet.av.pointee.size))))
        }
        return nil
    }

    /// Decodes just the first picture (one thread per core; a bounded number of packets), with the profile the
    /// decoder read from the parameter sets.
    static func firstFrame(_ demuxer: Demuxer) throws -> (Frame, profile: String?)? {
        let decoder = try Decoder(stream: demuxer.videoStream, threads: 0, label: "\(demuxer.path): video", sideDataOnly: true)
        let packet = try Packet()
        var packetsRead = 0
        var frame: Frame? = nil
        while frame == nil, packetsRead < 500, try demuxer.readPacket(into: packet) {
            guard packet.streamIndex == demuxer.videoStreamIndex else { continue }
            packetsRead += 1
            try decoder.send(packet)
            frame = try decoder.receive()
        }
        if frame == nil {
            try decoder.send(nil)
            frame = try decoder.receive()
        }
        return frame.map { ($0, avcodec_profile_name(decoder.ctx.pointee.codec_id, decoder.ctx.pointee.profile).map { String(cString: $0) }) }
    }
}

/// The probe of a file: its model read by `MediaInspector`.
package enum Prober {
    /// Everything `sdrify probe` reports: headers, side data and the first picture's SEI.
    package static func probe(path: String) throws -> MediaInfo {
        let demuxer = try Demuxer(path: path)
        return try MediaInspector.inspect(demuxer)
    }

    /// The content light level a Dolby Vision stream's level-1 metadata gives over the whole stream, read from every
    /// access unit's RPU without decoding (profile 8.1 and other PQ bases carry no MaxCLL of their own): MaxCLL is
    /// the brightest shot's maximum, MaxFALL the brightest shot's average. Level 1's average is of each pixel's
    /// largest component in PQ, so MaxFALL is a bound on the frame-average light, not its measure. nil when no
    /// access unit has level 1, and at once when the first has none (a stream without Dolby Vision costs one packet).
    package static func dolbyVisionLight(path: String) throws -> ContentLightLevel? {
        let demuxer = try Demuxer(path: path)
        guard let reader = MediaInspector.accessUnitReader(demuxer) else { return nil }
        let packet = try Packet()
        var peak: Double? = nil, average = 0.0, units = 0
        while try demuxer.readPacket(into: packet) {
            guard packet.streamIndex == demuxer.videoStreamIndex, let data = packet.av.pointee.data else { continue }
            units += 1
            guard let l1 = reader.dolbyVisionLevel1(Array(UnsafeBufferPointer(start: data, count: Int(packet.av.pointee.size)))) else {
                if units == 1 { return nil }
                continue
            }
            peak = max(peak ?? 0, l1.maxLuminance)
            average = max(average, l1.averageLuminance)
        }
        return peak.map { ContentLightLevel(maxCLL: Int($0.rounded()), maxFALL: Int(average.rounded())) }
    }

    /// Headers only, with the open input positioned at its start, for a conversion to go on reading.
    /// `allowTruncated`: a file cut short opens anyway, and `truncated` says why it is short.
    package static func open(path: String, allowTruncated: Bool = false) throws -> (info: MediaInfo, demuxer: Demuxer, truncated: String?) {
        let demuxer = try Demuxer(path: path)
        let info = try MediaInspector.inspect(demuxer, firstPicture: false, allowTruncated: allowTruncated)
        return (info, demuxer, MediaInspector.headerDamage(demuxer))
    }

    /// What a composition's clip file is: a still picture (its coded size) or a video (headers, open input).
    package enum Clip {
        case still(width: Int, height: Int)
        case video(info: MediaInfo, demuxer: Demuxer, truncated: String?)
    }

    package static func openClip(path: String, allowTruncated: Bool) throws -> Clip {
        if HEIFDecoder.isHEIF(path: path) {
            let (w, h) = try HEIFDecoder.size(path: path)
            return .still(width: w, height: h)
        }
        let demuxer = try Demuxer(path: path)
        if MediaInspector.isStillImage(demuxer) {
            let par = demuxer.videoStream.pointee.codecpar.pointee
            return .still(width: Int(par.width), height: Int(par.height))
        }
        let info = try MediaInspector.inspect(demuxer, firstPicture: false, allowTruncated: allowTruncated)
        return .video(info: info, demuxer: demuxer, truncated: MediaInspector.headerDamage(demuxer))
    }
}
