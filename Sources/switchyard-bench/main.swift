import CSimdjsonBench
import Foundation
import Switchyard
import SwitchyardCatalog

// The Swift side of `make bench` (scripts/bench.sh drives it):
//
//   switchyard-bench corpus DIR COUNT [REPLAY_COUNT]   write DIR/{payments,feeds,commerce}.ndjson (COUNT
//                                                      records each) and DIR/{payments,feeds}-replay.ndjson
//                                                      (REPLAY_COUNT)
//   switchyard-bench run DIR REPS [TOPICS] [WORKLOADS] measure, one JSON object per line on stdout
//   switchyard-bench probe COUNT [WORKLOAD]            a quick in-memory probe (profiling, callgrind)
//
// Every workload runs single-threaded over the same bytes: one warm-up pass, then REPS timed passes;
// the best and the median are reported.
//
// Topics: the shipped catalogs (payments, feeds) and `commerce`, the bench's own catalog of what teams'
// schemas carry beyond them (unions, maps, nullable members, exact numbers; Schemas/commerce, generated
// on every build by the SwitchyardCodegen plugin).

let arguments = Array(CommandLine.arguments.dropFirst())

/// The seed: the same corpus on every machine.
let corpusSeed: UInt64 = 6

/// A topic the bench measures.
enum BenchTopic: String, CaseIterable {
    case payments, feeds, commerce

    var catalog: Catalog {
        switch self {
        case .payments: .payments
        case .feeds: .feeds
        case .commerce: Catalog(CommerceEvent.self)
        }
    }

    var shipped: ShippedCatalog? { ShippedCatalog(rawValue: rawValue) }

    /// `count` seeded records, each a line.
    func records(_ count: Int) -> [[UInt8]] {
        if let shipped {
            var generator = CorpusGenerator(seed: corpusSeed)
            return (0..<count).map { _ in generator.next(shipped).value }
        }
        var generator = CommerceCorpus(seed: corpusSeed)
        return (0..<count).map { _ in Array(generator.next().utf8) }
    }
}

// MARK: - Corpus

/// NDJSON records in one buffer, with the range of each line.
struct Corpus {
    /// The file's bytes plus simdjson's padding (zeros) after the end.
    var bytes: [UInt8]
    var byteCount: Int
    var ranges: [Range<Int>]

    init(path: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        byteCount = data.count
        bytes = [UInt8](data)
        bytes.append(contentsOf: repeatElement(0, count: sy_simdjson_padding()))
        ranges = []
        var start = 0
        for i in 0..<byteCount where bytes[i] == UInt8(ascii: "\n") {
            if i > start { ranges.append(start..<i) }
            start = i + 1
        }
        if start < byteCount { ranges.append(start..<byteCount) }
    }

    var count: Int { ranges.count }
}

func writeCorpus(directory: String, count: Int, replayCount: Int) throws {
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    for topic in BenchTopic.allCases {
        // `switchyard replay` knows the shipped catalogs only.
        let replayed = topic.shipped == nil ? 0 : replayCount
        var small: [UInt8] = []
        var large: [UInt8] = []
        for (i, record) in topic.records(max(count, replayed)).enumerated() {
            if i < count {
                small.append(contentsOf: record)
                small.append(UInt8(ascii: "\n"))
            }
            if i < replayed {
                large.append(contentsOf: record)
                large.append(UInt8(ascii: "\n"))
            }
        }
        try Data(small).write(to: URL(fileURLWithPath: "\(directory)/\(topic.rawValue).ndjson"))
        if replayed > 0 {
            try Data(large).write(to: URL(fileURLWithPath: "\(directory)/\(topic.rawValue)-replay.ndjson"))
        }
    }
}

// MARK: - Workloads

/// One pass over the corpus; returns a count that depends on the work (so it cannot be dropped).
typealias Pass = (Corpus) -> Int

/// `keepsEvents: false` is what the worker decodes on a topic with no handler and no republish: the
/// outcome, type and diagnosis without the event (strings validated, not kept).
func switchyardDecoding(_ topic: BenchTopic, keepsEvents: Bool) -> Pass {
    let template = TopicCodec(catalog: topic.catalog, policy: topic.catalog.defaultPolicy, keepsEvents: keepsEvents)
    return { corpus in
        // A local codec (its buffers are shared with the template): a mutable variable captured by the
        // closure would cost an exclusivity check per record, which is the harness, not the decoder.
        var codec = template
        var decoded = 0
        corpus.bytes.withUnsafeBytes { all in
            for range in corpus.ranges {
                let record = codec.decode(UnsafeRawBufferPointer(rebasing: all[range]))
                if case .decoded = record.outcome { decoded += 1 }
            }
        }
        return decoded
    }
}

func switchyardDecode(_ topic: BenchTopic) -> Pass { switchyardDecoding(topic, keepsEvents: true) }
func switchyardOutcomes(_ topic: BenchTopic) -> Pass { switchyardDecoding(topic, keepsEvents: false) }

func switchyardRoundTrip(_ topic: BenchTopic) -> Pass {
    let template = TopicCodec(catalog: topic.catalog, policy: topic.catalog.defaultPolicy)
    return { corpus in
        var codec = template  // as in switchyardDecoding
        var written = 0
        corpus.bytes.withUnsafeBytes { all in
            for range in corpus.ranges {
                let record = codec.decode(UnsafeRawBufferPointer(rebasing: all[range]))
                // What republishing sends: the canonical encoding, or an unknown event's own bytes.
                guard let event = record.event else { continue }
                do {
                    written += try TopicCodec.canonicalBytes(of: event).count
                } catch {
                    // A decoded event that cannot be encoded is a bug, not a benchmark result.
                    fatalError("canonical encoding failed in the benchmark: \(error)")
                }
            }
        }
        return written
    }
}

