#!/usr/bin/env python3
"""The chaos soak's checker (scripts/chaos.py, `make chaos`): reads only Kafka — the input topics, the output
topics, the dead-letter topics and the group's committed offsets — and says whether the soak kept the
worker's promises. It never asks the workers.

    chaos_check.py BOOTSTRAP PLAN.json [FAULTS.jsonl]   check a cluster (PLAN as scripts/chaos.py writes it)
    chaos_check.py --self-test                          feed the checks a lost, a reordered, a duplicated
                                                        and a stuck history; exit 0 when each is caught

What the records carry (scripts/chaos.py writes them): the value's `id` and the header `chaos.id` are
`KEY/SEQ/PSEQ`, SEQ counting the key's records from 1 and PSEQ the partition's (the producer picks the
partition from the key); a record meant to be dead-lettered (malformed) has the header
`chaos.expect: dead-letter`.

The invariants (each failure is printed; the exit status is 1 when any fails):
- the input (a note, not a failure: such a record never reached the workers, and the checks below take the
  input as it is): each key's and each partition's numbers count 1, 2, … without a gap; a gap is a record the
  broker acknowledged to the producer and did not keep (figures["inputGaps"]).
- lost: every input record is in its output topic (by id) or in its dead-letter topic (by the dead letter's
  switchyard.original.topic/partition/offset headers); 0 allowed.
- dead letters: exactly the records marked `chaos.expect: dead-letter` are dead-lettered.
- unexpected: no output record that is not an input record.
- order: per key (ordering `key`) or per input partition (ordering `partition`), the output, duplicates
  aside, runs through the records in input order: a record that comes before every record ahead of it in
  the input was written is a reordering (or the gap of a record lost so far).
- duplicates: a record written again (the at-least-once window). Counted; each must be explained by a fault
  that disturbs the group (a worker killed, stopped or started, a broker down or up, the coordinator moved,
  errors on the group's requests): the first copy written at most BEFORE (30 s) before the fault or AFTER (15 s)
  after it (the group rebalances only after the session timeout), the repeat after it; with no FAULTS file, any
  duplicate fails.
- stuck: the group's committed offset is the end of every input partition.
"""
import json
import sys
import time
from collections import defaultdict

# The fault kinds that may make a record be handled twice: they move partitions between workers or end a
# worker before its last offsets were committed. Produce and fetch errors and leader moves are not among them:
# the worker's producer is idempotent, so a retried send is written once.
DISTURBING = {"kill", "term", "start", "broker-down", "broker-up", "coordinator", "group-errors"}
# The at-least-once window around such a fault (see disturbed_between): scripts/chaos.py's workers have a 6 s
# session timeout and commit every second.
BEFORE, AFTER = 30.0, 15.0


class Record:
    """One Kafka record as the checks need it."""

    __slots__ = ("topic", "partition", "offset", "key", "value", "headers", "timestamp")

    def __init__(self, topic, partition, offset, key, value, headers=None, timestamp=0.0):
        self.topic, self.partition, self.offset = topic, partition, offset
        self.key, self.value, self.headers, self.timestamp = key, value, headers or {}, timestamp


def record_id(value):
    """The `id` of a JSON record value, or None when the value is not a JSON object with a string id."""
    try:
        document = json.loads(value)
    except (ValueError, UnicodeDecodeError):
        return None
    identity = document.get("id") if isinstance(document, dict) else None
    return identity if isinstance(identity, str) else None


def clock(seconds):
    """A wall-clock time as the logs write it, to the millisecond (UTC)."""
    return time.strftime("%H:%M:%S", time.gmtime(seconds)) + f".{int(seconds * 1000) % 1000:03d}"


