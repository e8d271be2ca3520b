import SwitchyardKafka
import Testing

/// A record's key, value and headers share one allocation: what goes in comes out, absent and empty stay
/// apart, and a change to one field leaves the others and every other copy as they were.
@Suite("KafkaRecord bytes")
struct KafkaRecordTests {
    let headers = [
        KafkaHeader(name: "trace", string: "a"),
        KafkaHeader(name: "dup", string: "first"),
        KafkaHeader(name: "dup", string: "second"),
        KafkaHeader(name: "null", value: nil),
        KafkaHeader(name: "empty", value: []),
        KafkaHeader(name: "", string: "nameless"),
        KafkaHeader(name: "grüße", value: [0, 255, 10]),
    ]

    @Test("key, value and headers come back as they went in; nil and empty stay distinct")
    func roundTrip() {
        let cases: [([UInt8]?, [UInt8]?, [KafkaHeader])] = [
            (Array("order-1".utf8), Array(#"{"type":"payment.captured"}"#.utf8), headers),
            (nil, nil, []),
            ([], [], []),
            (nil, [], [KafkaHeader(name: "null", value: nil)]),
            ([], nil, []),
            ([0, 255], [0, 1, 2, 3, 255], [KafkaHeader(name: "h", value: [])]),
        ]
        for (key, value, headers) in cases {
            let record = KafkaRecord(topic: "t", partition: 2, offset: 9, key: key, value: value, headers: headers, timestampMilliseconds: 5)
            #expect(record.key == key)
            #expect(record.value == value)
            #expect(record.headers == headers)
            #expect(record.isTombstone == (value == nil))
            #expect(record.valueCount == value?.count)
            record.withUnsafeValue { bytes in
                #expect(bytes.map(Array.init) == value)
            }
            record.withUnsafeKey { bytes in
                #expect(bytes.map(Array.init) == key)
            }
        }
    }

    @Test("setting one field keeps the others, and copies made before are unchanged")
    func setters() {
        let original = KafkaRecord(topic: "t", partition: 0, offset: 1, key: [1, 2], value: [3, 4, 5], headers: headers)
        var record = original
        record.key = nil
        #expect(record.key == nil)
        #expect(record.value == [3, 4, 5])
        #expect(record.headers == headers)
        record.value = nil
        #expect(record.isTombstone)
        #expect(record.headers == headers)
        record.headers = [KafkaHeader(name: "only", string: "one")]
        #expect(record.headers == [KafkaHeader(name: "only", string: "one")])
        #expect(record.key == nil && record.value == nil)
        record.key = [9]
        record.value = []
        #expect(record.key == [9] && record.value == [] && record.headers.count == 1)
        #expect(original.key == [1, 2] && original.value == [3, 4, 5] && original.headers == headers)
    }

    @Test("equal records are equal and hash alike, whatever made them; any byte of difference tells them apart")
    func equality() {
        func make(_ key: [UInt8]?, _ value: [UInt8]?, _ headers: [KafkaHeader]) -> KafkaRecord {
            KafkaRecord(topic: "t", partition: 0, offset: 1, key: key, value: value, headers: headers)
        }
        let a = make([1], [2, 3], headers)
        var b = make(nil, [2, 3], headers)
        b.key = [1]
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        // The same bytes split differently between key and value, or a header's value, are not equal.
        #expect(make([1, 2], [3], headers) != a)
        #expect(make(nil, [1, 2, 3], headers) != make([], [1, 2, 3], headers))
        #expect(make([1], [2], []) != make([1], nil, []))
        #expect(make([1], [2], [KafkaHeader(name: "h", value: nil)]) != make([1], [2], [KafkaHeader(name: "h", value: [])]))
        #expect(make([1], [2], [KafkaHeader(name: "ab", value: [])]) != make([1], [2], [KafkaHeader(name: "a", value: [98])]))
        #expect(Set([a, b, make([1, 2], [3], headers)]).count == 2)
    }
}
