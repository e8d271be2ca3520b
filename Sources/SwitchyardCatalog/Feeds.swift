import SwitchyardJSON

/// Who may see a post. Open.
public struct Visibility: OpenEnum {
    public enum Known: String, CaseIterable, Sendable {
        case `public`, followers, `private`
    }
    @InlineString public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    init(raw: InlineString) { _rawValue = raw }

    /// The default, kept for the readers (a copy costs less than making it).
    static let defaultValue = Visibility(.public)
}

/// `post.created`.
public struct PostCreated: Event, Hashable {
    public static let type = "post.created"
    public var envelope: Envelope
    @InlineString public var postId: String
    @InlineString public var authorId: String
    @InlineString public var text: String
    /// Default: [].
    public var tags: [String]
    /// Default: public.
    public var visibility: Visibility
    /// Added in schemaVersion 2; v1 records lack it. Default: 0.
    public var mediaCount: Int
    public var unknownFields = UnknownFields()

    public init(
        envelope: Envelope, postId: String, authorId: String, text: String, tags: [String] = [],
        visibility: Visibility = Visibility(.public), mediaCount: Int = 0
    ) {
        self.envelope = envelope
        self.postId = postId
        self.authorId = authorId
        self.text = text
        self.tags = tags
        self.visibility = visibility
        self.mediaCount = mediaCount
    }

    enum CodingKeys: String, EnvelopeCodingKey, CaseIterable { case id, occurredAt, schemaVersion, postId, authorId, text, tags, visibility, mediaCount }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        envelope = try Envelope(from: c)
        postId = try c.decode(String.self, forKey: .postId)
        authorId = try c.decode(String.self, forKey: .authorId)
        text = try c.decode(String.self, forKey: .text)
        tags = try c.decodeIfPresent([String].self, forKey: .tags) ?? []
        visibility = try c.decodeIfPresent(Visibility.self, forKey: .visibility) ?? Visibility(.public)
        mediaCount = try c.decodeIfPresent(Int.self, forKey: .mediaCount) ?? 0
        unknownFields = try UnknownFields(from: decoder, excluding: CodingKeys.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try envelope.encode(to: &c)
        try c.encode(postId, forKey: .postId)
        try c.encode(authorId, forKey: .authorId)
        try c.encode(text, forKey: .text)
        try c.encode(tags, forKey: .tags)
        try c.encode(visibility, forKey: .visibility)
        try c.encode(mediaCount, forKey: .mediaCount)
        try unknownFields.encode(to: encoder)
    }
}

/// `post.liked`.
public struct PostLiked: Event, Hashable {
    public static let type = "post.liked"
    public var envelope: Envelope
    @InlineString public var postId: String
    @InlineString public var userId: String
    public var unknownFields = UnknownFields()

    public init(envelope: Envelope, postId: String, userId: String) {
        self.envelope = envelope
        self.postId = postId
        self.userId = userId
    }

    enum CodingKeys: String, EnvelopeCodingKey, CaseIterable { case id, occurredAt, schemaVersion, postId, userId }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        envelope = try Envelope(from: c)
        postId = try c.decode(String.self, forKey: .postId)
        userId = try c.decode(String.self, forKey: .userId)
        unknownFields = try UnknownFields(from: decoder, excluding: CodingKeys.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try envelope.encode(to: &c)
        try c.encode(postId, forKey: .postId)
        try c.encode(userId, forKey: .userId)
        try unknownFields.encode(to: encoder)
    }
}

/// `comment.added`.
public struct CommentAdded: Event, Hashable {
    public static let type = "comment.added"
    public var envelope: Envelope
    @InlineString public var postId: String
    @InlineString public var commentId: String
    @InlineString public var authorId: String
    @InlineString public var text: String
    public var unknownFields = UnknownFields()

    public init(envelope: Envelope, postId: String, commentId: String, authorId: String, text: String) {
        self.envelope = envelope
        self.postId = postId
        self.commentId = commentId
        self.authorId = authorId
        self.text = text
    }

