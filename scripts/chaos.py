#!/usr/bin/env python3
"""make chaos: a time-bounded soak of three workers in one consumer group under injected faults, then an
independent check of what they wrote (scripts/chaos_check.py reads only Kafka).

    chaos.py OUT_DIR        (run by `make chaos`; logs, the plan and the fault log land in OUT_DIR)

The setup: `switchyard broker --brokers 3 --control` (faults go in on its stdin), three
`switchyard-chaos-worker consume` processes (the `switchyard` command line built with a handler a record's
`chaos.handler` header steers, as a team builds its own) in
the group `chaos`, on two topics:
- payments (strict, ordering `partition`, 4 partitions): payment.captured records, republished canonically to
  payments.out (1 partition, so the order of each input partition can be read back from it).
- feeds (lenient, ordering `key`, 4 partitions): post.liked records, a share of unknown types (handed on,
  republished untouched) and a share of malformed records (dead-lettered to feeds.dlq), republished as
  passthrough to feeds.out (4 partitions; a key's records land in one).
Malformed records go to the lenient topic only: on the strict topic one halts its partition until an operator
releases it (the tests of `switchyard release` cover that), and a halt is what the soak counts as a stuck
partition.

A producer writes keyed records at a steady rate, with per-key and per-partition sequence numbers in the
value's `id` (`KEY/SEQ/PSEQ`); a share carry `chaos.handler: sleep:MS` (slow; a few seconds: stuck, then
recovering) or `fail:N` (the first N attempts throw; the retry policy recovers). Every few seconds (seeded) one
fault: SIGKILL or SIGTERM of a random worker (restarted a little later), a broker down and up again, queued
produce, fetch or group request errors, a partition leader moved, the group coordinator moved. Then the faults
stop, the producer stops, the workers drain until the group's committed offsets reach the end of every input
partition, and are stopped with SIGTERM; the checker runs.

Environment: CHAOS_SECONDS [600] (faults and production), CHAOS_SEED [random; printed], CHAOS_RATE [20]
(records per second over both topics), CHAOS_DRAIN_SECONDS [180] (how long the drain may take),
CHAOS_MAX_RSS_MB [400] (the peak RSS of a worker above which the soak fails), CHAOS_BIN [.build/debug].

Figures printed at the end: duration, faults injected by kind, records in / out / dead-lettered, duplicates
(and how many a group-disturbing fault explains), the worst recovery time (the longest a partition with records
waiting went without its committed offset moving), peak RSS of a worker. Exit 1 when an invariant fails.
"""
import json
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chaos_check  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("CHAOS_BIN") or os.path.join(ROOT, ".build", "debug")
GROUP = "chaos"
PARTITIONS = 4
PLAN = {
    "group": GROUP,
    "topics": {
        "payments": {"output": "payments.out", "deadLetter": "payments.dlq", "ordering": "partition"},
        "feeds": {"output": "feeds.out", "deadLetter": "feeds.dlq", "ordering": "key"},
    },
}
TOPICS = [("payments", PARTITIONS), ("payments.out", 1), ("payments.dlq", 1), ("feeds", PARTITIONS), ("feeds.out", PARTITIONS),
          ("feeds.dlq", 1), ("switchyard.control", 1)]
GROUP_APIS = ["offset-commit", "heartbeat", "join-group", "sync-group", "find-coordinator", "offset-fetch"]


def env_int(name, default, minimum=1):
    value = os.environ.get(name) or str(default)
    try:
        n = int(value)
    except ValueError:
        sys.exit(f"chaos: {name} must be an integer, got '{value}'")
    if n < minimum:
        sys.exit(f"chaos: {name} must be at least {minimum}, got {n}")
    return n


def log(message):
    print(f"chaos: {time.strftime('%H:%M:%S')} {message}", file=sys.stderr, flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def tail(path, lines=8):
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-lines:]).strip()
    except OSError:
        return ""


