import Foundation
import Switchyard

// Quick decode throughput probe (the full harness is scripts/bench.sh).
let count = Int(CommandLine.arguments.dropFirst().first ?? "200000") ?? 200_000
let only = CommandLine.arguments.dropFirst(2).first
var generator = CorpusGenerator(seed: 1)
var records: [[UInt8]] = []
records.reserveCapacity(count)
for _ in 0..<count { records.append(generator.next(.payments).value) }
let bytes = records.reduce(0) { $0 + $1.count }

func measure(_ name: String, _ records: [[UInt8]], _ body: () -> Int) {
    if let only, name != only { return }
    let start = ContinuousClock.now
    let n = body()
    let elapsed = ContinuousClock.now - start
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    print("\(name): \(Int(Double(records.count) / seconds)) records/s (\(n))")
}

var codec = TopicCodec(catalog: .payments, policy: .strict)
measure("switchyard decode", records) {
    var ok = 0
    for r in records { if case .decoded = codec.decode(r).outcome { ok += 1 } }
    return ok
}
measure("switchyard decode+encode", records) {
    var ok = 0
    for r in records {
        if let e = codec.decode(r).event, let out = try? TopicCodec.canonicalBytes(of: e) { ok += out.count > 0 ? 1 : 0 }
    }
    return ok
}
measure("foundation decode", Array(records.prefix(50_000))) {
    var ok = 0
    let decoder = JSONDecoder()
    for r in records.prefix(50_000) { if (try? decoder.decode(PaymentEvent.self, from: Data(r))) != nil { ok += 1 } }
    return ok
}
print("avg bytes/record: \(bytes / records.count)")