def check(plan, inputs, outputs, dead_letters, committed, ends, faults, slack=3.0):
    """The invariants over what was read. plan: {"topics": {name: {"output", "deadLetter", "ordering"}}};
    inputs/outputs/dead_letters: topic → [Record] in (partition, offset) order; committed/ends: (topic, partition)
    → offset; faults: [{"t": seconds, "kind": …}]. Returns (figures, failures)."""
    failures = []
    figures = {"in": 0, "out": 0, "deadLetters": 0, "duplicates": 0, "duplicatesExplained": 0, "lost": 0, "inputGaps": 0,
               "notes": []}
    disturbances = sorted(f["t"] for f in faults if f["kind"] in DISTURBING)

    def disturbed_between(first, repeat):
        """Whether a fault at f explains a record written at `first` and again at `repeat`: the group rebalances up to
        AFTER seconds after f (a dead member is noticed after the session timeout, and the rebalance waits for
        the members to rejoin), and replays what was written since the last commit that went through, at most
        BEFORE seconds before f."""
        return any(f - BEFORE <= first <= f + AFTER and repeat >= f - slack for f in disturbances)

    for topic, spec in sorted(plan["topics"].items()):
        records = inputs.get(topic, [])
        figures["in"] += len(records)
        by_id, by_place = {}, {}
        for r in records:
            identity = record_id(r.value)
            by_place[(r.partition, r.offset)] = r
            if identity is not None:
                if identity in by_id:
                    failures.append(f"{topic}: id {identity} is in the input twice (the producer's duplicate)")
                by_id[identity] = r

        # The input itself: each key's and each partition's records numbered 1, 2, … without a gap (the producer
        # writes them in order, idempotently, and fails the soak on a delivery error), so a gap is a record the
        # broker acknowledged and did not keep.
        numbers = defaultdict(list)
        for r in records:
            identity = r.headers.get("chaos.id") or record_id(r.value)
            parts = identity.split("/") if identity else []
            if len(parts) == 3 and parts[1].isdigit() and parts[2].isdigit():
                numbers[("key", parts[0])].append((int(parts[1]), r))
                numbers[("partition", r.partition)].append((int(parts[2]), r))
        for (what, name), seen in sorted(numbers.items(), key=lambda item: str(item[0])):
            previous = 0
            for n, r in seen:
                if n != previous + 1:
                    if what == "partition":
                        figures["inputGaps"] += max(n - previous - 1, 0)
                    figures["notes"].append(
                        f"{topic}[{r.partition}]@{r.offset}: the input's {what} {name} goes from {previous} to {n} "
                        f"(written {clock(r.timestamp)}): the broker did not keep a record it acknowledged to the producer")
                previous = n

        # Dead letters: which input records they stand for, once each.
        lettered = {}
        for d in dead_letters.get(spec["deadLetter"], []):
            figures["deadLetters"] += 1
            try:
                origin = (d.headers["switchyard.original.topic"], int(d.headers["switchyard.original.partition"]),
                          int(d.headers["switchyard.original.offset"]))
            except (KeyError, ValueError):
                failures.append(f"{spec['deadLetter']}[{d.partition}]@{d.offset}: a dead letter without its original place")
                continue
            if origin[0] != topic or (origin[1], origin[2]) not in by_place:
                failures.append(f"{spec['deadLetter']}[{d.partition}]@{d.offset}: stands for {origin}, not a record of {topic}")
                continue
            if (origin[1], origin[2]) in lettered:
                figures["duplicates"] += 1
                first = lettered[(origin[1], origin[2])]
                if disturbed_between(first.timestamp, d.timestamp):
                    figures["duplicatesExplained"] += 1
                else:
                    failures.append(f"{topic}[{origin[1]}]@{origin[2]}: dead-lettered twice ({clock(first.timestamp)}, "
                                    f"{clock(d.timestamp)}) outside the at-least-once window of every fault that disturbs the group")
            else:
                lettered[(origin[1], origin[2])] = d

        # Output: each copy maps back to its input record.
        written = defaultdict(list)  # input place → [output Record]
        sequence = []  # (input Record, output Record) in output order, per output partition
        for o in outputs.get(spec["output"], []):
            figures["out"] += 1
            identity = record_id(o.value)
            source = by_id.get(identity)
            if source is None:
                failures.append(f"{spec['output']}[{o.partition}]@{o.offset}: id {identity!r} is no record of {topic}")
                continue
            written[(source.partition, source.offset)].append(o)
            sequence.append((source, o))

        # Lost, wrongly dead-lettered, duplicated.
        for r in records:
            place = (r.partition, r.offset)
            expect_dead = r.headers.get("chaos.expect") == "dead-letter"
            copies = written.get(place, [])
            if place in lettered and not expect_dead:
                failures.append(f"{topic}[{r.partition}]@{r.offset}: dead-lettered, but it is a good record")
            if expect_dead and place not in lettered:
                failures.append(f"{topic}[{r.partition}]@{r.offset}: malformed, but not dead-lettered")
            if not copies and place not in lettered:
                figures["lost"] += 1
                failures.append(f"{topic}[{r.partition}]@{r.offset}: lost (neither in {spec['output']} nor in {spec['deadLetter']})")
            for previous, repeat in zip(copies, copies[1:]):
                figures["duplicates"] += 1
                if disturbed_between(previous.timestamp, repeat.timestamp):
                    figures["duplicatesExplained"] += 1
                else:
                    failures.append(
                        f"{topic}[{r.partition}]@{r.offset}: written again at {spec['output']}[{repeat.partition}]@{repeat.offset} "
                        f"({clock(previous.timestamp)}, then {clock(repeat.timestamp)}) outside the at-least-once window of every fault that disturbs the group")

        # Order: per key, or per input partition.
        def group_of(r):
            return r.key if spec["ordering"] == "key" else r.partition

        expected = defaultdict(list)  # group → input places still to see, in input order
        for r in records:
            if (r.partition, r.offset) not in lettered:
                expected[group_of(r)].append((r.partition, r.offset))
        position = {g: {place: i for i, place in enumerate(places)} for g, places in expected.items()}
        following = defaultdict(int)  # group → index of the first record not yet written
        homes = defaultdict(set)  # group → output partitions its records went to
        for source, o in sequence:
            g = group_of(source)
            homes[g].add(o.partition)
            i = position[g].get((source.partition, source.offset))
            if i is None:
                continue  # dead-lettered and written: reported above
            if i == following[g]:
                following[g] += 1
            elif i > following[g]:
                ahead = expected[g][following[g]]
                failures.append(
                    f"{topic} {spec['ordering']} {g}: {topic}[{source.partition}]@{source.offset} written at "
                    f"{spec['output']}[{o.partition}]@{o.offset} before {topic}[{ahead[0]}]@{ahead[1]}")
                following[g] = i + 1
        for g, partitions in homes.items():
            if len(partitions) > 1:
                failures.append(f"{topic} {spec['ordering']} {g}: written to {spec['output']} partitions {sorted(partitions)}: its order cannot be read")

    # Stuck: the committed offsets reach the end of every input partition.
    for (topic, partition), end in sorted(ends.items()):
        if topic not in plan["topics"]:
            continue
        at = committed.get((topic, partition))
        if at is None or at < end:
            failures.append(f"{topic}[{partition}]: committed {at if at is not None and at >= 0 else 'nothing'}, the partition ends at {end}: stuck")
    return figures, failures


