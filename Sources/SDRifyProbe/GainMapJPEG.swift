import Foundation

/// How a gain map turns its base (SDR) picture into the HDR one, per channel (R, G, B), in the published form
/// (Adobe's gain map and Google's Ultra HDR XMP, ISO 21496-1): the log2 gain between `gainMapMin` and `gainMapMax`,
/// stored as `((log2 g − min) / (max − min))^(1/gamma)` in 0…1; offsets added to both sides before dividing, so
/// black has a gain; the HDR shown in full on a display with `hdrCapacityMax` (log2) of headroom or more.
/// Linear light relative to SDR white.
package struct GainMapMetadata: Equatable, Sendable {
    package var gainMapMin: [Double]
    package var gainMapMax: [Double]
    package var gamma: [Double]
    package var offsetSDR: [Double]
    package var offsetHDR: [Double]
    package var hdrCapacityMin: Double
    package var hdrCapacityMax: Double

    package init(
        gainMapMin: [Double], gainMapMax: [Double], gamma: [Double] = [1, 1, 1], offsetSDR: [Double] = [1.0 / 64, 1.0 / 64, 1.0 / 64],
        offsetHDR: [Double] = [1.0 / 64, 1.0 / 64, 1.0 / 64], hdrCapacityMin: Double = 0, hdrCapacityMax: Double
    ) {
        self.gainMapMin = gainMapMin; self.gainMapMax = gainMapMax; self.gamma = gamma
        self.offsetSDR = offsetSDR; self.offsetHDR = offsetHDR
        self.hdrCapacityMin = hdrCapacityMin; self.hdrCapacityMax = hdrCapacityMax
    }

    /// The stored value (0…1) of a log2 gain in channel `c`.
    package func encode(log2Gain: Double, channel c: Int) -> Double {
        let span = gainMapMax[c] - gainMapMin[c]
        let t = span > 0 ? min(max((log2Gain - gainMapMin[c]) / span, 0), 1) : 0
        return pow(t, 1 / gamma[c])
    }

    /// The log2 gain of a stored value (0…1) in channel `c`.
    package func log2Gain(stored: Double, channel c: Int) -> Double {
        gainMapMin[c] + (gainMapMax[c] - gainMapMin[c]) * pow(min(max(stored, 0), 1), gamma[c])
    }

    /// The HDR light of channel `c` from the base's light and the stored value, on a display with `headroom` (log2)
    /// above SDR white (nil: all the HDR the map holds).
    package func hdr(sdr: Double, stored: Double, channel c: Int, headroom: Double? = nil) -> Double {
        var weight = 1.0
        if let headroom, hdrCapacityMax > hdrCapacityMin {
            weight = min(max((headroom - hdrCapacityMin) / (hdrCapacityMax - hdrCapacityMin), 0), 1)
        }
        return (sdr + offsetSDR[c]) * exp2(log2Gain(stored: stored, channel: c) * weight) - offsetHDR[c]
    }

    /// Why these values cannot be used (nil when they can).
    var defect: String? {
        let lists = [gainMapMin, gainMapMax, gamma, offsetSDR, offsetHDR]
        guard lists.allSatisfy({ $0.count == 3 }), lists.joined().allSatisfy(\.isFinite), hdrCapacityMin.isFinite, hdrCapacityMax.isFinite
        else { return "gain map metadata is not three finite numbers per channel" }
        if gamma.contains(where: { $0 <= 0 }) { return "gain map gamma is not above 0" }
        if zip(gainMapMin, gainMapMax).contains(where: { $0 > $1 }) { return "gain map minimum above its maximum" }
        return nil
    }
}

