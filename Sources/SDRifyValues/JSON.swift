import Foundation

/// A JSON value with ordered object keys and explicit nulls, so reports read in a stable, documented order.
package indirect enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    package static func == (l: JSONValue, r: JSONValue) -> Bool { l.serialized() == r.serialized() }

    /// An object's value for `key` (nil for a missing key or a value that is not an object).
    package subscript(key: String) -> JSONValue? {
        guard case .object(let fields) = self else { return nil }
        return fields.first { $0.0 == key }?.1
    }
    package var number: Double? {
        switch self {
        case .int(let i): Double(i)
        case .double(let d): d
        default: nil
        }
    }
    package var text: String? { if case .string(let s) = self { s } else { nil } }
    package var items: [JSONValue]? { if case .array(let a) = self { a } else { nil } }

    /// Compact or two-space indented text.
    package func serialized(pretty: Bool = false) -> String {
        var out = ""
        write(into: &out, pretty: pretty, indent: 0)
        return out
    }

    private func write(into out: inout String, pretty: Bool, indent: Int) {
        let pad = pretty ? String(repeating: "  ", count: indent + 1) : ""
        let close = pretty ? "\n" + String(repeating: "  ", count: indent) : ""
        let newline = pretty ? "\n" : ""
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .double(let d): out += JSONValue.format(d)
        case .string(let s): out += JSONValue.quote(s)
        case .array(let items):
            if items.isEmpty { out += "[]"; return }
            out += "[" + newline
            for (i, item) in items.enumerated() {
                out += pad
                item.write(into: &out, pretty: pretty, indent: indent + 1)
                if i < items.count - 1 { out += "," }
                out += newline
            }
            out += (pretty ? String(repeating: "  ", count: indent) : "") + "]"
        case .object(let fields):
            if fields.isEmpty { out += "{}"; return }
            out += "{" + newline
            for (i, (key, value)) in fields.enumerated() {
                out += pad + JSONValue.quote(key) + (pretty ? ": " : ":")
                value.write(into: &out, pretty: pretty, indent: indent + 1)
                if i < fields.count - 1 { out += "," }
                out += newline
            }
            out += (pretty ? close.dropFirst() : "") + "}"
        }
    }

    /// Finite numbers only (JSON has no NaN); integers print without a fraction, others with up to 6 decimals.
    static func format(_ d: Double) -> String {
        guard d.isFinite else { return "null" }
        if d == d.rounded(), abs(d) < 1e15 { return String(Int64(d)) }
        var s = String(format: "%.6f", d)
        while s.hasSuffix("0") { s.removeLast() }
        if s.hasSuffix(".") { s.removeLast() }
        return s
    }

    static func quote(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if u.value < 0x20 { out += String(format: "\\u%04x", u.value) } else { out.unicodeScalars.append(u) }
            }
        }
        return out + "\""
    }
}

extension JSONValue {
    /// A time in a report: seconds to the microsecond.
    package static func seconds(_ s: Double) -> JSONValue { .double((s * 1_000_000).rounded() / 1_000_000) }
    package static func seconds(_ t: MediaTime) -> JSONValue { seconds(t.seconds) }

    package static func number(_ d: Double?) -> JSONValue { d.map { .double($0) } ?? .null }
    package static func integer(_ i: Int?) -> JSONValue { i.map { .int(Int64($0)) } ?? .null }
}