# MARK: - Reading Kafka


def read_topic(bootstrap, topic):
    """Every record of `topic`, partition by partition in offset order, up to the end it has when read (all of
    them, or the check stops: a short read would hide a lost record); and the low watermarks (a partition whose log no longer starts at 0 lost records to the mock broker's retention)."""
    from confluent_kafka import Consumer, TopicPartition

    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "chaos-checker", "enable.auto.commit": False})
    try:
        metadata = consumer.list_topics(topic, timeout=10).topics[topic]
        if metadata.error is not None:
            raise SystemExit(f"chaos-check: {topic}: {metadata.error}")
        partitions = sorted(metadata.partitions)
        records, lows = [], {}
        for p in partitions:
            low, high = consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=10)
            lows[p] = low
            if high <= low:
                continue
            consumer.assign([TopicPartition(topic, p, low)])
            got = []
            while len(got) < high - low:
                m = consumer.poll(10)
                if m is None:
                    raise SystemExit(f"chaos-check: {topic}[{p}]: read {len(got)} of {high - low} records, then nothing for 10 s")
                if m.error():
                    raise SystemExit(f"chaos-check: {topic}[{p}]: {m.error()}")
                headers = {k: (v.decode(errors="replace") if v is not None else None) for k, v in (m.headers() or [])}
                key = m.key().decode(errors="replace") if m.key() is not None else None
                got.append(Record(topic, p, m.offset(), key, m.value() or b"", headers, m.timestamp()[1] / 1000.0))
            records += got
        return records, lows
    finally:
        consumer.close()


