import SwitchyardJSON

// The catalogs this package ships, generated from `Schemas/` (Generated/, by `switchyard-codegen`
// from switchyard-codegen.json). The `switchyard` executable is built with them; a team's own binary
// lists its own catalogs instead (`SwitchyardCommand.main(catalogs:)`).

extension Catalog {
    /// The `payments` catalog (strict).
    public static let payments = Catalog(PaymentEvent.self)
    /// The `feeds` catalog (lenient).
    public static let feeds = Catalog(FeedEvent.self)
    /// Both shipped catalogs, as the `switchyard` executable is built with them.
    public static let shipped: [Catalog] = [.payments, .feeds]
}

// The shipped catalogs' types by their short names. Generated types live in their catalog's enum
// (`PaymentEvent.Money`), so that a team's own `Money` never collides with them; this module holds no
// other code, so the short names are safe here.

/// `payment.authorized`.
public typealias PaymentAuthorized = PaymentEvent.PaymentAuthorized
/// `payment.captured`.
public typealias PaymentCaptured = PaymentEvent.PaymentCaptured
/// `payment.refunded`.
public typealias PaymentRefunded = PaymentEvent.PaymentRefunded
/// `payment.failed`.
public typealias PaymentFailed = PaymentEvent.PaymentFailed
/// An amount in minor units of its currency.
public typealias Money = PaymentEvent.Money
/// The merchant of a payment.
public typealias Merchant = PaymentEvent.Merchant
/// The card of a card payment.
public typealias Card = PaymentEvent.Card
/// How the customer pays (open enum).
public typealias PaymentMethod = PaymentEvent.PaymentAuthorized.PaymentMethod
/// Why a payment was refunded (open enum).
public typealias RefundReason = PaymentEvent.PaymentRefunded.RefundReason
/// Why a payment failed.
public typealias PaymentFailureReason = PaymentEvent.PaymentFailed.PaymentFailureReason
/// `post.created`.
public typealias PostCreated = FeedEvent.PostCreated
/// `post.liked`.
public typealias PostLiked = FeedEvent.PostLiked
/// `comment.added`.
public typealias CommentAdded = FeedEvent.CommentAdded
/// `user.followed`.
public typealias UserFollowed = FeedEvent.UserFollowed
/// Who may see a post (open enum).
public typealias Visibility = FeedEvent.PostCreated.Visibility