func foundationDecode(_ topic: BenchTopic) -> Pass {
    func run<Catalog: EventCatalog>(_ type: Catalog.Type) -> Pass {
        let decoder = JSONDecoder()
        return { corpus in
            var decoded = 0
            for range in corpus.ranges {
                // Data from the record's bytes, as a consumer handed a librdkafka buffer would build.
                let data = corpus.bytes.withUnsafeBytes { Data(UnsafeRawBufferPointer(rebasing: $0[range])) }
                do {
                    _ = try decoder.decode(Catalog.self, from: data)
                    decoded += 1
                } catch let error as DecodingError {
                    // Classify like Switchyard does, so that both pay for a diagnosis.
                    decoded += DecodeFailure(error, type: nil).path.isEmpty ? 0 : 0
                } catch {}
            }
            return decoded
        }
    }
    switch topic {
    case .payments: return run(PaymentEvent.self)
    case .feeds: return run(FeedEvent.self)
    case .commerce: return run(CommerceEvent.self)
    }
}

func simdjsonParse(_ topic: BenchTopic) -> Pass {
    { corpus in
        var valid = 0
        var checksum = 0
        corpus.bytes.withUnsafeBytes { all in
            _ = sy_simdjson_parse_lines(all.baseAddress!.assumingMemoryBound(to: CChar.self), corpus.byteCount, &valid, &checksum)
        }
        return valid + checksum
    }
}

nonisolated(unsafe) let workloads: [(peer: String, workload: String, make: (BenchTopic) -> Pass)] = [
    ("switchyard", "decode", switchyardDecode),
    ("switchyard", "outcome only", switchyardOutcomes),
    ("switchyard", "decode+encode", switchyardRoundTrip),
    ("foundation", "decode", foundationDecode),
    ("simdjson", "parse", simdjsonParse),
]

func seconds(_ d: Duration) -> Double {
    Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
}

/// A warm-up pass, then `reps` timed passes: best and median events/s.
func measure(_ pass: Pass, _ corpus: Corpus, reps: Int) -> (best: Double, median: Double, result: Int) {
    var result = pass(corpus)
    var rates: [Double] = []
    let clock = ContinuousClock()
    for _ in 0..<reps {
        let elapsed = clock.measure { result = pass(corpus) }
        rates.append(Double(corpus.count) / seconds(elapsed))
    }
    rates.sort()
    return (rates.last!, rates[rates.count / 2], result)
}

func run(directory: String, reps: Int, topics: [String], only: Set<String>?) throws {
    for topic in topics {
        guard let benchTopic = BenchTopic(rawValue: topic) else { throw CommandError("unknown topic \(topic)") }
        let corpus = try Corpus(path: "\(directory)/\(topic).ndjson")
        for w in workloads where only?.contains("\(w.peer) \(w.workload)") ?? true {
            let r = measure(w.make(benchTopic), corpus, reps: reps)
            var line = JSONObject()
            line.set("peer", w.peer)
            line.set("workload", w.workload)
            line.set("topic", topic)
            line.set("records", corpus.count)
            line.set("eventsPerSecond", r.best)
            line.set("median", r.median)
            line.set("ok", r.result)
            FileHandle.standardOutput.write(Data((line.text + "\n").utf8))
        }
    }
}

/// A quick probe on generated records in memory: for perf and callgrind (`probe 20000 "switchyard decode"`).
func probe(count: Int, only: String?, topic: BenchTopic) throws {
    var text: [UInt8] = []
    for record in topic.records(count) {
        text.append(contentsOf: record)
        text.append(UInt8(ascii: "\n"))
    }
    let path = NSTemporaryDirectory() + "switchyard-probe-\(getpid()).ndjson"
    try Data(text).write(to: URL(fileURLWithPath: path))
    defer { try? FileManager.default.removeItem(atPath: path) }
    let corpus = try Corpus(path: path)
    for w in workloads where only == nil || "\(w.peer) \(w.workload)" == only {
        let pass = w.make(topic)
        let clock = ContinuousClock()
        var result = 0
        let elapsed = clock.measure { result = pass(corpus) }
        print("\(w.peer) \(w.workload): \(Int(Double(corpus.count) / seconds(elapsed))) records/s (\(result))")
    }
}

struct CommandError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

do {
    switch arguments.first {
    case "corpus" where arguments.count >= 3:
        try writeCorpus(directory: arguments[1], count: Int(arguments[2])!, replayCount: arguments.count > 3 ? Int(arguments[3])! : 0)
    case "run" where arguments.count >= 3:
        let topics = arguments.count > 3 ? arguments[3].split(separator: ",").map(String.init) : BenchTopic.allCases.map(\.rawValue)
        let only = arguments.count > 4 ? Set(arguments[4].split(separator: ",").map(String.init)) : nil
        try run(directory: arguments[1], reps: Int(arguments[2])!, topics: topics, only: only)
    case "probe":
        let count = arguments.count > 1 ? Int(arguments[1])! : 200_000
        let name = ProcessInfo.processInfo.environment["PROBE_TOPIC"] ?? "payments"
        guard let topic = BenchTopic(rawValue: name) else { throw CommandError("unknown topic \(name)") }
        try probe(count: count, only: arguments.count > 2 ? arguments[2] : nil, topic: topic)
    default:
        FileHandle.standardError.write(Data("usage: switchyard-bench corpus DIR COUNT [REPLAY_COUNT] | run DIR REPS [TOPICS] [WORKLOADS] | probe [COUNT] [WORKLOAD]\n".utf8))
        exit(64)
    }
} catch {
    FileHandle.standardError.write(Data("switchyard-bench: \(error)\n".utf8))
    exit(70)
}