/// A JPEG with a gain map (Ultra HDR / Adobe gain map, with ISO 21496-1 metadata): the primary picture every JPEG
/// reader shows, then the gain map's own JPEG, found through the primary's MPF index (CIPA DC-007) and Google's XMP
/// container directory. `assemble` writes one, `read` finds the two pictures and the metadata in one.
package enum GainMapJPEG {
    static let xmpNamespace = Array("http://ns.adobe.com/xap/1.0/\u{0}".utf8)
    static let isoNamespace = Array("urn:iso:std:iso:ts:21496:-1\u{0}".utf8)
    static let mpfNamespace: [UInt8] = Array("MPF".utf8) + [0]

    /// One marker segment (APPn): marker, then its payload's length and the payload.
    static func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        let length = payload.count + 2
        return [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    }

    static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }
    static func be16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }

    /// `number` as a fraction for ISO 21496-1 (a fixed denominator: a millionth is finer than any 8-bit map).
    static func fraction(_ number: Double, signed: Bool) -> [UInt8] {
        let den: Double = 1_000_000
        let limit = signed ? Double(Int32.max) : Double(UInt32.max)
        let n = min(max((number * den).rounded(), signed ? -limit : 0), limit)
        return (signed ? be32(UInt32(bitPattern: Int32(n))) : be32(UInt32(n))) + be32(UInt32(den))
    }

    /// ISO 21496-1's binary metadata (versions 0; three channels; the base's colour space).
    static func isoMetadata(_ m: GainMapMetadata) -> [UInt8] {
        var b = be16(0) + be16(0) + [0x80 | 0x40]  // multichannel, use base colour space
        b += fraction(m.hdrCapacityMin, signed: false) + fraction(m.hdrCapacityMax, signed: false)
        for c in 0..<3 {
            b += fraction(m.gainMapMin[c], signed: true) + fraction(m.gainMapMax[c], signed: true)
            b += fraction(m.gamma[c], signed: false)
            b += fraction(m.offsetSDR[c], signed: true) + fraction(m.offsetHDR[c], signed: true)
        }
        return b
    }

    static func list(_ values: [Double]) -> String {
        values.allSatisfy({ $0 == values[0] })
            ? String(format: "\"%.6f\"", values[0])
            : "<rdf:Seq>" + values.map { String(format: "<rdf:li>%.6f</rdf:li>", $0) }.joined() + "</rdf:Seq>"
    }

    static func xmp(_ description: String, body: String = "") -> [UInt8] {
        let text = """
            <x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="sdrify"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
            <rdf:Description rdf:about="" xmlns:hdrgm="http://ns.adobe.com/hdr-gain-map/1.0/" \
            xmlns:Container="http://ns.google.com/photos/1.0/container/" xmlns:Item="http://ns.google.com/photos/1.0/container/item/" \
            \(description)>\(body)</rdf:Description></rdf:RDF></x:xmpmeta>
            """
        return xmpNamespace + Array(text.utf8)
    }

    /// The gain map's XMP: its values as attributes where one value serves all channels, as sequences otherwise.
    static func gainMapXMP(_ m: GainMapMetadata) -> [UInt8] {
        func attribute(_ name: String, _ values: [Double]) -> (String, String) {
            let l = list(values)
            return l.hasPrefix("\"") ? ("hdrgm:\(name)=\(l)", "") : ("", "<hdrgm:\(name)>\(l)</hdrgm:\(name)>")
        }
        let parts = [
            attribute("GainMapMin", m.gainMapMin), attribute("GainMapMax", m.gainMapMax), attribute("Gamma", m.gamma),
            attribute("OffsetSDR", m.offsetSDR), attribute("OffsetHDR", m.offsetHDR)
        ]
        let attributes =
            ["hdrgm:Version=\"1.0\""] + parts.map(\.0).filter { !$0.isEmpty }
            + [
                String(format: "hdrgm:HDRCapacityMin=\"%.6f\"", m.hdrCapacityMin), String(format: "hdrgm:HDRCapacityMax=\"%.6f\"", m.hdrCapacityMax),
                "hdrgm:BaseRenditionIsHDR=\"False\""
            ]
        return xmp(attributes.joined(separator: " "), body: parts.map(\.1).joined())
    }

    /// The file: `primary` (a JPEG, shown by every reader) with the XMP container directory, ISO 21496-1's version and
    /// the MPF index added after its SOI, then `gainMap` (a JPEG) with its own XMP and ISO 21496-1 metadata.
    package static func assemble(primary: [UInt8], gainMap: [UInt8], metadata: GainMapMetadata) throws -> [UInt8] {
        guard primary.starts(with: [0xFF, 0xD8]), gainMap.starts(with: [0xFF, 0xD8]) else {
            throw GainMapJPEGError.notJPEG
        }
        let second =
            [0xFF, 0xD8] + segment(0xE1, gainMapXMP(metadata)) + segment(0xE2, isoNamespace + isoMetadata(metadata)) + gainMap.dropFirst(2)
        let directory = """
            hdrgm:Version="1.0"
            """
        let container = """
            <Container:Directory><rdf:Seq><rdf:li rdf:parseType="Resource"><Container:Item Item:Semantic="Primary" Item:Mime="image/jpeg"/>\
            </rdf:li><rdf:li rdf:parseType="Resource"><Container:Item Item:Semantic="GainMap" Item:Mime="image/jpeg" Item:Length="\(second.count)"/>\
            </rdf:li></rdf:Seq></Container:Directory>
            """
        let head = segment(0xE1, xmp(directory, body: container)) + segment(0xE2, isoNamespace + be16(0) + be16(0))
        // The MPF segment's size does not depend on the offsets it holds: made once to measure, once for real.
        func mpf(primarySize: UInt32, secondOffset: UInt32) -> [UInt8] {
            var t: [UInt8] = Array("MM".utf8) + be16(42) + be32(8)  // big-endian TIFF header, IFD at 8
            t += be16(3)
            t += be16(0xB000) + be16(7) + be32(4) + Array("0100".utf8)  // MPFVersion
            t += be16(0xB001) + be16(4) + be32(1) + be32(2)  // NumberOfImages
            let entries: UInt32 = 8 + 2 + 3 * 12 + 4  // after the IFD (typed: inferred in the sum it took seconds to check)
            t += be16(0xB002) + be16(7) + be32(32) + be32(entries)  // MPEntry
            t += be32(0)  // no next IFD
            t += be32(0x0003_0000) + be32(primarySize) + be32(0) + be16(0) + be16(0)  // primary: baseline MP primary
            t += be32(0) + be32(UInt32(second.count)) + be32(secondOffset) + be16(0) + be16(0)
            return segment(0xE2, mpfNamespace + t)
        }
        let mpfSize = mpf(primarySize: 0, secondOffset: 0).count
        let primarySize = primary.count + head.count + mpfSize
        // Offsets count from the MPF segment's TIFF header: SOI, head, the marker and length, "MPF\0".
        let tiffStart = 2 + head.count + 4 + mpfNamespace.count
        let first = [0xFF, 0xD8] + head + mpf(primarySize: UInt32(primarySize), secondOffset: UInt32(primarySize - tiffStart)) + primary.dropFirst(2)
        return first + second
    }

    /// The primary picture's and the gain map's byte ranges in `bytes`, and the gain map's metadata (its XMP, or
    /// ISO 21496-1's where the XMP has none).
    package static func read(_ bytes: [UInt8]) throws -> (primary: Range<Int>, gainMap: Range<Int>, metadata: GainMapMetadata) {
        let head = try segments(bytes, from: 0)
        var gainMapStart: Int? = nil, primaryEnd: Int? = nil
        if let mpf = head.first(where: { $0.marker == 0xE2 && bytes[$0.payload].starts(with: mpfNamespace) }) {
            let tiff = mpf.payload.lowerBound + mpfNamespace.count
            let entries = try mpfEntries(bytes, tiff: tiff, end: mpf.payload.upperBound)
            if entries.count >= 2 {
                primaryEnd = entries[0].size
                gainMapStart = tiff + entries[1].offset
            }
        }
        if gainMapStart == nil, let xmp = head.first(where: { $0.marker == 0xE1 && bytes[$0.payload].starts(with: xmpNamespace) }) {
            let text = String(decoding: bytes[xmp.payload], as: UTF8.self)
            if let r = text.range(of: "Item:Semantic=\"GainMap\""),
                let length = MotionPhoto.number(after: "Item:Length", in: String(text[r.lowerBound...]))
            {
                gainMapStart = bytes.count - Int(clamping: length)
            }
        }
        guard let start = gainMapStart, start > 2, start < bytes.count - 4, bytes[start] == 0xFF, bytes[start + 1] == 0xD8 else {
            throw GainMapJPEGError.noGainMap
        }
        let mapSegments = try segments(bytes, from: start)
        var metadata: GainMapMetadata? = nil
        if let xmp = mapSegments.first(where: { $0.marker == 0xE1 && bytes[$0.payload].starts(with: xmpNamespace) }) {
            metadata = xmpMetadata(String(decoding: bytes[xmp.payload], as: UTF8.self))
        }
        if metadata == nil, let iso = mapSegments.first(where: { $0.marker == 0xE2 && bytes[$0.payload].starts(with: isoNamespace) }) {
            metadata = try isoMetadata(Array(bytes[(iso.payload.lowerBound + isoNamespace.count)..<iso.payload.upperBound]))
        }
        guard let metadata else { throw GainMapJPEGError.noMetadata }
        if let defect = metadata.defect { throw GainMapJPEGError.damaged(defect) }
        return (0..<min(primaryEnd ?? start, start), start..<bytes.count, metadata)
    }

    /// The marker segments from an SOI at `from` up to the start of scan.
    static func segments(_ b: [UInt8], from: Int) throws -> [(marker: UInt8, payload: Range<Int>)] {
        guard from + 4 <= b.count, b[from] == 0xFF, b[from + 1] == 0xD8 else { throw GainMapJPEGError.notJPEG }
        var out: [(UInt8, Range<Int>)] = []
        var i = from + 2
        while i + 4 <= b.count {
            guard b[i] == 0xFF else { throw GainMapJPEGError.damaged("no marker at byte \(i)") }
            let marker = b[i + 1]
            if marker == 0xFF { i += 1; continue }  // fill byte
            if marker == 0xDA || marker == 0xD9 { return out }
            let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
            guard length >= 2, i + 2 + length <= b.count else { throw GainMapJPEGError.damaged("a segment runs past the end") }
            out.append((marker, (i + 4)..<(i + 2 + length)))
            i += 2 + length
        }
        throw GainMapJPEGError.damaged("no start of scan")
    }

    /// MPF's picture entries (size, and offset from the TIFF header), either byte order.
    static func mpfEntries(_ b: [UInt8], tiff: Int, end: Int) throws -> [(size: Int, offset: Int)] {
        guard tiff + 8 <= end else { throw GainMapJPEGError.damaged("MPF index too short") }
        let little = b[tiff] == 0x49
        func u16(_ at: Int) throws -> Int {
            guard at >= tiff, at + 2 <= end else { throw GainMapJPEGError.damaged("MPF index too short") }
            return little ? Int(b[at]) | Int(b[at + 1]) << 8 : Int(b[at]) << 8 | Int(b[at + 1])
        }
        func u32(_ at: Int) throws -> Int {
            guard at >= tiff, at + 4 <= end else { throw GainMapJPEGError.damaged("MPF index too short") }
            let v = (0..<4).map { Int(b[at + $0]) }
            return little ? v[0] | v[1] << 8 | v[2] << 16 | v[3] << 24 : v[0] << 24 | v[1] << 16 | v[2] << 8 | v[3]
        }
        let ifd = tiff + (try u32(tiff + 4))
        let count = try u16(ifd)
        guard count < 64 else { throw GainMapJPEGError.damaged("MPF index has \(count) entries") }
        var entriesAt: Int? = nil, entriesSize = 0
        for k in 0..<count {
            let e = ifd + 2 + k * 12
            if try u16(e) == 0xB002 { entriesSize = try u32(e + 4); entriesAt = tiff + (try u32(e + 8)) }
        }
        guard let at = entriesAt, entriesSize % 16 == 0, entriesSize <= 16 * 16 else { throw GainMapJPEGError.damaged("MPF index without entries") }
        return try (0..<(entriesSize / 16)).map { k in (try u32(at + k * 16 + 4), try u32(at + k * 16 + 8)) }
    }

    /// hdrgm values from XMP: attributes (`hdrgm:GainMapMax="2.1"`) or elements with one value or an rdf:Seq of three.
    static func xmpMetadata(_ text: String) -> GainMapMetadata? {
        func values(_ name: String, default value: Double? = nil) -> [Double]? {
            if let r = text.range(of: "hdrgm:\(name)=\"") {
                let v = Double(text[r.upperBound...].prefix { $0 != "\"" })
                return v.map { [$0, $0, $0] }
            }
            if let open = text.range(of: "<hdrgm:\(name)>"), let close = text.range(of: "</hdrgm:\(name)>", range: open.upperBound..<text.endIndex) {
                let inner = String(text[open.upperBound..<close.lowerBound])
                var items: [Double] = []
                var rest = inner[...]
                while let li = rest.range(of: "<rdf:li>"), let end = rest.range(of: "</rdf:li>", range: li.upperBound..<rest.endIndex) {
                    if let v = Double(rest[li.upperBound..<end.lowerBound].trimmingCharacters(in: .whitespaces)) { items.append(v) }
                    rest = rest[end.upperBound...]
                }
                if items.count == 3 { return items }
                if let v = Double(inner.trimmingCharacters(in: .whitespacesAndNewlines)) { return [v, v, v] }
                return nil
            }
            return value.map { [$0, $0, $0] }
        }
        guard text.contains("hdrgm:Version"), let maxima = values("GainMapMax") else { return nil }
        let capacityMax = values("HDRCapacityMax")?[0] ?? maxima.max() ?? 0
        return GainMapMetadata(
            gainMapMin: values("GainMapMin", default: 0) ?? [0, 0, 0], gainMapMax: maxima, gamma: values("Gamma", default: 1) ?? [1, 1, 1],
            offsetSDR: values("OffsetSDR", default: 1.0 / 64) ?? [], offsetHDR: values("OffsetHDR", default: 1.0 / 64) ?? [],
            hdrCapacityMin: values("HDRCapacityMin", default: 0)?[0] ?? 0, hdrCapacityMax: capacityMax)
    }

    /// ISO 21496-1's binary metadata (after its namespace).
    static func isoMetadata(_ b: [UInt8]) throws -> GainMapMetadata {
        var at = 0
        func take(_ n: Int) throws -> [UInt8] {
            guard at + n <= b.count else { throw GainMapJPEGError.damaged("ISO 21496-1 metadata too short") }
            defer { at += n }
            return Array(b[at..<at + n])
        }
        func u32() throws -> UInt32 { try take(4).reduce(0) { $0 << 8 | UInt32($1) } }
        func value(signed: Bool) throws -> Double {
            let n = try u32(), d = try u32()
            guard d > 0 else { throw GainMapJPEGError.damaged("ISO 21496-1 fraction over 0") }
            return (signed ? Double(Int32(bitPattern: n)) : Double(n)) / Double(d)
        }
        let minimumVersion = try take(2)
        guard minimumVersion == [0, 0] else { throw GainMapJPEGError.damaged("ISO 21496-1 version \(minimumVersion) is not 0") }
        _ = try take(2)
        let flags = try take(1)[0]
        let channels = flags & 0x80 != 0 ? 3 : 1
        let capacityMin = try value(signed: false), capacityMax = try value(signed: false)
        var lists = [[Double]](repeating: [], count: 5)
        for _ in 0..<channels {
            lists[0].append(try value(signed: true)); lists[1].append(try value(signed: true)); lists[2].append(try value(signed: false))
            lists[3].append(try value(signed: true)); lists[4].append(try value(signed: true))
        }
        if channels == 1 { lists = lists.map { [$0[0], $0[0], $0[0]] } }
        return GainMapMetadata(
            gainMapMin: lists[0], gainMapMax: lists[1], gamma: lists[2], offsetSDR: lists[3], offsetHDR: lists[4], hdrCapacityMin: capacityMin,
            hdrCapacityMax: capacityMax)
    }
}

package enum GainMapJPEGError: Error, Equatable, CustomStringConvertible {
    case notJPEG, noGainMap, noMetadata
    case damaged(String)

    package var description: String {
        switch self {
        case .notJPEG: "not a JPEG"
        case .noGainMap: "no gain map picture (neither an MPF index nor an XMP container names one)"
        case .noMetadata: "the gain map has no hdrgm XMP or ISO 21496-1 metadata"
        case .damaged(let what): "damaged gain map JPEG: \(what)"
        }
    }
}
