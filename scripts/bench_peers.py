#!/usr/bin/env python3
"""Python peers for `make bench`: msgspec and pydantic v2 tagged unions mirroring the catalogs.

Reads the NDJSON corpus that switchyard-bench wrote, decodes every line (and decode + encode) with
each peer, and prints one JSON object per measurement on stdout.

What the peers do, so that the comparison is honest:

- Both mirror PRODUCT.md's catalogs: Money, Merchant, Card, PaymentFailureReason as nested models;
  open enums as plain `str`; fields added after v1 with their defaults; `schemaVersion` = 1;
  `occurredAt` parsed as a `datetime` (RFC 3339, like Switchyard's Timestamp); a non-empty `id`.
- Tag dispatch: msgspec `Struct(tag_field="type", tag=...)` union; pydantic `Field(discriminator=
  "type")` union. An unrecognised tag raises; the peer then reads the tag alone (a second, tiny
  decode) and keeps the raw bytes, as a consumer with an `.unknown` case would. Malformed records
  raise and are counted as failures (class of the exception only: neither peer reports Foundation's
  DecodingError kinds or Switchyard's paths).
- Unknown fields: msgspec ignores (drops) them, so its decode + encode loses a newer producer's
  fields. pydantic keeps them (`extra="allow"`), as parsed Python values, not verbatim bytes (digits
  such as 123456789012345678901234567890 survive as int, 0.8700 is re-encoded as 0.87).
- Duplicate keys: neither rejects them (last one wins); Switchyard rejects them.
- Encode: msgspec.json.encode / TypeAdapter.dump_json of the decoded value; unknown-tag records are
  passed through as their original bytes; `occurredAt` is re-encoded from the datetime, not as
  written.
- `commerce` (the bench's own catalog, Sources/switchyard-bench/Schemas/commerce; msgspec only): tagged
  by `event`, payment methods a nested union tagged by `method`, attribute maps as `dict[str, str]`,
  optional members `UNSET` when absent (so that absent and `null` stay apart on re-encode, as in
  Switchyard), required-but-nullable members without a default, money amounts as `Decimal` (exact, and
  re-encoded as numbers), `emitted_at` as a `datetime`, the schema's patterns, lengths, ranges and item
  counts as `Meta` constraints; what `Meta` cannot say (`multipleOf: 0.01` and `minimum` on a `Decimal`,
  `uniqueItems`) is checked in `__post_init__`. Open string enums are `str`, as Switchyard keeps them open.
"""

import gc
import json
import sys
import time
from datetime import datetime
from decimal import Decimal
from typing import Annotated, Literal, Optional, Union

import msgspec
import pydantic
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

# MARK: - msgspec

NonEmpty = Annotated[str, msgspec.Meta(min_length=1)]


class MMoney(msgspec.Struct):
    value: int
    currency: str


class MMerchant(msgspec.Struct):
    id: str
    name: str
    country: Optional[str] = None


class MCard(msgspec.Struct):
    brand: str
    last4: str
    expMonth: int
    expYear: int


class MFailure(msgspec.Struct):
    code: str
    message: Optional[str] = None


class MEvent(msgspec.Struct, tag_field="type"):
    id: NonEmpty
    occurredAt: datetime


class MPaymentAuthorized(MEvent, tag="payment.authorized"):
    paymentId: str
    amount: MMoney
    merchant: MMerchant
    method: str
    card: Optional[MCard] = None
    schemaVersion: int = 1


class MPaymentCaptured(MEvent, tag="payment.captured"):
    paymentId: str
    amount: MMoney
    merchant: MMerchant
    installments: int = 1
    schemaVersion: int = 1


class MPaymentRefunded(MEvent, tag="payment.refunded"):
    paymentId: str
    amount: MMoney
    reason: str
    schemaVersion: int = 1


class MPaymentFailed(MEvent, tag="payment.failed"):
    paymentId: str
    amount: MMoney
    failure: MFailure
    schemaVersion: int = 1


class MPostCreated(MEvent, tag="post.created"):
    postId: str
    authorId: str
    text: str
    tags: list[str] = []
    visibility: str = "public"
    mediaCount: int = 0
    schemaVersion: int = 1


class MPostLiked(MEvent, tag="post.liked"):
    postId: str
    userId: str
    schemaVersion: int = 1


class MCommentAdded(MEvent, tag="comment.added"):
    postId: str
    commentId: str
    authorId: str
    text: str
    schemaVersion: int = 1


class MUserFollowed(MEvent, tag="user.followed"):
    followerId: str
    followeeId: str
    schemaVersion: int = 1


class MTag(msgspec.Struct):
    type: str


# The commerce catalog (Schemas/commerce).
UNSET = msgspec.UNSET
Unset = msgspec.UnsetType
CENT = Decimal("0.01")


class CMoney(msgspec.Struct):
    amount: Decimal
    currency: str

    def __post_init__(self):
        # multipleOf 0.01 and minimum 0, exactly.
        if self.amount < 0 or self.amount % CENT != 0:
            raise ValueError("amount")


