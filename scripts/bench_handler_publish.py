"""The handler-publish benchmark: a handler that publishes one event per record through its context, against
`republishTo` (the worker's own republish), in the same run on the same records.

    bench_handler_publish.py OUT_DIR        (run by scripts/bench-handler-publish.sh, which builds first)

Both rows run the release workers on the seeded feeds corpus of scripts/bench_worker.py in one `switchyard
broker`, in alternating rounds, and are measured the same way (bench_worker.run_worker: from the first record
seen to every record's outcome durable, /status "processed"):

- republishTo: `switchyard consume`, the topic's `republishTo: feeds.out` (every decoded or unknown record
  republished, decode failures dead-lettered);
- handler publish: `switchyard-bench-worker --publish-to feeds.events`, a handler per feeds event type (and one
  for unknown types) that calls `context.publish(event, to:, key:)`, no republishTo; decode failures
  dead-lettered alike.

The target: the handler-publish rate at least half of republishTo's. Prints both rows and the ratio of the
median steady rates and writes OUT/handler-publish.json. Environment: BENCH_WORKER_RECORDS (200000),
BENCH_WORKER_PARTITIONS (6), BENCH_WORKER_ROUNDS (3), BENCH_WORKER_COMPRESSION (lz4), BENCH_WORKER_TIMEOUT (120 s
per run), BENCH_WORKER_SEED (17), as bench_worker.py reads them.
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_worker as bw  # noqa: E402


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: bench_handler_publish.py OUT_DIR")
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    records = bw.env_int("BENCH_WORKER_RECORDS", 200_000)
    partitions = bw.env_int("BENCH_WORKER_PARTITIONS", 6)
    rounds = bw.env_int("BENCH_WORKER_ROUNDS", 3)
    compression = os.environ.get("BENCH_WORKER_COMPRESSION", "lz4")
    timeout = bw.env_int("BENCH_WORKER_TIMEOUT", 120)
    seed = bw.env_int("BENCH_WORKER_SEED", 17)
    poll, fine_poll = 0.02, 0.005
    topic = "feeds"
    broker, brokers = bw.start_broker(out, [(topic, partitions), ("feeds.dlq", partitions), ("feeds.out", partitions),
                                            ("feeds.events", partitions)])
    runs = {"republishTo": [], "handlerPublish": []}
    try:
        entries = bw.corpus_entries(records, partitions, seed)
        bw.produce_corpus(brokers, entries, [(topic, records)], compression)
        bw.verify_watermarks(brokers, topic, records, partitions)
        del entries
        failures = bw.expected_failures(out, records, seed)
        bw.log(f"{records} feeds records in {partitions} partitions ({failures} decode failures, dead-lettered by both)")

        def config(extra, group):
            t = {"catalog": "feeds", "policy": "lenient", "deadLetterTopic": "feeds.dlq"}
            t.update(extra)
            return {"brokers": brokers, "groupId": group, "clientId": "bench-switchyard", "topics": {topic: t},
                    "shutdownTimeoutSeconds": 10}

        for round_ in range(1, rounds + 1):
            order = ["republishTo", "handlerPublish"] if round_ % 2 else ["handlerPublish", "republishTo"]
            for row in order:
                label = f"{row}-r{round_}"
                group = f"bench-{label}-{os.getpid()}"
                if row == "republishTo":
                    argv = [os.path.join(bw.WORKER_BIN, "switchyard"), "consume", "--config", "{config}"]
                    cfg = config({"republishTo": "feeds.out"}, group)
                else:
                    argv = [os.path.join(bw.WORKER_BIN, "switchyard-bench-worker"), "{config}", "--publish-to", "feeds.events"]
                    cfg = config({}, group)
                r = bw.run_worker(out, label, argv, cfg, topic, records, failures, timeout, poll, fine_poll)
                runs[row].append(r)
                bw.log(f"round {round_}: {row}: steady {bw.fmt_rate(r.get('steadyRate'))}/s, start->all "
                       f"{bw.fmt_rate(r.get('startRate'))}/s, CPU {bw.fmt(r.get('cpuSeconds'), '.2f')} s"
                       + (f"  ({r['error']})" if r.get("error") else ""))
    finally:
        broker.send_signal(bw.signal.SIGTERM)
        bw.reap(broker)

    summary = {k: bw.summarize(v) for k, v in runs.items()}
    rp, hp = summary["republishTo"], summary["handlerPublish"]
    ratio = (hp["medianSteadyRate"] / rp["medianSteadyRate"]) if hp.get("medianSteadyRate") and rp.get("medianSteadyRate") else None
    print(f"handler publish vs republishTo: {records:,} records, {partitions} partitions, {rounds} rounds, "
          f"workers from {bw.WORKER_BIN}")
    print(f"{'row':<34} {'median steady rec/s':>20} {'best steady rec/s':>18} {'CPU µs/record':>14}")
    for name, s in (("republishTo (switchyard consume)", rp), ("handler publishing 1 event/record", hp)):
        print(f"{name:<34} {bw.fmt_rate(s.get('medianSteadyRate')):>20} {bw.fmt_rate(s.get('steadyRate')):>18} "
              f"{bw.fmt(s.get('cpuMicrosPerRecord'), '.2f'):>14}" + (f"  errors: {s['errors']}" if s["errors"] else ""))
    verdict = "met" if ratio is not None and ratio >= 0.5 else "NOT met"
    print(f"ratio (median steady): {bw.fmt(ratio, '.2f')}x; target >= 0.5x: {verdict}")
    with open(os.path.join(out, "handler-publish.json"), "w") as f:
        json.dump({"runs": runs, "summary": summary, "ratio": ratio}, f, indent=2)
    if ratio is None or ratio < 0.5:
        sys.exit(1)


if __name__ == "__main__":
    main()