    enum CodingKeys: String, EnvelopeCodingKey, CaseIterable { case id, occurredAt, schemaVersion, postId, commentId, authorId, text }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        envelope = try Envelope(from: c)
        postId = try c.decode(String.self, forKey: .postId)
        commentId = try c.decode(String.self, forKey: .commentId)
        authorId = try c.decode(String.self, forKey: .authorId)
        text = try c.decode(String.self, forKey: .text)
        unknownFields = try UnknownFields(from: decoder, excluding: CodingKeys.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try envelope.encode(to: &c)
        try c.encode(postId, forKey: .postId)
        try c.encode(commentId, forKey: .commentId)
        try c.encode(authorId, forKey: .authorId)
        try c.encode(text, forKey: .text)
        try unknownFields.encode(to: encoder)
    }
}

/// `user.followed`.
public struct UserFollowed: Event, Hashable {
    public static let type = "user.followed"
    public var envelope: Envelope
    @InlineString public var followerId: String
    @InlineString public var followeeId: String
    public var unknownFields = UnknownFields()

    public init(envelope: Envelope, followerId: String, followeeId: String) {
        self.envelope = envelope
        self.followerId = followerId
        self.followeeId = followeeId
    }

    enum CodingKeys: String, EnvelopeCodingKey, CaseIterable { case id, occurredAt, schemaVersion, followerId, followeeId }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        envelope = try Envelope(from: c)
        followerId = try c.decode(String.self, forKey: .followerId)
        followeeId = try c.decode(String.self, forKey: .followeeId)
        unknownFields = try UnknownFields(from: decoder, excluding: CodingKeys.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try envelope.encode(to: &c)
        try c.encode(followerId, forKey: .followerId)
        try c.encode(followeeId, forKey: .followeeId)
        try unknownFields.encode(to: encoder)
    }
}

/// The `feeds` topic's events. The topic is lenient: unknown types flow on as `.unknown`.
public indirect enum FeedEvent: EventCatalog, Hashable {
    case postCreated(PostCreated)
    case postLiked(PostLiked)
    case commentAdded(CommentAdded)
    case userFollowed(UserFollowed)
    case unknown(type: String, raw: RawJSON)

    public static let name = "feeds"
    public static let eventTypes: [EventType<FeedEvent>] = [
        EventType(PostCreated.self, FeedEvent.postCreated),
        EventType(PostLiked.self, FeedEvent.postLiked),
        EventType(CommentAdded.self, FeedEvent.commentAdded),
        EventType(UserFollowed.self, FeedEvent.userFollowed),
    ]


    public var content: EventContent {
        switch self {
        case .postCreated(let e): .known(e)
        case .postLiked(let e): .known(e)
        case .commentAdded(let e): .known(e)
        case .userFollowed(let e): .known(e)
        case .unknown(let type, let raw): .unknown(type: type, raw: raw)
        }
    }

    public init(from decoder: any Decoder) throws { self = try Self.decodeTagged(from: decoder) }
    public func encode(to encoder: any Encoder) throws { try encodeTagged(to: encoder) }
}

// MARK: - Fast path (feeds)

extension PostCreated: FastCodable {
    static let fields = FieldTable(CodingKeys.self, tag: FeedEvent.tagKey, type: type, optional: [.schemaVersion, .tags, .visibility, .mediaCount])

    /// Every member at its placeholder or default.
    @inline(__always) public init(unread: Void) {
        envelope = .unread
        tags = []
        visibility = .defaultValue
        mediaCount = 0
    }

    public mutating func read(_ cursor: inout JSONCursor) throws(FastPathBail) {
        var members = try cursor.beginObject(Self.fields)
        while let key = try cursor.nextField(Self.fields, &members) {
            switch key {
            case .id, .occurredAt, .schemaVersion: try envelope.read(key, &cursor)
            case .postId: _postId = try cursor.inlineString()
            case .authorId: _authorId = try cursor.inlineString()
            case .text: _text = try cursor.inlineString()
            case .tags: tags = try cursor.null() ? [] : try cursor.strings()
            case .visibility: visibility = try cursor.null() ? .defaultValue : Visibility(raw: try cursor.inlineString())
            case .mediaCount: mediaCount = try cursor.optionalInt() ?? 0
            }
        }
        unknownFields = members.unknown
    }