class Broker:
    """`switchyard broker --brokers 3 --control`: `send` writes one fault command and expects `ok`."""

    def __init__(self, out):
        args = [os.path.join(BIN, "switchyard"), "broker", "--brokers", "3", "--control"]
        for name, partitions in TOPICS:
            args += ["--topic", f"{name}:{partitions}"]
        self.process = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=open(os.path.join(out, "broker.log"), "w"), text=True, bufsize=1)
        line = self.process.stdout.readline().strip()
        if not line.startswith("bootstrap.servers="):
            sys.exit(f"chaos: switchyard broker did not start: {tail(os.path.join(out, 'broker.log'))}")
        self.bootstrap = line.split("=", 1)[1]
        self.lock = threading.Lock()

    def send(self, command):
        with self.lock:
            self.process.stdin.write(command + "\n")
            self.process.stdin.flush()
            answer = self.process.stdout.readline().strip()
        if answer != "ok":
            raise SystemExit(f"chaos: the broker answered '{command}' with '{answer}'")

    def stop(self):
        self.process.terminate()
        self.process.wait(30)


class Workers:
    """Three switchyard-chaos-worker processes, each with its own config (metrics port), restartable."""

    def __init__(self, out, bootstrap, faults):
        self.out, self.faults = out, faults
        self.processes = [None, None, None]
        self.incarnations = [0, 0, 0]
        self.peak_rss_kib = 0
        self.unexpected_exits = []
        self.configs = []
        for i in range(3):
            config = {
                "brokers": bootstrap, "groupId": GROUP, "clientId": f"chaos-worker-{i}",
                "topics": {
                    "payments": {"catalog": "payments", "policy": "strict", "republishTo": "payments.out",
                                 "republishMode": "canonical", "deadLetterTopic": "payments.dlq",
                                 "retry": {"attempts": 8, "initialBackoffMilliseconds": 50, "maxBackoffMilliseconds": 400}},
                    "feeds": {"catalog": "feeds", "policy": "lenient", "ordering": "key", "republishTo": "feeds.out",
                              "republishMode": "passthrough", "deadLetterTopic": "feeds.dlq",
                              "retry": {"attempts": 8, "initialBackoffMilliseconds": 50, "maxBackoffMilliseconds": 400}},
                },
                "metrics": {"host": "127.0.0.1", "port": free_port()},
                "shutdownTimeoutSeconds": 10,
                # A member that dies is noticed within 6 s (the mock holds a rebalance up to the session timeout).
                "kafkaConsumer": {"session.timeout.ms": "6000", "heartbeat.interval.ms": "500", "auto.commit.interval.ms": "1000"},
            }
            path = os.path.join(out, f"worker-{i}.json")
            with open(path, "w") as f:
                json.dump(config, f, indent=1)
            self.configs.append(path)

    def start(self, i):
        self.incarnations[i] += 1
        logfile = open(os.path.join(self.out, f"worker-{i}.{self.incarnations[i]}.log"), "w")
        self.processes[i] = subprocess.Popen([os.path.join(BIN, "switchyard-chaos-worker"), "consume", "-c", self.configs[i]],
                                             stdout=logfile, stderr=subprocess.STDOUT)
        self.faults.record("start", worker=i)

    def alive(self):
        return [i for i, p in enumerate(self.processes) if p is not None and p.poll() is None]

    def reap_unexpected(self):
        """A worker that exited by itself (not by our signal) is a failure; it is restarted."""
        for i, p in enumerate(self.processes):
            if p is not None and p.poll() is not None:
                log_path = os.path.join(self.out, f"worker-{i}.{self.incarnations[i]}.log")
                self.unexpected_exits.append(f"worker {i} (run {self.incarnations[i]}) exited {p.returncode} by itself: {tail(log_path, 3)}")
                log(self.unexpected_exits[-1])
                self.processes[i] = None
                self.start(i)

    def kill(self, i):
        p = self.processes[i]
        self.processes[i] = None
        p.kill()
        p.wait()

    def terminate(self, i, grace=30):
        """SIGTERM; the worker must exit 0 within `grace` seconds."""
        p = self.processes[i]
        self.processes[i] = None
        p.terminate()
        try:
            status = p.wait(grace)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            status = "no exit"
        if status != 0:
            self.unexpected_exits.append(f"worker {i} (run {self.incarnations[i]}) answered SIGTERM with {status}")
            log(self.unexpected_exits[-1])

    def sample_rss(self):
        for p in list(self.processes):
            if p is None:
                continue
            try:
                with open(f"/proc/{p.pid}/status") as f:
                    for line in f:
                        if line.startswith("VmHWM:"):
                            self.peak_rss_kib = max(self.peak_rss_kib, int(line.split()[1]))
            except OSError:
                pass  # exited between the poll and the read: its last sample stands


