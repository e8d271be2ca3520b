import Testing

import SwitchyardCatalog
import SwitchyardJSON

/// `switchyard.error.type` of a dead letter: the record's tag when it can be read, whatever made the decode
/// fail, and nothing when it cannot. The tag is read with the decoder's own workspace once the decode has
/// failed, so the records after a failure must decode as if it had not happened.
@Suite struct FailureTypeTests {
    static let envelope = #""id":"evt_01J5VKQ18SWS3RB8ZAQBZDCRK6","occurredAt":"2026-08-01T07:33:31.875Z","schemaVersion":2"#
    static let liked = #"{"type":"post.liked",\#(envelope),"postId":"post_1","userId":"usr_1"}"#

    /// (record, the failure's type): a missing member, a wrong element type, a duplicate key (the reader stops
    /// there, and the tag is read again without that rule), invalid JSON, a tag that is not a string, no tag.
    static let cases: [(String, String?)] = [
        (#"{"type":"post.liked",\#(envelope),"postId":"post_1"}"#, "post.liked"),
        (#"{"type":"post.created",\#(envelope),"postId":"p","authorId":"u","text":"t","tags":["a",7],"visibility":"public"}"#, "post.created"),
        (#"{"type":"user.followed",\#(envelope),"followerId":"a","followeeId":"b","followerId":"dup"}"#, "user.followed"),
        (#"{"type":"post.liked",\#(envelope),"postId":"#, nil),
        (#"{"type":7,\#(envelope)}"#, nil),
        (#"{\#(envelope)}"#, nil),
        (#"["type","post.liked"]"#, nil),
    ]

    @Test(arguments: [true, false])
    func theFailureNamesTheTagWhenItCanBeRead(fastPathFirst: Bool) throws {
        var decoder = EventDecoder<FeedEvent>(usesFastPath: fastPathFirst)
        for (record, type) in Self.cases {
            guard case .failed(let failure) = decoder.decode(Array(record.utf8)).outcome else {
                Issue.record("not a failure: \(record)")
                continue
            }
            #expect(failure.type == type, "\(record)")
            // The next record, on the same decoder, through the same paths.
            guard case .decoded(let event) = decoder.decode(Array(Self.liked.utf8)).outcome else {
                Issue.record("the record after \(record) did not decode")
                continue
            }
            #expect(event.type == "post.liked")
            #expect(decoder.lastKnownType == "post.liked")
        }
    }
}
