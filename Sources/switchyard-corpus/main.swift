// switchyard-corpus: writes N seeded, realistic records of one catalog to stdout, for memory and
// throughput checks of `switchyard replay` (scripts/replay-memory.sh). Deterministic for a given seed.
//
//   switchyard-corpus [--catalog payments|feeds] [--count N] [--seed S] [--kcat] [--partitions P]
//
// NDJSON (one record value per line) by default; with --kcat, `kcat -C -J` envelopes (topic, partition,
// offset, tstype, ts, headers, key, payload) spread round-robin over P partitions.
import Foundation
import Switchyard
import SwitchyardCatalog

#if canImport(Glibc)
import Glibc
#endif

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("switchyard-corpus: \(message)\n".utf8))
    exit(64)
}

var catalog = ShippedCatalog.feeds
var count = 1000
var seed: UInt64 = 42
var kcat = false
var partitions = 4
var arguments = Array(CommandLine.arguments.dropFirst())
while !arguments.isEmpty {
    let name = arguments.removeFirst()
    func value() -> String {
        guard !arguments.isEmpty else { fail("\(name) needs a value") }
        return arguments.removeFirst()
    }
    switch name {
    case "--catalog":
        guard let c = ShippedCatalog(rawValue: value()) else { fail("--catalog must be payments or feeds") }
        catalog = c
    case "--count":
        guard let n = Int(value()), n >= 0 else { fail("--count needs a non-negative integer") }
        count = n
    case "--seed":
        guard let s = UInt64(value()) else { fail("--seed needs an unsigned integer") }
        seed = s
    case "--partitions":
        guard let p = Int(value()), p >= 1 else { fail("--partitions needs a positive integer") }
        partitions = p
    case "--kcat":
        kcat = true
    case "-h", "--help":
        print("USAGE: switchyard-corpus [--catalog payments|feeds] [--count N] [--seed S] [--kcat] [--partitions P]")
        exit(0)
    default:
        fail("unknown argument '\(name)'")
    }
}

var generator = CorpusGenerator(seed: seed)
var out: [UInt8] = []
out.reserveCapacity(1 << 17)
var offsets = [Int](repeating: 0, count: partitions)
let baseTimestamp: Int64 = 1_767_225_600_000  // 2026-01-01T00:00:00Z
func flush(_ out: inout [UInt8]) {
    out.withUnsafeBytes { b in
        var done = 0
        while done < b.count {
            let n = write(1, b.baseAddress! + done, b.count - done)
            if n <= 0 { exit(n == 0 ? 0 : 74) }
            done += n
        }
    }
    out.removeAll(keepingCapacity: true)
}
for i in 0..<count {
    let record = generator.next(catalog)
    if kcat {
        let partition = i % partitions
        var envelope = JSONObject()
        envelope.set("topic", catalog.rawValue)
        envelope.set("partition", partition)
        envelope.set("offset", offsets[partition])
        envelope.set("tstype", "create")
        envelope.set("ts", baseTimestamp + Int64(i))
        envelope.set("headers", ["source", "switchyard-corpus"])
        envelope.set("key", record.key)
        envelope.set("payload", String(decoding: record.value, as: UTF8.self))
        offsets[partition] += 1
        out.append(contentsOf: envelope.bytes)
    } else {
        out.append(contentsOf: record.value)
    }
    out.append(0x0A)
    if out.count >= 1 << 16 { flush(&out) }
}
flush(&out)