def read_committed(bootstrap, group, topic_partitions):
    """The group's committed offset per (topic, partition); -1001 (none) for a partition with no commit."""
    from confluent_kafka import Consumer, TopicPartition

    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "enable.auto.commit": False})
    try:
        answer = consumer.committed([TopicPartition(t, p) for t, p in topic_partitions], timeout=15)
        return {(tp.topic, tp.partition): tp.offset for tp in answer}
    finally:
        consumer.close()


def read_ends(bootstrap, topics):
    """The high watermark of every partition of `topics`."""
    from confluent_kafka import Consumer, TopicPartition

    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "chaos-checker", "enable.auto.commit": False})
    try:
        ends = {}
        for topic in topics:
            for p in sorted(consumer.list_topics(topic, timeout=10).topics[topic].partitions):
                ends[(topic, p)] = consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=10)[1]
        return ends
    finally:
        consumer.close()


def check_cluster(bootstrap, plan, faults):
    """Reads the cluster and checks it; returns (figures, failures)."""
    inputs, outputs, dead_letters, failures = {}, {}, {}, []
    for topic, spec in plan["topics"].items():
        for name, into in ((topic, inputs), (spec["output"], outputs), (spec["deadLetter"], dead_letters)):
            into[name], lows = read_topic(bootstrap, name)
            for p, low in lows.items():
                if low > 0:
                    failures.append(f"{name}[{p}] starts at offset {low}: the broker's retention dropped records (fewer records, or more partitions)")
    ends = read_ends(bootstrap, plan["topics"])
    committed = read_committed(bootstrap, plan["group"], ends)
    figures, found = check(plan, inputs, outputs, dead_letters, committed, ends, faults)
    return figures, failures + found


# MARK: - Self-test: the checks catch what they are for


