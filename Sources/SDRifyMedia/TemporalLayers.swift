import CFFmpeg

/// The SVC temporal layer of each H.264 or HEVC packet, read from its first NAL units: a slow-motion capture is
/// coded in layers (layer 0 at the lowest rate, each higher one doubling it), so pictures above a layer can be left
/// out, as nothing below them refers to them. H.264 states the layer in an SVC prefix NAL unit
/// (type 14) before each picture, HEVC in every NAL unit's header (nuh_temporal_id_plus1). Length-prefixed
/// (MP4/MOV, the prefix size from the stream's configuration record) or Annex B start codes. Layers are a claim
/// the standard binds (a picture never refers to a higher layer) where the stream is laid out as the standard has
/// it (`trusted`); otherwise a picture is left out before decoding only when its own slice header says nothing
/// refers to it.
package final class TemporalLayers {
    private let hevc: Bool
    private let lengthSize: Int?  // nil: Annex B

    package init(hevc: Bool, lengthSize: Int?) { self.hevc = hevc; self.lengthSize = lengthSize }

    /// nil for a codec without temporal layers here.
    init?(stream: UnsafeMutablePointer<AVStream>) {
        let par = stream.pointee.codecpar.pointee
        switch par.codec_id {
        case AV_CODEC_ID_H264: hevc = false
        case AV_CODEC_ID_HEVC: hevc = true
        default: return nil
        }
        let extra =
            par.extradata.map { UnsafeBufferPointer(start: $0, count: Int(max(0, par.extradata_size))) } ?? UnsafeBufferPointer(start: nil, count: 0)
        // avcC: byte 4's low bits are the length size − 1; hvcC: byte 21's. No record (or one starting with a start
        // code): Annex B.
        if !hevc, extra.count >= 5, extra[0] == 1 {
            lengthSize = Int(extra[4] & 3) + 1
        } else if hevc, extra.count >= 23, extra[0] == 1 {
            lengthSize = Int(extra[21] & 3) + 1
        } else {
            lengthSize = nil
        }
    }

    /// What a packet says of itself: its temporal layer (nil: not stated) and whether its picture is one nothing
    /// refers to (its first slice's own header says so), so that leaving it out before decoding is safe whatever
    /// the layers claim.
    package struct Picture {
        package var layer: Int?
        package var disposable: Bool
        /// Whether the layer can be trusted to say what refers to what: HEVC's temporal sub-layers are nested by the
        /// standard (nothing refers to a higher one); an H.264 SVC prefix is trusted when the picture's own slice
        /// follows it as the next unit, as SVC streams have it (the prefix alone over a whole packet is a file made
        /// some other way, whose marks decoding may not bear out).
        package var trusted = false
    }

    package func picture(of packet: Packet) -> Picture {
        guard let data = packet.av.pointee.data, packet.av.pointee.size > 0 else { return Picture(layer: nil, disposable: false) }
        return picture(UnsafeBufferPointer(start: data, count: Int(packet.av.pointee.size)))
    }

    package func picture(_ b: UnsafeBufferPointer<UInt8>) -> Picture {
        var result = Picture(layer: nil, disposable: false)
        var at = 0
        while at < b.count {
            let start: Int, next: Int
            if let n = lengthSize {
                guard at + n <= b.count else { return result }
                let length = (0..<n).reduce(0) { $0 << 8 | Int(b[at + $1]) }
                start = at + n
                next = start + length
                guard length > 0, next <= b.count else { return result }
            } else {
                guard let s = TemporalLayers.afterStartCode(b, from: at) else { return result }
                start = s
                next = TemporalLayers.afterStartCode(b, from: s).map { $0 - 3 } ?? b.count
            }
            if hevc {
                guard start + 2 <= b.count else { return result }
                let type = Int(b[start] >> 1) & 0x3F
                if type < 32 {  // the picture's first slice: its layer; an even type below 16 is a sub-layer non-reference
                    return Picture(layer: Int(b[start + 1] & 7) - 1, disposable: type < 16 && type % 2 == 0, trusted: true)
                }
            } else {
                guard start + 4 <= b.count else { return result }
                let type = Int(b[start] & 0x1F)
                if type == 14 || type == 20, b[start + 1] & 0x80 != 0 { result.layer = Int(b[start + 3] >> 5) }
                if (1...5).contains(type) {  // the first slice: nal_ref_idc 0 is a picture nothing refers to
                    result.disposable = b[start] & 0x60 == 0
                    result.trusted = result.layer != nil
                    return result
                }
            }
            at = next
        }
        return Picture(layer: result.layer, disposable: false)
    }

    /// The index after the next 00 00 01 at or after `from`.
    private static func afterStartCode(_ b: UnsafeBufferPointer<UInt8>, from: Int) -> Int? {
        var i = from
        while i + 3 <= b.count {
            if b[i] == 0, b[i + 1] == 0, b[i + 2] == 1 { return i + 3 }
            i += 1
        }
        return nil
    }
}
