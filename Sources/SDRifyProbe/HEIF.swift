import Foundation
import SDRifyValues

/// The item structure of a HEIF file (ISO/IEC 23008-12: HEIC, AVIF, and the HEIF stills phones write), read by our
/// own parser: libheif 1.15 (Debian's) refuses current iPhone photos ("Too many auxiliary image references": an
/// iOS 18 HDR photo carries a gain map, an ISO 21496-1 `tmap` item, style maps and mattes), and only the primary
/// picture is needed here. Reads `ftyp` and `meta`: `pitm`, `iinf`/`infe`, `iloc` (versions 0–2, in the file or in
/// `idat`), `iref`, `iprp` (`ipco` properties, `ipma` associations) and a `grid`'s description. Every size and
/// offset is checked: a damaged file is an error naming what is wrong, never a crash or a read outside the file.
package struct HEIFFile {
    package enum Property: Equatable {
        case hvcC(Data), av1C(Data)
        case ispe(width: Int, height: Int)
        case irot(quarterTurnsAnticlockwise: Int)
        /// The amended semantics (ISO/IEC 23008-12 Amd 2; what iPhones, libheif and libavif write and read): mode 0
        /// exchanges top and bottom, mode 1 left and right. (The 2017 text said "axis" and was read both ways.)
        case imir(leftRight: Bool)
        case nclx(primaries: Int, transfer: Int, matrix: Int, fullRange: Bool)
        case icc(Data)
        case pixi(bits: [Int])
        case clap(width: Double, height: Double, horizontalOffset: Double, verticalOffset: Double)
        case auxC(String)
        case other(String)
    }

    package struct Extent { let offset: UInt64, length: UInt64 }

    package struct Item {
        package let id: UInt32
        package var type = ""
        package var properties: [Property] = []
        var inIdat = false  // construction method 1
        var baseOffset: UInt64 = 0
        var extents: [Extent] = []
        package var references: [String: [UInt32]] = [:]  // reference type → items this one refers to, in order
    }

    /// A grid item's description: tiles in rows and columns, and the size of the picture they make.
    package struct Grid { package let rows: Int, columns: Int, width: Int, height: Int }

    package let brands: [String]
    package let primary: UInt32
    package private(set) var items: [UInt32: Item] = [:]
    private let idat: Data
    private let file: Data

    /// The largest file read (a 200-megapixel photo is well under this).
    package static let maxBytes = 512 << 20

    package static func failure(_ what: String) -> SDRifyError { .invalidInput("damaged HEIF image: \(what)") }

    /// Whether these first bytes are a HEIF file's `ftyp` (a still-image brand among its brands).
    package static func looksLike(_ head: Data) -> Bool {
        guard head.count >= 16, String(decoding: head[(head.startIndex + 4)..<(head.startIndex + 8)], as: UTF8.self) == "ftyp" else { return false }
        let size = min(Int(QuickTimeMetadata.u32(head, 0)), head.count)
        guard size >= 16 else { return false }
        let brands = stride(from: 8, to: size - 3, by: 4).map {
            String(decoding: head[(head.startIndex + $0)..<(head.startIndex + $0 + 4)], as: UTF8.self)
        }
        return brands.contains { ["mif1", "msf1", "heic", "heix", "heim", "heis", "avif", "avis", "mif2", "MiHE"].contains($0) }
    }

    package init(data: Data) throws {
        file = data
        guard data.count >= 16, HEIFFile.looksLike(data.prefix(64)) else { throw HEIFFile.failure("no HEIF file type box") }
        var brands: [String] = [], meta: Data? = nil
        for box in try HEIFFile.boxes(data, in: "the file", tolerateTail: true) {
            if box.type == "ftyp" {
                brands = stride(from: 0, to: box.payload.count - 3, by: 4).compactMap { $0 == 4 ? nil : HEIFFile.fourcc(box.payload, $0) }
            } else if box.type == "meta", meta == nil {
                meta = box.payload
            }
        }
        self.brands = brands
        guard let meta, meta.count >= 4 else { throw HEIFFile.failure("no 'meta' box") }
        var primary: UInt32? = nil, idat = Data()
        var items: [UInt32: Item] = [:]
        func item(_ id: UInt32) -> Item { items[id] ?? Item(id: id) }
        let children = try HEIFFile.boxes(meta, from: 4, in: "'meta'")
        guard children.contains(where: { $0.type == "hdlr" && $0.payload.count >= 12 && HEIFFile.fourcc($0.payload, 8) == "pict" }) else {
            throw HEIFFile.failure("the 'meta' box is not a picture's (no 'pict' handler)")
        }
        for box in children {
            var r = Reader(box.payload, "'\(box.type)'")
            switch box.type {
            case "pitm":
                let version = try r.u8()
                try r.skip(3)
                primary = try version == 0 ? UInt32(r.u16()) : r.u32()
            case "iinf":
                let version = try r.u8()
                try r.skip(3)
                _ = try version == 0 ? UInt32(r.u16()) : r.u32()
                for infe in try HEIFFile.boxes(box.payload, from: r.at, in: "'iinf'") where infe.type == "infe" {
                    var e = Reader(infe.payload, "'infe'")
                    let v = try e.u8()
                    try e.skip(3)  // flags (hidden or not: the primary item is what is shown)
                    guard v >= 2 else { continue }  // versions 0 and 1 describe files, not pictures
                    let id = try v == 2 ? UInt32(e.u16()) : e.u32()
                    try e.skip(2)  // protection index
                    var it = item(id)
                    it.type = try e.fourcc()
                    items[id] = it
                }
            case "iloc":
                let version = try r.u8()
                try r.skip(3)
                let sizes = try r.u8(), more = try r.u8()
                let offsetSize = Int(sizes >> 4), lengthSize = Int(sizes & 15), baseSize = Int(more >> 4)
                let indexSize = version >= 1 ? Int(more & 15) : 0
                for s in [offsetSize, lengthSize, baseSize, indexSize] where ![0, 4, 8].contains(s) {
                    throw HEIFFile.failure("an 'iloc' field of \(s) bytes")
                }
                let count = try version < 2 ? Int(r.u16()) : Int(r.u32())
                for _ in 0..<count {
                    let id = try version < 2 ? UInt32(r.u16()) : r.u32()
                    var it = item(id)
                    if version >= 1 {
                        let method = try r.u16() & 15
                        guard method <= 1 else { throw HEIFFile.failure("item \(id) is built from another item's data (method \(method))") }
                        it.inIdat = method == 1
                    }
                    try r.skip(2)  // data reference index: this file
                    it.baseOffset = try r.uint(baseSize)
                    let extents = try Int(r.u16())
                    it.extents = []
                    for _ in 0..<extents {
                        if indexSize > 0 { _ = try r.uint(indexSize) }
                        let offset = try r.uint(offsetSize), length = try r.uint(lengthSize)
                        it.extents.append(Extent(offset: offset, length: length))
                    }
                    items[id] = it
                }
            case "iref":
                let version = try r.u8()
                try r.skip(3)
                for ref in try HEIFFile.boxes(box.payload, from: 4, in: "'iref'") {
                    var e = Reader(ref.payload, "'iref'")
                    while !e.atEnd {
                        let from = try version == 0 ? UInt32(e.u16()) : e.u32()
                        let count = try Int(e.u16())
                        var to: [UInt32] = []
                        for _ in 0..<count { to.append(try version == 0 ? UInt32(e.u16()) : e.u32()) }
                        var it = item(from)
                        it.references[ref.type, default: []] += to
                        items[from] = it
                    }
                }
            case "iprp":
                let parts = try HEIFFile.boxes(box.payload, in: "'iprp'")
                let properties =
                    try parts.first { $0.type == "ipco" }.map { try HEIFFile.boxes($0.payload, in: "'ipco'").map(HEIFFile.property) } ?? []
                for ipma in parts where ipma.type == "ipma" {
                    var e = Reader(ipma.payload, "'ipma'")
                    let version = try e.u8()
                    let flags = try e.u24()
                    let entries = try e.u32()
                    for _ in 0..<entries {
                        let id = try version < 1 ? UInt32(e.u16()) : e.u32()
                        let count = try Int(e.u8())
                        var it = item(id)
                        for _ in 0..<count {
                            let index = try flags & 1 != 0 ? Int(e.u16() & 0x7FFF) : Int(e.u8() & 0x7F)
                            guard index > 0 else { continue }  // no property
                            guard index <= properties.count else {
                                throw HEIFFile.failure("item \(id) names property \(index) of \(properties.count)")
                            }
                            it.properties.append(properties[index - 1])
                        }
                        items[id] = it
                    }
                }
            case "idat":
                idat = box.payload
            default:
                continue
            }
        }
        guard let primary else { throw HEIFFile.failure("no primary item ('pitm')") }
        guard items[primary]?.type.isEmpty == false else { throw HEIFFile.failure("the primary item \(primary) is not described") }
        self.primary = primary
        self.items = items
        self.idat = idat
    }

    /// An item's bytes: its extents, one after another, from the file or from `idat`.
    package func data(of id: UInt32, limit: Int = HEIFFile.maxBytes) throws -> Data {
        guard let it = items[id] else { throw HEIFFile.failure("item \(id) is not described") }
        let source = it.inIdat ? idat : file
        var out = Data()
        for e in it.extents {
            let (start, overflow) = it.baseOffset.addingReportingOverflow(e.offset)
            // A length of 0 is "to the end of the source".
            let length = e.length == 0 && !overflow && start <= UInt64(source.count) ? UInt64(source.count) - start : e.length
            guard !overflow, start <= UInt64(source.count), length <= UInt64(source.count) - start else {
                throw HEIFFile.failure("item \(id)'s data lies outside the \(it.inIdat ? "'idat' box" : "file")")
            }
            guard out.count + Int(length) <= limit else { throw HEIFFile.failure("item \(id) is larger than sdrify reads") }
            out.append(source[(source.startIndex + Int(start))..<(source.startIndex + Int(start + length))])
        }
        return out
    }

    package func grid(_ id: UInt32) throws -> Grid {
        var r = Reader(try data(of: id, limit: 64), "the grid of item \(id)")
        _ = try r.u8()
        let flags = try r.u8()
        let rows = try Int(r.u8()) + 1, columns = try Int(r.u8()) + 1
        let wide = flags & 1 != 0
        let width = try wide ? Int(r.u32()) : Int(r.u16()), height = try wide ? Int(r.u32()) : Int(r.u16())
        guard width > 0, height > 0 else { throw HEIFFile.failure("a grid of \(width)x\(height)") }
        return Grid(rows: rows, columns: columns, width: width, height: height)
    }

    package typealias Box = Boxes.Box

    static func boxes(_ data: Data, from: Int = 0, in parent: String, tolerateTail: Bool = false) throws -> [Box] {
        try Boxes.all(data, from: from, in: parent, tolerateTail: tolerateTail, damage: failure)
    }

    static func fourcc(_ d: Data, _ at: Int) -> String { Boxes.fourcc(d, at) }

    static func property(_ box: Box) throws -> Property {
        var r = Reader(box.payload, "'\(box.type)'")
        switch box.type {
        case "hvcC": return .hvcC(box.payload)
        case "av1C": return .av1C(box.payload)
        case "ispe":
            try r.skip(4)
            return .ispe(width: Int(try r.u32()), height: Int(try r.u32()))
        case "irot": return .irot(quarterTurnsAnticlockwise: Int(try r.u8() & 3))
        case "imir": return .imir(leftRight: try r.u8() & 1 == 1)
        case "colr":
            let kind = try r.fourcc()
            switch kind {
            case "nclx":
                let p = try Int(r.u16()), t = try Int(r.u16()), m = try Int(r.u16())
                return .nclx(primaries: p, transfer: t, matrix: m, fullRange: try r.u8() & 0x80 != 0)
            case "prof", "rICC": return .icc(Data(box.payload.dropFirst(4)))
            default: return .other("colr \(kind)")
            }
        case "pixi":
            try r.skip(4)
            let n = try Int(r.u8())
            return .pixi(bits: try (0..<n).map { _ in Int(try r.u8()) })
        case "clap":
            var v: [Double] = []
            for _ in 0..<4 {
                let num = Int32(bitPattern: try r.u32()), den = try r.u32()
                guard den != 0 else { throw failure("a clean aperture with a denominator of 0") }
                v.append(Double(num) / Double(den))
            }
            return .clap(width: v[0], height: v[1], horizontalOffset: v[2], verticalOffset: v[3])
        case "auxC":
            try r.skip(4)
            let bytes = box.payload.dropFirst(4).prefix { $0 != 0 }
            return .auxC(String(decoding: bytes, as: UTF8.self))
        default: return .other(box.type)
        }
    }

    /// Big-endian reads that fail (as damage) past the end.
    struct Reader {
        let data: Data
        let what: String
        private(set) var at = 0

        package init(_ data: Data, _ what: String) { self.data = data; self.what = what }
        var atEnd: Bool { at >= data.count }

        mutating func bytes(_ n: Int) throws -> Data {
            guard n >= 0, at + n <= data.count else { throw HEIFFile.failure("\(what) is cut short") }
            defer { at += n }
            return data[(data.startIndex + at)..<(data.startIndex + at + n)]
        }
        mutating func skip(_ n: Int) throws { _ = try bytes(n) }
        mutating func uint(_ n: Int) throws -> UInt64 { try bytes(n).reduce(0) { $0 << 8 | UInt64($1) } }
        mutating func u8() throws -> UInt8 { UInt8(try uint(1)) }
        mutating func u16() throws -> UInt16 { UInt16(try uint(2)) }
        mutating func u24() throws -> UInt32 { UInt32(try uint(3)) }
        mutating func u32() throws -> UInt32 { UInt32(try uint(4)) }
        mutating func fourcc() throws -> String { HEIFFile.fourcc(try bytes(4), 0) }
    }
}