def self_test():
    plan = {"group": "g", "topics": {"t": {"output": "t.out", "deadLetter": "t.dlq", "ordering": "key"},
                                     "u": {"output": "u.out", "deadLetter": "u.dlq", "ordering": "partition"}}}

    def value(key, seq, pseq):
        return json.dumps({"type": "x", "id": f"{key}/{seq}/{pseq}"}).encode()

    def history():
        inputs = {"t": [], "u": []}
        for offset, (key, seq) in enumerate([("a", 1), ("b", 1), ("a", 2), ("b", 2), ("a", 3)]):
            inputs["t"].append(Record("t", 0, offset, key, value(key, seq, offset + 1), {}, 10.0))
        inputs["t"].append(Record("t", 0, 5, "a", b"{bad", {"chaos.expect": "dead-letter"}, 10.0))
        for offset in range(4):
            inputs["u"].append(Record("u", 1, offset, f"k{offset}", value(f"k{offset}", 1, offset + 1), {}, 10.0))
        outputs = {
            "t.out": [Record("t.out", 0, i, r.key, r.value, {}, 20.0 + i) for i, r in enumerate(inputs["t"][:5])],
            "u.out": [Record("u.out", 0, i, r.key, r.value, {}, 20.0 + i) for i, r in enumerate(inputs["u"])],
        }
        dead = {"t.dlq": [Record("t.dlq", 0, 0, "a", b"{bad", {"switchyard.original.topic": "t", "switchyard.original.partition": "0",
                                                                "switchyard.original.offset": "5"}, 21.0)], "u.dlq": []}
        ends = {("t", 0): 6, ("u", 1): 4}
        committed = dict(ends)
        return inputs, outputs, dead, committed, ends

    cases = []
    cases.append(("a clean history", lambda h: h, 0))

    def lose(h):
        h[1]["t.out"] = [o for o in h[1]["t.out"] if record_id(o.value) != "b/2/4"]
        return h
    cases.append(("a lost record", lose, "lost"))

    def reorder_key(h):
        out = h[1]["t.out"]
        out[0], out[2] = out[2], out[0]  # a/2 before a/1
        return h
    cases.append(("a key's records swapped", reorder_key, "before"))

    def reorder_partition(h):
        out = h[1]["u.out"]
        out[1], out[2] = out[2], out[1]
        return h
    cases.append(("a partition's records swapped", reorder_partition, "before"))

    def duplicate(h):
        again = h[1]["t.out"][1]
        h[1]["t.out"].append(Record("t.out", 0, 99, again.key, again.value, {}, 40.0))
        return h
    cases.append(("a duplicate with no fault", duplicate, "written again"))
    cases.append(("a duplicate after a kill", duplicate, 0, [{"t": 30.0, "kind": "kill"}]))
    cases.append(("a duplicate after a leader move only", duplicate, "written again", [{"t": 30.0, "kind": "leader"}]))
    cases.append(("a duplicate of a record written long before a kill", duplicate, "written again", [{"t": 60.0, "kind": "kill"}]))

    def broker_loss(h):
        h[0]["t"] = [r for r in h[0]["t"] if r.offset != 3]
        h[1]["t.out"] = [o for o in h[1]["t.out"] if record_id(o.value) != "b/2/4"]
        return h
    cases.append(("an input record the broker did not keep", broker_loss, "did not keep"))

    def stuck(h):
        h[3][("u", 1)] = 2
        return h
    cases.append(("a stuck partition", stuck, "stuck"))

    def not_dead_lettered(h):
        h[2]["t.dlq"] = []
        return h
    cases.append(("a malformed record not dead-lettered", not_dead_lettered, "not dead-lettered"))

    def wrongly_dead_lettered(h):
        h[2]["t.dlq"].append(Record("t.dlq", 0, 1, "b", b"", {"switchyard.original.topic": "t", "switchyard.original.partition": "0",
                                                              "switchyard.original.offset": "1"}, 22.0))
        return h
    cases.append(("a good record dead-lettered", wrongly_dead_lettered, "good record"))

    def stranger(h):
        h[1]["u.out"].append(Record("u.out", 0, 50, "z", value("z", 1, 1), {}, 25.0))
        return h
    cases.append(("an output record with no input", stranger, "no record of"))

    bad = 0
    for case in cases:
        name, change, want = case[0], case[1], case[2]
        faults = case[3] if len(case) > 3 else []
        inputs, outputs, dead, committed, ends = change(list(history()))
        figures, failures = check(plan, inputs, outputs, dead, committed, ends, faults)
        failures = failures + figures["notes"]
        caught = any(want in f for f in failures) if want else not failures
        print(f"chaos-check self-test: {name}: {'ok' if caught else 'MISSED'}"
              + (f" ({failures[0]})" if failures and want else "") + ("" if caught or not failures else f": {failures}"))
        bad += not caught
    return 1 if bad else 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    if len(sys.argv) not in (3, 4):
        print(__doc__, file=sys.stderr)
        return 64
    bootstrap, plan_path = sys.argv[1], sys.argv[2]
    with open(plan_path) as f:
        plan = json.load(f)
    faults = []
    if len(sys.argv) == 4:
        with open(sys.argv[3]) as f:
            faults = [json.loads(line) for line in f if line.strip()]
    figures, failures = check_cluster(bootstrap, plan, faults)
    for note in figures["notes"]:
        print(f"NOTE {note}")
    print(json.dumps({k: v for k, v in figures.items() if k != "notes"}))
    for failure in failures[:50]:
        print(f"FAIL {failure}")
    if len(failures) > 50:
        print(f"… and {len(failures) - 50} more")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