class FaultLog:
    """What was done when (time.time(), the clock of the records' timestamps), for the checker and the figures."""

    def __init__(self, path):
        self.file = open(path, "w")
        self.counts = {}
        self.lock = threading.Lock()

    def record(self, kind, **detail):
        with self.lock:
            entry = {"t": time.time(), "kind": kind, **detail}
            self.file.write(json.dumps(entry) + "\n")
            self.file.flush()
            if kind != "start":
                self.counts[kind] = self.counts.get(kind, 0) + 1

    def entries(self):
        with open(self.file.name) as f:
            return [json.loads(line) for line in f if line.strip()]


class Producer(threading.Thread):
    """Writes keyed records at `rate` per second until stopped; each key to a fixed partition."""

    def __init__(self, bootstrap, rate, seed):
        super().__init__(daemon=True)
        from confluent_kafka import Producer as KafkaProducer

        self.producer = KafkaProducer({"bootstrap.servers": bootstrap, "enable.idempotence": True, "acks": "all",
                                       "linger.ms": 5, "message.timeout.ms": 120000,
                                       "log_level": 0})  # the broker's faults would fill the terminal; failures come by callback
        self.rate, self.random = rate, random.Random(seed)
        self.stopping = threading.Event()
        self.sequences = {}
        self.sent = 0
        self.acknowledged = 0
        self.failed = []

    def delivered(self, error, message):
        if error is not None:
            self.failed.append(f"{message.topic()}[{message.partition()}]: {error}")
        else:
            self.acknowledged += 1

    def handler_header(self):
        roll = self.random.random()
        if roll < 0.004:
            return [("chaos.handler", f"sleep:{self.random.randint(2000, 6000)}")]  # stuck, then recovering
        if roll < 0.03:
            return [("chaos.handler", f"sleep:{self.random.randint(20, 200)}")]  # slow
        if roll < 0.045:
            return [("chaos.handler", f"fail:{self.random.randint(1, 4)}")]  # failing, then recovering
        return []

    def record(self, topic):
        keys = 24 if topic == "payments" else 32
        key = f"{'acct' if topic == 'payments' else 'user'}-{self.random.randrange(keys):02d}"
        partition = zlib.crc32(key.encode()) % PARTITIONS
        seq = self.sequences[(topic, key)] = self.sequences.get((topic, key), 0) + 1
        pseq = self.sequences[(topic, partition)] = self.sequences.get((topic, partition), 0) + 1
        identity = f"{key}/{seq}/{pseq}"
        occurred = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        headers = [("chaos.id", identity)] + self.handler_header()
        if topic == "payments":
            value = {"type": "payment.captured", "id": identity, "occurredAt": occurred, "paymentId": f"pay-{pseq}",
                     "amount": {"value": self.random.randint(1, 100000), "currency": "EUR"},
                     "merchant": {"id": "m-1", "name": "Chaos Shop"}, "installments": 1}
            body = json.dumps(value)
        else:
            roll = self.random.random()
            if roll < 0.05:  # malformed: dead-lettered
                headers = [("chaos.id", identity), ("chaos.expect", "dead-letter")]
                if roll < 0.025:
                    body = json.dumps({"type": "post.liked", "id": identity, "occurredAt": occurred, "postId": "p-1"})  # keyNotFound
                else:
                    body = json.dumps({"type": "post.liked", "id": identity, "occurredAt": occurred, "postId": "p-1", "userId": "u"})[:-9]
            elif roll < 0.08:  # a type the catalog does not know: handed on
                body = json.dumps({"type": "post.shared", "id": identity, "occurredAt": occurred, "postId": "p-1"})
            else:
                body = json.dumps({"type": "post.liked", "id": identity, "occurredAt": occurred, "postId": f"p-{pseq}",
                                   "userId": key})
        return topic, partition, key, body, headers

    def run(self):
        interval = 1.0 / self.rate
        next_at = time.monotonic()
        while not self.stopping.is_set():
            topic = "payments" if self.random.random() < 0.4 else "feeds"
            topic, partition, key, body, headers = self.record(topic)
            while True:
                try:
                    self.producer.produce(topic, body.encode(), key=key.encode(), partition=partition, headers=headers,
                                          on_delivery=self.delivered)
                    break
                except BufferError:
                    self.producer.poll(0.1)
            self.sent += 1
            self.producer.poll(0)
            next_at += interval
            pause = next_at - time.monotonic()
            if pause > 0:
                time.sleep(pause)
        remaining = self.producer.flush(150)
        if remaining:
            self.failed.append(f"{remaining} records not acknowledged 150 s after the producer stopped")