    public func write(to writer: inout CanonicalWriter) {
        writer.beginEvent(Self.fields)
        envelope.write(to: &writer)
        writer.key("postId")
        writer.string(_postId)
        writer.key("authorId")
        writer.string(_authorId)
        writer.key("text")
        writer.string(_text)
        writer.key("tags")
        writer.strings(tags)
        writer.key("visibility")
        writer.string(visibility.$rawValue)
        writer.key("mediaCount")
        writer.int(mediaCount)
        writer.endObject(unknown: unknownFields)
    }
}

extension PostLiked: FastCodable {
    static let fields = FieldTable(CodingKeys.self, tag: FeedEvent.tagKey, type: type, optional: [.schemaVersion])

    /// Every member at its placeholder or default.
    @inline(__always) public init(unread: Void) {
        envelope = .unread
    }

    public mutating func read(_ cursor: inout JSONCursor) throws(FastPathBail) {
        var members = try cursor.beginObject(Self.fields)
        while let key = try cursor.nextField(Self.fields, &members) {
            switch key {
            case .id, .occurredAt, .schemaVersion: try envelope.read(key, &cursor)
            case .postId: _postId = try cursor.inlineString()
            case .userId: _userId = try cursor.inlineString()
            }
        }
        unknownFields = members.unknown
    }

    public func write(to writer: inout CanonicalWriter) {
        writer.beginEvent(Self.fields)
        envelope.write(to: &writer)
        writer.key("postId")
        writer.string(_postId)
        writer.key("userId")
        writer.string(_userId)
        writer.endObject(unknown: unknownFields)
    }
}

extension CommentAdded: FastCodable {
    static let fields = FieldTable(CodingKeys.self, tag: FeedEvent.tagKey, type: type, optional: [.schemaVersion])

    /// Every member at its placeholder or default.
    @inline(__always) public init(unread: Void) {
        envelope = .unread
    }

    public mutating func read(_ cursor: inout JSONCursor) throws(FastPathBail) {
        var members = try cursor.beginObject(Self.fields)
        while let key = try cursor.nextField(Self.fields, &members) {
            switch key {
            case .id, .occurredAt, .schemaVersion: try envelope.read(key, &cursor)
            case .postId: _postId = try cursor.inlineString()
            case .commentId: _commentId = try cursor.inlineString()
            case .authorId: _authorId = try cursor.inlineString()
            case .text: _text = try cursor.inlineString()
            }
        }
        unknownFields = members.unknown
    }

    public func write(to writer: inout CanonicalWriter) {
        writer.beginEvent(Self.fields)
        envelope.write(to: &writer)
        writer.key("postId")
        writer.string(_postId)
        writer.key("commentId")
        writer.string(_commentId)
        writer.key("authorId")
        writer.string(_authorId)
        writer.key("text")
        writer.string(_text)
        writer.endObject(unknown: unknownFields)
    }
}

extension UserFollowed: FastCodable {
    static let fields = FieldTable(CodingKeys.self, tag: FeedEvent.tagKey, type: type, optional: [.schemaVersion])

    /// Every member at its placeholder or default.
    @inline(__always) public init(unread: Void) {
        envelope = .unread
    }

    public mutating func read(_ cursor: inout JSONCursor) throws(FastPathBail) {
        var members = try cursor.beginObject(Self.fields)
        while let key = try cursor.nextField(Self.fields, &members) {
            switch key {
            case .id, .occurredAt, .schemaVersion: try envelope.read(key, &cursor)
            case .followerId: _followerId = try cursor.inlineString()
            case .followeeId: _followeeId = try cursor.inlineString()
            }
        }
        unknownFields = members.unknown
    }

    public func write(to writer: inout CanonicalWriter) {
        writer.beginEvent(Self.fields)
        envelope.write(to: &writer)
        writer.key("followerId")
        writer.string(_followerId)
        writer.key("followeeId")
        writer.string(_followeeId)
        writer.endObject(unknown: unknownFields)
    }
}

extension FeedEvent {
    public func writeCanonical(to writer: inout CanonicalWriter) -> Bool {
        switch self {
        case .postCreated(let event): event.write(to: &writer)
        case .postLiked(let event): event.write(to: &writer)
        case .commentAdded(let event): event.write(to: &writer)
        case .userFollowed(let event): event.write(to: &writer)
        case .unknown(_, let raw): writer.raw(raw)
        }
        return true
    }
}