class CAddress(msgspec.Struct, kw_only=True):
    name: Union[str, Unset] = UNSET
    line1: Annotated[str, msgspec.Meta(min_length=1)]
    line2: Union[str, None, Unset] = UNSET
    city: str
    postal_code: Annotated[str, msgspec.Meta(max_length=10)]
    country: Annotated[str, msgspec.Meta(pattern="^[A-Z]{2}$")]


class CCard(msgspec.Struct, tag_field="method", tag="card"):
    brand: str
    last4: Annotated[str, msgspec.Meta(pattern="^[0-9]{4}$")]
    three_d_secure: bool = False


class CPayPal(msgspec.Struct, tag_field="method", tag="paypal"):
    payer_email: str
    payer_id: Union[str, Unset] = UNSET


class CKlarna(msgspec.Struct, tag_field="method", tag="klarna"):
    plan: str
    installments: Union[Annotated[int, msgspec.Meta(ge=1, le=36)], Unset] = UNSET


class CGiftCard(msgspec.Struct, tag_field="method", tag="gift_card"):
    code_suffix: Annotated[str, msgspec.Meta(min_length=4, max_length=4)]
    remaining: CMoney


CPaymentMethod = Union[CCard, CPayPal, CKlarna, CGiftCard]


class CCustomer(msgspec.Struct):
    id: str
    email: str
    segment: Union[str, Unset] = UNSET


class CLine(msgspec.Struct, kw_only=True):
    sku: Annotated[str, msgspec.Meta(pattern="^[A-Z0-9-]{4,32}$")]
    title: Union[str, Unset] = UNSET
    quantity: Annotated[int, msgspec.Meta(ge=1, le=999)]
    unit_price: CMoney
    attributes: Union[dict[str, str], Unset] = UNSET


class CParcel(msgspec.Struct):
    weight_kg: Annotated[float, msgspec.Meta(gt=0, le=31.5)]
    skus: Annotated[list[str], msgspec.Meta(min_length=1)]

    def __post_init__(self):
        if len(set(self.skus)) != len(self.skus):
            raise ValueError("skus")


class COrderEvent(msgspec.Struct, tag_field="event", kw_only=True):
    event_id: str
    order_id: Annotated[str, msgspec.Meta(pattern="^ORD-[0-9]{8}$")]
    emitted_at: datetime
    correlation_id: Union[str, None, Unset] = UNSET


class COrderCreated(COrderEvent, tag="order_created", kw_only=True):
    customer: CCustomer
    lines: Annotated[list[CLine], msgspec.Meta(min_length=1)]
    total: CMoney
    coupon: Union[str, None, Unset] = UNSET
    shipping_address: CAddress
    billing_address: Union[CAddress, None, Unset] = UNSET


class COrderPaid(COrderEvent, tag="order_paid", kw_only=True):
    payment: CPaymentMethod
    split_payments: Union[Annotated[list[CPaymentMethod], msgspec.Meta(max_length=3)], Unset] = UNSET
    amount: CMoney
    psp_reference: Union[str, Unset] = UNSET


class COrderShipped(COrderEvent, tag="order_shipped", kw_only=True):
    carrier: str
    tracking_number: Annotated[str, msgspec.Meta(min_length=8, max_length=40)]
    estimated_delivery: Union[str, None, Unset] = UNSET
    parcels: Annotated[list[CParcel], msgspec.Meta(min_length=1)]


class COrderCancelled(COrderEvent, tag="order_cancelled", kw_only=True):
    reason: str
    note: Union[Annotated[str, msgspec.Meta(max_length=500)], Unset] = UNSET
    refund: Optional[CMoney]


class CTag(msgspec.Struct):
    event: str


MSGSPEC_UNIONS = {
    "payments": Union[MPaymentAuthorized, MPaymentCaptured, MPaymentRefunded, MPaymentFailed],
    "feeds": Union[MPostCreated, MPostLiked, MCommentAdded, MUserFollowed],
    "commerce": Union[COrderCreated, COrderPaid, COrderShipped, COrderCancelled],
}
# The member that names an event's type, per topic.
TAGS = {"payments": MTag, "feeds": MTag, "commerce": CTag}

# MARK: - pydantic


class PModel(BaseModel):
    model_config = ConfigDict(extra="allow")


class PMoney(PModel):
    value: int
    currency: str


class PMerchant(PModel):
    id: str
    name: str
    country: Optional[str] = None


class PCard(PModel):
    brand: str
    last4: str
    expMonth: int
    expYear: int


class PFailure(PModel):
    code: str
    message: Optional[str] = None


class PEvent(PModel):
    id: Annotated[str, Field(min_length=1)]
    occurredAt: datetime
    schemaVersion: int = 1


class PPaymentAuthorized(PEvent):
    type: Literal["payment.authorized"]
    paymentId: str
    amount: PMoney
    merchant: PMerchant
    method: str
    card: Optional[PCard] = None


