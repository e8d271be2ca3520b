#!/usr/bin/env python3
"""The Python peer of `make bench-worker`: a confluent-kafka + msgspec consumer doing the worker's
at-least-once work on a lenient feeds topic.

    bench_worker_peer.py BROKERS GROUP TOPIC DLQ_TOPIC EXPECTED_RECORDS

What it does, so that the comparison with `switchyard consume` is honest:

- Consumes TOPIC in consumer group GROUP from the beginning (auto.offset.reset=earliest), with the
  worker's consumer settings: enable.auto.offset.store=false, enable.auto.commit=true every 5 s; its
  producer is idempotent (acks=all) with librdkafka's default linger, as the worker's is.
- Decodes every record value with the msgspec tagged-union structs of scripts/bench_peers.py (the same
  catalog mirror as `make bench`); an unrecognised tag is handed on (a tag-only decode), anything else
  that fails is a decode failure.
- A failure is dead-lettered to DLQ_TOPIC with the original key, value and headers plus the worker's
  `switchyard.*` diagnosis headers (original topic/partition/offset/timestamp, error kind, path and
  message, consumer group, failed-at, redrive count).
- Offsets are stored per partition at a completion watermark: the offset of the lowest record whose
  dead letter is not yet acknowledged, else one past the last record handled. A dead-lettered record's
  offset is stored only after its dead letter's delivery report, and nothing after it before that, so
  no offset is ever committed past an unacknowledged dead letter (the worker's guarantee), while the
  dead letters themselves are produced without waiting one by one.
- Consumes in batches (Consumer.consume(500)), the fastest loop confluent-kafka offers from Python, and
  stores offsets once per partition and batch.
- On a librdkafka >= 2.1 it sets fetch.queue.backoff.ms=1: librdkafka stops fetching whenever its
  prefetch queue is full and, by default, waits a second before it looks again, far longer than the
  queue lasts a consumer catching up on a backlog (the worker wakes librdkafka instead). 2.0 has no such
  setting.

Differences it cannot remove: msgspec accepts duplicate keys (last one wins), so the corpus's
duplicate-key records decode here and are not dead-lettered; it reports its own count.

When EXPECTED_RECORDS records are handled and every dead letter is acknowledged, it prints one JSON
line (wall-clock times of the first and last record handled, counts), waits for its standard input to
close (the benchmark driver reads its CPU time and peak RSS from /proc meanwhile), commits
synchronously and exits 0.
"""

import json
import os
import sys
import time
from collections import deque
from datetime import datetime, timezone

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import msgspec  # noqa: E402
import confluent_kafka  # noqa: E402
from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition  # noqa: E402

from bench_peers import MSGSPEC_UNIONS, MTag  # noqa: E402


