import SwitchyardKafka

extension DeadLetterHeaders {
    /// On a dead letter written without the record's value (too large for the producer or the DLQ topic): why.
    public static let payloadOmitted = "switchyard.payload.omitted"
    /// The omitted value's size in bytes.
    public static let payloadSize = "switchyard.payload.size"
    /// The omitted value's SHA-256, hex.
    public static let payloadSHA256 = "switchyard.payload.sha256"
    /// The omitted value's first bytes (at most ``Effects/Send/omittedPayloadHead``).
    public static let payloadHead = "switchyard.payload.head"
}

extension Effects.Send {
    /// How many of an omitted value's first bytes a dead letter keeps.
    static let omittedPayloadHead = 64

    /// Whether this is a dead letter written without the record's value.
    var omitsPayload: Bool { record.headers.contains { $0.name == DeadLetterHeaders.payloadOmitted } }

    /// The same dead letter without the record's value, so that it can always be written: the original's
    /// coordinates and diagnosis stay in the headers, with the value's size, SHA-256 and first bytes; the
    /// record itself stays in the source topic at its offset.
    func withoutPayload(because reason: String) -> Effects.Send {
        let value = record.value ?? []
        var headers = record.headers
        headers.append(KafkaHeader(name: DeadLetterHeaders.payloadOmitted, string: reason))
        headers.append(KafkaHeader(name: DeadLetterHeaders.payloadSize, string: String(value.count)))
        headers.append(KafkaHeader(name: DeadLetterHeaders.payloadSHA256, string: ReleaseSigning.hex(ReleaseSigning.sha256(value))))
        headers.append(KafkaHeader(name: DeadLetterHeaders.payloadHead, value: Array(value.prefix(Self.omittedPayloadHead))))
        // An empty value, not null: null is a tombstone, which a compacted DLQ would treat as a deletion.
        var out = record
        out.value = []
        out.headers = headers
        var send = Effects.Send(record: out, source: source, kind: kind, topic: topic)
        send.group = group
        return send
    }

    /// Whether this is a dead letter (the worker's own, or a handler's).
    var isDeadLetter: Bool {
        switch kind {
        case .deadLetter, .handlerDeadLetter: true
        case .republish, .publish: false
        }
    }
}

extension Effects {
    /// librdkafka's errors for a record too large for the producer's `message.max.bytes` or the topic's
    /// `max.message.bytes`.
    static func isTooLarge(_ error: any Error) -> Bool {
        guard let error = error as? KafkaError else { return false }
        return ["MSG_SIZE_TOO_LARGE", "_MSG_SIZE_TOO_LARGE", "RECORD_LIST_TOO_LARGE"].contains(error.rdKafkaName)
    }
}
