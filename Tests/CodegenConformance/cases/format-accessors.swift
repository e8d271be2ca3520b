import Foundation
import SwitchyardJSON
import CFormatAccessors

/// The typed accessors of `format-accessors.json` on its records, decoded on both paths: a text in its
/// format gives the Foundation value, a malformed, absent or null one gives nil, and the member keeps the
/// text as written.
func checkFormatAccessors(_ records: [[UInt8]]) -> [String] {
    var failures: [String] = []
    func expect(_ condition: Bool, _ what: String, line: Int = #line) {
        if !condition { failures.append("format-accessors.swift:\(line): \(what)") }
    }
    func events(_ record: [UInt8]) -> [FormatAccessorsEvent.OrderPlaced] {
        [false, true].compactMap { fast in
            var decoder = EventDecoder<FormatAccessorsEvent>(usesFastPath: fast)
            guard case .decoded(.placed(let event)) = decoder.decode(record).outcome else { return nil }
            return event
        }
    }
    guard records.count == 5 else { return ["format-accessors.swift: expected 5 records, read \(records.count)"] }

    let wellFormed = events(records[0])
    expect(wellFormed.count == 2, "the well-formed record decodes on both paths")
    for event in wellFormed {
        expect(event.orderIdUUID == UUID(uuidString: "6A2F41A3-C54C-FCE8-32D2-0324E1C32E22"), "orderIdUUID is the uuid")
        expect(event.orderId == "6a2f41a3-c54c-fce8-32d2-0324e1c32e22", "orderId keeps the text as written (lower case)")
        expect(event.callbackURL == URL(string: "https://example.com/hook?x=1"), "callbackURL is the uri")
        expect(event.callbackURL?.host == "example.com", "callbackURL's host")
        expect(event.sourceURL?.relativeString == "../orders/1", "sourceURL is the uri-reference")
        expect(event.shipOnDate == Date(timeIntervalSince1970: 1_772_323_200), "shipOnDate is 2026-03-01 00:00 UTC")
        expect(event.classUUID?.uuidString == "6A2F41A3-C54C-FCE8-32D2-0324E1C32E22", "classUUID (a keyword member)")
        expect(event.lines?.first?.skuUUID == UUID(uuidString: "00000000-0000-0000-0000-000000000001"), "a nested struct's accessor")
    }

    let malformed = events(records[1])
    expect(malformed.count == 2, "a record with malformed formats decodes (formats are annotations)")
    for event in malformed {
        expect(event.orderIdUUID == nil && event.orderId == "not a uuid", "orderIdUUID is nil, the text kept")
        expect(event.callbackURL == nil && event.callback == "not a url", "callbackURL is nil, the text kept")
        expect(event.sourceURL == nil && event.source == "a b", "sourceURL is nil for a text URL would change")
        expect(event.shipOnDate == nil && event.shipOn == "2026-02-30", "shipOnDate is nil for a day that does not exist")
        expect(event.classUUID == nil, "classUUID is nil")
        expect(event.lines?.first?.skuUUID == nil, "an empty sku gives nil")
    }

    let sparse = events(records[2])
    expect(sparse.count == 2, "the record without optional members decodes")
    for event in sparse {
        expect(event.orderIdUUID == nil, "an empty required uuid gives nil")
        expect(event.sourceURL == nil && event.source == nil && event.$source.isNull, "a null member gives nil")
        expect(event.callbackURL == nil && event.shipOnDate == nil && event.classUUID == nil, "absent members give nil")
    }
    return failures
}