class Progress(threading.Thread):
    """Once a second: the workers' peak RSS, and each input partition's committed offset against its end, read
    from Kafka (the group's commits): the longest time a partition with records waiting made no progress."""

    def __init__(self, bootstrap, workers):
        super().__init__(daemon=True)
        from confluent_kafka import Consumer

        self.consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": GROUP, "enable.auto.commit": False, "log_level": 0})
        self.workers = workers
        self.stopping = threading.Event()
        self.since = {}  # (topic, partition) → (committed, time it was first seen there with records waiting)
        self.worst = (0.0, None, None)  # seconds, partition, when it ended
        self.committed, self.ends = {}, {}

    def sample(self):
        from confluent_kafka import TopicPartition

        places = [TopicPartition(t, p) for t in PLAN["topics"] for p in range(PARTITIONS)]
        now = time.monotonic()
        committed = {(tp.topic, tp.partition): tp.offset for tp in self.consumer.committed(places, timeout=5)}
        ends = {(tp.topic, tp.partition): self.consumer.get_watermark_offsets(tp, timeout=5, cached=False)[1] for tp in places}
        self.committed, self.ends = committed, ends
        for place, at in committed.items():
            waiting = at < ends[place]
            previous = self.since.get(place)
            if previous is not None and previous[0] == at and waiting:
                stalled = now - previous[1]
                if stalled > self.worst[0]:
                    self.worst = (stalled, place, time.time())  # ends at the last time.time(), began `stalled` before
                continue
            self.since[place] = (at, now)

    def drained(self):
        return bool(self.ends) and all(self.committed.get(place, -1) >= end for place, end in self.ends.items())

    def run(self):
        while not self.stopping.is_set():
            self.workers.sample_rss()
            try:
                self.sample()
            except Exception as error:  # a broker down: the next second reads again
                log(f"progress: {error}")
            self.stopping.wait(1.0)