class PPaymentCaptured(PEvent):
    type: Literal["payment.captured"]
    paymentId: str
    amount: PMoney
    merchant: PMerchant
    installments: int = 1


class PPaymentRefunded(PEvent):
    type: Literal["payment.refunded"]
    paymentId: str
    amount: PMoney
    reason: str


class PPaymentFailed(PEvent):
    type: Literal["payment.failed"]
    paymentId: str
    amount: PMoney
    failure: PFailure


class PPostCreated(PEvent):
    type: Literal["post.created"]
    postId: str
    authorId: str
    text: str
    tags: list[str] = []
    visibility: str = "public"
    mediaCount: int = 0


class PPostLiked(PEvent):
    type: Literal["post.liked"]
    postId: str
    userId: str


class PCommentAdded(PEvent):
    type: Literal["comment.added"]
    postId: str
    commentId: str
    authorId: str
    text: str


class PUserFollowed(PEvent):
    type: Literal["user.followed"]
    followerId: str
    followeeId: str


PYDANTIC_UNIONS = {
    "payments": Annotated[
        Union[PPaymentAuthorized, PPaymentCaptured, PPaymentRefunded, PPaymentFailed], Field(discriminator="type")
    ],
    "feeds": Annotated[Union[PPostCreated, PPostLiked, PCommentAdded, PUserFollowed], Field(discriminator="type")],
}

# MARK: - Workloads


def msgspec_workloads(topic):
    decoder = msgspec.json.Decoder(MSGSPEC_UNIONS[topic])
    tag_decoder = msgspec.json.Decoder(TAGS[topic])
    tag_field = TAGS[topic].__struct_fields__[0]
    # Exact amounts are written back as JSON numbers, as they came.
    encoder = msgspec.json.Encoder(decimal_format="number")
    decode = decoder.decode
    encode = encoder.encode
    known_tags = {cls.__struct_config__.tag for cls in MSGSPEC_UNIONS[topic].__args__}

    def classify(line):
        # A failed record: an unrecognised tag is `unknown` (raw bytes kept), anything else a failure.
        try:
            tag = getattr(tag_decoder.decode(line), tag_field)
        except (msgspec.ValidationError, msgspec.DecodeError):
            return None
        return None if tag in known_tags else line

    def decode_only(lines):
        ok = 0
        for line in lines:
            try:
                decode(line)
                ok += 1
            except (msgspec.ValidationError, msgspec.DecodeError):
                classify(line)
        return ok

    def round_trip(lines):
        ok = 0
        for line in lines:
            try:
                encode(decode(line))
                ok += 1
            except (msgspec.ValidationError, msgspec.DecodeError):
                classify(line)  # unknown: passthrough of the original bytes
        return ok

    return decode_only, round_trip


def pydantic_workloads(topic):
    adapter = TypeAdapter(PYDANTIC_UNIONS[topic])
    validate = adapter.validate_json
    dump = adapter.dump_json
    tag_adapter = TypeAdapter(dict)
    known_tags = {cls.model_fields["type"].annotation.__args__[0] for cls in PYDANTIC_UNIONS[topic].__origin__.__args__}

    def classify(line):
        try:
            tag = tag_adapter.validate_json(line).get("type")
        except pydantic.ValidationError:
            return None
        return None if tag in known_tags else line

    def decode_only(lines):
        ok = 0
        for line in lines:
            try:
                validate(line)
                ok += 1
            except pydantic.ValidationError:
                classify(line)
        return ok

    def round_trip(lines):
        ok = 0
        for line in lines:
            try:
                dump(validate(line))
                ok += 1
            except pydantic.ValidationError:
                classify(line)
        return ok

    return decode_only, round_trip


def measure(body, lines, reps):
    """Warm-up pass, then `reps` timed passes; best and median events/s."""
    body(lines)
    rates = []
    result = 0
    for _ in range(reps):
        gc.collect()
        start = time.perf_counter()
        result = body(lines)
        elapsed = time.perf_counter() - start
        rates.append(len(lines) / elapsed)
    rates.sort()
    return {"best": rates[-1], "median": rates[len(rates) // 2], "ok": result}


def main():
    corpus_dir, reps = sys.argv[1], int(sys.argv[2])
    topics = sys.argv[3].split(",") if len(sys.argv) > 3 else ["payments", "feeds"]
    for topic in topics:
        with open(f"{corpus_dir}/{topic}.ndjson", "rb") as f:
            lines = f.read().splitlines()
        for peer, make in (("msgspec", msgspec_workloads), ("pydantic", pydantic_workloads)):
            if peer == "pydantic" and topic not in PYDANTIC_UNIONS:
                continue
            decode_only, round_trip = make(topic)
            for workload, body in (("decode", decode_only), ("decode+encode", round_trip)):
                r = measure(body, lines, reps)
                print(json.dumps({"peer": peer, "workload": workload, "topic": topic, "records": len(lines),
                                  "eventsPerSecond": r["best"], "median": r["median"], "ok": r["ok"]}), flush=True)


if __name__ == "__main__":
    main()
