#!/usr/bin/env python3
"""Instructions per record of `switchyard consume`, under valgrind's callgrind, on bench-worker's records.

Usage: worker_instructions.py OUT_DIR [WORKER_BINARY ...]   (make worker-instructions)

CPU time on a shared two-core machine moves by ±15% from one run to the next, more than most single changes
to the record loop; instruction counts do not move. This starts `switchyard broker`, produces the seeded
feeds records (as `make bench-worker` does: lz4, 6 partitions, 1% malformed), runs each worker binary
under callgrind until its own counters show every record handled and every dead letter acknowledged, and
prints the instructions per record of the whole process and of its main parts. Instructions are not time
(cache misses, lock waits and the kernel are not in them), so a change is confirmed with `make bench-worker`;
but an A/B of two builds here says which one does less work, every time.

Environment: BENCH_WORKER_RECORDS (default 200,000, as bench-worker: about 30 s per binary under callgrind),
BENCH_WORKER_SEED.
"""
import http.client
import json
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_worker as bw  # noqa: E402

# This tool's own readiness and /metrics reads (every 0.5 s; more of them the longer a run takes).
HTTP_READS = "HTTP requests (these reads)"

# (label, a substring of the function's callgrind name); inclusive counts.
AREAS = [
    ("record loop", "4LaneC7process_4loop"),
    # The catalog's record decoder (what `TopicCodec.decode` calls, and the inliner cannot fold away).
    ("decode", "13RecordDecoderCyAcA05EventD0VyxGcAA0E7CatalogRzlufcAA07DecodedC0VSWcfU0_"),
    ("  general path (diagnosis)", "EventDecoderV13decodeGeneral"),
    ("poll thread", "ConsumerC15startPollThread"),
    ("dead letters: build", "LaneC10deadLetter_"),
    ("dead letters: produce", "ProducerC4send_10completion"),
    ("dead letters: delivery", "deliveryCallback"),
    (HTTP_READS, "mhdAccessHandler"),
]


def inclusive(path):
    """Inclusive instruction counts by function name, and the program total."""
    text = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", path],
                          check=True, capture_output=True, text=True).stdout
    total, by_name = None, []
    for line in text.splitlines():
        parts = line.split(None, 2)
        if len(parts) < 3 or not parts[0].replace(",", "").isdigit():
            continue
        count = int(parts[0].replace(",", ""))
        if "PROGRAM TOTALS" in line:
            total = count
        else:
            by_name.append((count, parts[2]))
    return total, by_name


def run(out, binary, brokers, records, dead_letters, label):
    port = bw.free_port()
    config = {"brokers": brokers, "groupId": f"instructions-{label}-{os.getpid()}", "clientId": "instructions",
              "shutdownTimeoutSeconds": 10, "metrics": {"host": "127.0.0.1", "port": port},
              "topics": {"feeds": {"catalog": "feeds", "policy": "lenient", "deadLetterTopic": "feeds.dlq"}}}
    config_path = os.path.join(out, f"instructions-{label}.config.json")
    with open(config_path, "w") as f:
        json.dump(config, f)
    data = os.path.join(out, f"callgrind-{label}.out")
    proc = subprocess.Popen(["valgrind", "--tool=callgrind", f"--callgrind-out-file={data}", binary, "consume",
                             "--config", config_path],
                            stdout=subprocess.DEVNULL, stderr=open(os.path.join(out, f"instructions-{label}.log"), "w"))
    started, conn = time.monotonic(), None
    while True:
        time.sleep(0.5)
        if proc.poll() is not None:
            sys.exit(f"worker-instructions: {binary} exited {proc.returncode}: {bw.tail(os.path.join(out, f'instructions-{label}.log'))}")
        try:
            conn = conn or http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            if bw.is_ready(conn):
                handled, dead = bw.read_counters(conn, "feeds")
                if handled >= records and dead >= dead_letters:
                    break
        except (OSError, http.client.HTTPException):
            conn = None
        if time.monotonic() - started > 900:
            proc.kill()
            sys.exit(f"worker-instructions: {binary} did not handle {records} records within 900 s under valgrind")
    proc.send_signal(signal.SIGTERM)
    bw.reap(proc, grace=60)
    return data


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: worker_instructions.py OUT_DIR [WORKER_BINARY ...]")
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    binaries = sys.argv[2:] or [os.path.join(bw.BIN, "switchyard")]
    records = bw.env_int("BENCH_WORKER_RECORDS", 200_000)
    seed = bw.env_int("BENCH_WORKER_SEED", 17)
    partitions = 6
    broker, brokers = bw.start_broker(out, [("feeds", partitions), ("feeds.dlq", partitions)])
    try:
        bw.produce_corpus(brokers, bw.corpus_entries(records, partitions, seed), [("feeds", records)], "lz4")
        bw.verify_watermarks(brokers, "feeds", records, partitions)
        dead_letters = bw.expected_failures(out, records, seed)
        rows = []
        for k, binary in enumerate(binaries):
            label = f"{k + 1}"
            bw.log(f"{binary} under callgrind: {records} records, {dead_letters} dead letters")
            total, by_name = inclusive(run(out, binary, brokers, records, dead_letters, label))
            row = {"binary": binary, "total": total / records}
            for name, needle in AREAS:
                row[name] = max((c for c, fn in by_name if needle in fn), default=0) / records
            # What compares two builds: the total without the reads above, whose number follows the run's length.
            row["total without these reads"] = row["total"] - row[HTTP_READS]
            rows.append(row)
    finally:
        broker.terminate()
        bw.reap(broker)
    print(f"instructions per record ({records} records, {dead_letters} dead letters; inclusive, one run each)")
    for k, r in enumerate(rows):
        print(f"  [{k + 1}] {r['binary']}")
    print(f"{'':<30}" + "".join(f"{'[' + str(k + 1) + ']':>14}" for k in range(len(rows))))
    for name in ["total", "total without these reads"] + [n for n, _ in AREAS]:
        print(f"{name:<30}" + "".join(f"{r[name]:>14,.0f}" for r in rows))
    with open(os.path.join(out, "instructions.json"), "w") as f:
        json.dump({"records": records, "deadLetters": dead_letters, "runs": rows}, f, indent=2)


if __name__ == "__main__":
    main()