def inject(rng, broker, workers, faults, pending, state):
    """One seeded fault; what must follow later (a restart, a broker up) goes into `pending`."""
    now = time.monotonic()
    kinds = ["kill", "term", "produce-errors", "fetch-errors", "group-errors", "leader", "coordinator", "broker-down"]
    weights = [3, 2, 2, 1, 2, 3, 1, 1]
    kind = rng.choices(kinds, weights)[0]
    alive = workers.alive()
    if kind in ("kill", "term") and len(alive) < 2:
        kind = "leader"  # keep one worker running: the soak measures recovery, not a cold start
    if kind == "broker-down" and state.get("down"):
        kind = "leader"
    if kind == "kill":
        i = rng.choice(alive)
        workers.kill(i)
        faults.record("kill", worker=i)
        pending.append((now + rng.uniform(1, 5), lambda i=i: workers.start(i)))
    elif kind == "term":
        i = rng.choice(alive)
        faults.record("term", worker=i)
        workers.terminate(i)
        pending.append((time.monotonic() + rng.uniform(1, 3), lambda i=i: workers.start(i)))
    elif kind == "produce-errors":
        # Not _TRANSPORT: the embedded broker (librdkafka 2.0.2's mock) drops the connection after writing the
        # Produce, and the idempotent producer's retry is written again (426 records acknowledged, 443 in the
        # topics): duplicates in the input, which are no worker's doing. Fetch requests get it.
        errors = ",".join(rng.choice(["NOT_LEADER_FOR_PARTITION", "REQUEST_TIMED_OUT", "NOT_ENOUGH_REPLICAS"])
                          for _ in range(rng.randint(1, 5)))
        broker.send(f"request-errors produce {errors}")
        faults.record(kind, errors=errors)
    elif kind == "fetch-errors":
        errors = ",".join(rng.choice(["NOT_LEADER_FOR_PARTITION", "UNKNOWN_TOPIC_OR_PART", "_TRANSPORT"]) for _ in range(rng.randint(1, 5)))
        broker.send(f"request-errors fetch {errors}")
        faults.record(kind, errors=errors)
    elif kind == "group-errors":
        api = rng.choice(GROUP_APIS)
        errors = ",".join(rng.choice(["REQUEST_TIMED_OUT", "NOT_COORDINATOR", "COORDINATOR_NOT_AVAILABLE"]) for _ in range(rng.randint(1, 3)))
        broker.send(f"request-errors {api} {errors}")
        faults.record(kind, api=api, errors=errors)
    elif kind == "leader":
        topic, partitions = rng.choice([t for t in TOPICS if t[0] != "switchyard.control"])
        partition, leader = rng.randrange(partitions), rng.randint(1, 3)
        broker.send(f"leader {topic} {partition} {leader}")
        faults.record(kind, topic=topic, partition=partition, broker=leader)
    elif kind == "coordinator":
        to = rng.randint(1, 3)
        broker.send(f"coordinator {GROUP} {to}")
        faults.record(kind, broker=to)
    elif kind == "broker-down":
        b = rng.randint(1, 3)
        broker.send(f"broker-down {b}")
        faults.record(kind, broker=b)
        state["down"] = b

        def up(b=b):
            broker.send(f"broker-up {b}")
            faults.record("broker-up", broker=b)
            state.pop("down", None)
        pending.append((now + rng.uniform(2, 6), up))


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 64
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    seconds = env_int("CHAOS_SECONDS", 600)
    seed = env_int("CHAOS_SEED", random.randrange(1, 1_000_000))
    rate = env_int("CHAOS_RATE", 20)
    drain_seconds = env_int("CHAOS_DRAIN_SECONDS", 180)
    max_rss_mb = env_int("CHAOS_MAX_RSS_MB", 400)
    for product in ("switchyard", "switchyard-chaos-worker"):
        if not os.access(os.path.join(BIN, product), os.X_OK):
            sys.exit(f"chaos: {os.path.join(BIN, product)} is missing (swift build)")
    log(f"seed {seed}, {seconds} s of faults, {rate} records/s; logs in {out}")

    broker = Broker(out)
    faults = FaultLog(os.path.join(out, "faults.jsonl"))
    workers = Workers(out, broker.bootstrap, faults)
    with open(os.path.join(out, "plan.json"), "w") as f:
        json.dump({**PLAN, "seed": seed, "bootstrap": broker.bootstrap}, f, indent=1)
    failures = []
    try:
        for i in range(3):
            workers.start(i)
        producer = Producer(broker.bootstrap, rate, seed)
        progress = Progress(broker.bootstrap, workers)
        progress.start()
        started = time.monotonic()
        producer.start()

        rng = random.Random(seed * 7919)
        pending, state = [], {}
        next_fault = started + rng.uniform(5, 10)  # let the group form first
        while time.monotonic() - started < seconds:
            now = time.monotonic()
            for entry in [e for e in pending if e[0] <= now]:
                pending.remove(entry)
                entry[1]()
            workers.reap_unexpected()
            if now >= next_fault:
                inject(rng, broker, workers, faults, pending, state)
                next_fault = time.monotonic() + rng.uniform(2, 6)
            time.sleep(0.1)

        # The faults end: what is still pending happens now (restarts, broker up), and no error stays queued.
        for _, action in sorted(pending, key=lambda e: e[0]):
            action()
        for api in ["produce", "fetch"] + GROUP_APIS:
            broker.send(f"clear-request-errors {api}")
        for i in range(3):
            if workers.processes[i] is None:
                workers.start(i)
        producer.stopping.set()
        producer.join()
        faulted = time.monotonic() - started
        log(f"faults stopped after {faulted:.0f} s; {producer.sent} records produced, {producer.acknowledged} acknowledged; draining")

        drain_started = time.monotonic()
        while time.monotonic() - drain_started < drain_seconds:
            workers.reap_unexpected()
            if progress.drained():
                break
            time.sleep(1)
        drain = time.monotonic() - drain_started
        if not progress.drained():
            log(f"not drained after {drain_seconds} s")
        for i in workers.alive():
            workers.terminate(i)
        progress.stopping.set()
        progress.join()
        workers.sample_rss()

        log("checking")
        figures, found = chaos_check.check_cluster(broker.bootstrap, PLAN, faults.entries())
        failures += found
        failures += workers.unexpected_exits
        failures += [f"the producer: {f}" for f in producer.failed]
        if figures["in"] + figures["inputGaps"] != producer.acknowledged:
            failures.append(f"the broker acknowledged {producer.acknowledged} records to the producer; the input topics hold "
                            f"{figures['in']} and miss {figures['inputGaps']}")
        if workers.peak_rss_kib > max_rss_mb * 1024:
            failures.append(f"a worker's peak RSS {workers.peak_rss_kib / 1024:.0f} MB is above {max_rss_mb} MB")
    finally:
        for i in workers.alive():
            workers.kill(i)
        broker.stop()

    worst, place, ended = progress.worst
    counts = faults.counts
    print(f"chaos: seed {seed}: {faulted:.0f} s of faults and production, then {drain:.0f} s to drain")
    print(f"  faults: {sum(counts.values())} — " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    print(f"  worker runs: {sum(workers.incarnations)} (3 at the start, the rest restarts)")
    print(f"  records: {figures['in']} in, {figures['out']} out, {figures['deadLetters']} dead-lettered, "
          f"{figures['lost']} lost")
    print(f"  duplicates: {figures['duplicates']} ({figures['duplicatesExplained']} after a fault that disturbs the group)")
    during = ""
    if place:
        kinds = {}
        for f in faults.entries():
            if ended - worst - 15 <= f["t"] <= ended:
                kinds[f["kind"]] = kinds.get(f["kind"], 0) + 1
        during = ", ".join(f"{k} {v}" for k, v in sorted(kinds.items()))
    window = f"{chaos_check.clock(ended - worst)}–{chaos_check.clock(ended)} UTC" if place else ""
    print(f"  worst recovery: {worst:.1f} s without progress"
          + (f" ({place[0]}[{place[1]}], {window}; faults in it and the 15 s before: {during or 'none'})" if place else ""))
    print(f"  peak RSS of a worker: {workers.peak_rss_kib / 1024:.0f} MB")
    if figures["inputGaps"]:
        print(f"  records the broker acknowledged to the soak's producer and did not keep (never seen by a worker): "
              f"{figures['inputGaps']}")
        for note in figures["notes"][:10]:
            print(f"  NOTE {note}")
    for failure in failures[:40]:
        print(f"  FAIL {failure}")
    if len(failures) > 40:
        print(f"  … and {len(failures) - 40} more (logs in {out})")
    print("chaos: " + ("FAIL" if failures else "ok: 0 lost, order kept, duplicates explained, no partition stuck"))
    return 1 if failures else 0


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.default_int_handler)
    sys.exit(main())