def main():
    brokers, group, topic, dlq_topic, expected = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
    decoder = msgspec.json.Decoder(MSGSPEC_UNIONS["feeds"])
    tag_decoder = msgspec.json.Decoder(MTag)
    known_tags = {cls.__struct_config__.tag for cls in MSGSPEC_UNIONS["feeds"].__args__}
    decode = decoder.decode

    consumer = Consumer({
        "bootstrap.servers": brokers,
        "group.id": group,
        "client.id": "bench-python-peer",
        "auto.offset.reset": "earliest",
        "enable.auto.offset.store": False,
        "enable.auto.commit": True,
        "auto.commit.interval.ms": 5000,
        **({"fetch.queue.backoff.ms": 1} if confluent_kafka.libversion()[1] >= 0x02010000 else {}),
    })
    consumer.subscribe([topic])
    producer = Producer({
        "bootstrap.servers": brokers,
        "client.id": "bench-python-peer",
        "enable.idempotence": True,
    })

    # Per partition: offsets of dead-lettered records in offset order, the acknowledged ones among them, and the
    # next offset after the last record handled. The stored offset is the completion watermark: the first
    # offset in `pending` not acknowledged yet, else `next_offset`. Acknowledged offsets leave the front of
    # `pending` as the watermark passes them, so each costs O(1) however many are in flight (a list searched
    # and emptied one offset at a time made a dead-letter storm quadratic).
    pending = {}
    acknowledged = {}
    next_offset = {}
    stored = {}
    counts = {"handled": 0, "decoded": 0, "unknown": 0, "deadLettered": 0, "deadLetterErrors": 0}
    first_at = None
    last_at = None
    in_flight = [0]
    retry = []

    def watermark(partition):
        waiting, done = pending.get(partition), acknowledged.get(partition)
        while waiting and waiting[0] in done:
            done.remove(waiting.popleft())
        return waiting[0] if waiting else next_offset[partition]

    def store(partition):
        offset = watermark(partition)
        if stored.get(partition) != offset:
            consumer.store_offsets(offsets=[TopicPartition(topic, partition, offset)])
            stored[partition] = offset

    def diagnosis(error):
        """The worker's kind and path for a msgspec error (its message ends in "- at `$.tags[1]`")."""
        message = str(error)
        text, _, at = message.partition(" - at `$")
        path = at.rstrip("`").lstrip(".")
        if isinstance(error, msgspec.DecodeError):
            kind = "dataCorrupted"
        elif text.startswith("Object missing required field"):
            kind = "keyNotFound"
            path = ".".join(p for p in (path, text.split("`")[1]) if p)
        elif text.startswith("Expected") and " of length " not in text:
            kind = "typeMismatch"
        else:
            kind = "dataCorrupted"
        return kind, path, message

    def dead_letter(record, kind, path, message):
        headers = [(k, v) for k, v in (record.headers() or []) if not k.startswith("switchyard.")]
        redrive = next((v for k, v in (record.headers() or []) if k == "switchyard.redrive.count"), b"0")
        ts_type, ts = record.timestamp()
        headers += [
            ("switchyard.original.topic", record.topic()),
            ("switchyard.original.partition", str(record.partition())),
            ("switchyard.original.offset", str(record.offset())),
        ]
        if ts_type != 0:
            headers.append(("switchyard.original.timestamp", str(ts)))
        headers += [
            ("switchyard.error.kind", kind),
            ("switchyard.error.path", path),
            ("switchyard.error.message", message),
            ("switchyard.consumer.group", group),
            ("switchyard.failed.at", datetime.now(timezone.utc).isoformat(timespec="milliseconds")),
            ("switchyard.redrive.count", redrive),
        ]
        partition, offset = record.partition(), record.offset()

        def delivered(err, _msg):
            in_flight[0] -= 1
            if err is not None:
                # Not durable: produce it again (the offset stays held back meanwhile).
                counts["deadLetterErrors"] += 1
                retry.append(send)
                return
            counts["deadLettered"] += 1
            acknowledged[partition].add(offset)
            store(partition)

        def send():
            while True:
                try:
                    producer.produce(dlq_topic, key=record.key(), value=record.value(), headers=headers,
                                     on_delivery=delivered)
                    break
                except BufferError:
                    producer.poll(0.01)
            in_flight[0] += 1

        pending.setdefault(partition, deque()).append(offset)
        acknowledged.setdefault(partition, set())
        send()

    while counts["handled"] < expected or in_flight[0] > 0 or retry:
        while retry:
            retry.pop()()
        if counts["handled"] >= expected:
            producer.poll(0.001)  # only delivery reports left to wait for
            continue
        records = consumer.consume(500, 0.1)
        if records and first_at is None:
            first_at = time.time()
        touched = set()
        for record in records:
            err = record.error()
            if err is not None:
                if err.code() == KafkaError._PARTITION_EOF:
                    continue
                raise SystemExit(f"bench_worker_peer: consumer error: {err}")
            value = record.value()
            partition = record.partition()
            try:
                decode(value)
                counts["decoded"] += 1
            except (msgspec.ValidationError, msgspec.DecodeError) as error:
                try:
                    tag = tag_decoder.decode(value).type
                except (msgspec.ValidationError, msgspec.DecodeError):
                    tag = None
                if tag is not None and tag not in known_tags:
                    counts["unknown"] += 1  # handed on, like the worker's `.unknown`
                else:
                    dead_letter(record, *diagnosis(error))
            next_offset[partition] = record.offset() + 1
            touched.add(partition)
            counts["handled"] += 1
        # Offsets are stored once per partition and batch (at the watermark), not per record.
        for partition in touched:
            store(partition)
        if records:
            last_at = time.time()
        producer.poll(0)
    done_at = time.time()
    print(json.dumps({"firstAt": first_at, "lastAt": last_at, "doneAt": done_at, **counts}), flush=True)
    # The driver reads this process's CPU time and peak RSS from /proc now, then closes stdin.
    sys.stdin.read()
    producer.flush(30)
    consumer.commit(asynchronous=False)
    consumer.close()


if __name__ == "__main__":
    main()
