import Foundation
@testable import SDRifyProbe
@testable import SDRifyValues
import XCTest

/// sdrify's own XML reader (TTML and GPX): what a well-formed document says, told in order; every malformed one
/// refused with its line, never a crash; no entity but the predefined ones expanded.
final class XMLReaderTests: XCTestCase {
    final class Recorder: XMLHandler {
        var events: [String] = []
        func start(_ name: String, attributes: [String: String]) {
            events.append("<\(name)" + attributes.sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined() + ">")
        }
        func end(_ name: String) { events.append("</\(name)>") }
        func text(_ text: String) { events.append(text) }
    }

    func read(_ text: String) throws -> [String] { try read(Data(text.utf8)) }

    func read(_ data: Data) throws -> [String] {
        let r = Recorder()
        try XMLReader.read(data, path: "t.xml", what: "XML", handler: r)
        return r.events
    }

    func testWellFormedDocumentsAreToldInOrder() throws {
        let doc = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE tt [ <!ENTITY a "&b;&b;"> <!ENTITY b "x"> ]>
            <!-- a comment -->
            <tt xmlns:tts='http://www.w3.org/ns/ttml#styling'><p begin="1s" tts:color="#FF0000">A &amp; B &lt;&#233;&#xE9;&gt;<br/><![CDATA[<raw>]]>&a;</p></tt>
            """
        XCTAssertThrowsError(try read(doc), "an entity of the document type is not expanded")
        let plain = doc.replacingOccurrences(of: "&a;", with: "")
        XCTAssertEqual(
            try read(plain),
            [
                "<tt xmlns:tts=http://www.w3.org/ns/ttml#styling>", "<p begin=1s tts:color=#FF0000>", "A & B <éé>", "<br>", "</br>", "<raw>",
                "</p>", "</tt>"
            ])
    }

    func testEncodingsAreReadAsTheyAreDeclared() throws {
        let latin1 = Data("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><a>caf".utf8) + Data([0xE9]) + Data("</a>".utf8)
        XCTAssertEqual(try read(latin1), ["<a>", "café", "</a>"])
        let utf16 = "<a>ü</a>".data(using: .utf16)!  // with its byte-order mark
        XCTAssertEqual(try read(utf16), ["<a>", "ü", "</a>"])
        XCTAssertEqual(try read(Data([0xEF, 0xBB, 0xBF]) + Data("<a/>".utf8)), ["<a>", "</a>"], "a UTF-8 byte-order mark")
        let unknown = Data("<?xml version=\"1.0\" encoding=\"UTF?8\"?><a b".utf8) + Data([0xFF]) + Data("=\"1\"/>".utf8)
        XCTAssertThrowsError(try read(unknown)) { XCTAssertTrue("\($0)".contains("not UTF-8 text"), "\($0)") }
    }

    func testMalformedDocumentsAreRefusedWithTheirLine() throws {
        let cases = [
            "<a><b></a></b>": "</a> closes nothing open", "<a>": "<a> not closed", "<a x=\"1\" x=\"2\"/>": "given twice",
            "<a>&nope;</a>": "unknown reference", "<a/><b/>": "a second root element", "x<a/>": "text outside the root element",
            "<a>\n<?x?>\n<b x=1/></a>": "line 3: an attribute value without quotes", "<a><!-- open": "a comment not closed",
            "<?x?>": "no element", "<a>&#0;</a>": "unknown reference", "<a b=\"<\"/>": "'<' in an attribute value", "": "no element"
        ]
        for (doc, words) in cases {
            XCTAssertThrowsError(try read(doc), doc) { e in
                XCTAssertTrue("\(e)".contains(words) && "\(e)".hasPrefix("t.xml: malformed XML (line"), "\(doc): \(e)")
                XCTAssertEqual((e as? SDRifyError)?.status, .invalidInput, doc)
            }
        }
    }

    /// Documents of 100,000 unclosed constructs are refused (each construct is scanned once; BENCHMARKS.md has the times).
    func testHostileDocumentsAreReadInOnePass() throws {
        for hostile in [
            String(repeating: "<a>", count: 100_000), "<a>" + String(repeating: "&amp", count: 100_000) + "</a>",
            "<a " + String(repeating: "b=\"1\" ", count: 1) + String(repeating: "<", count: 100_000)
        ] {
            XCTAssertThrowsError(try read(hostile))
        }
    }
}
