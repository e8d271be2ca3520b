#!/usr/bin/env bash
# make bench-worker (issue 17, item 1): `switchyard consume` end to end against a Python consumer
# (confluent-kafka + msgspec, the same at-least-once work) and `kcat -C` (the transport floor), on the same
# seeded feeds records in one `switchyard broker`, in alternating rounds; the 1 ms handler case for
# `ordering: partition` and `ordering: key`. Prints the table, the targets and the capacity table
# (docs/capacity.md) and writes .build/bench/worker.json.
#
# Environment: BENCH_WORKER_RECORDS (default 84000: the mock broker keeps about 5 MB per partition, and the
# script checks the watermarks before measuring), BENCH_WORKER_PARTITIONS (6), BENCH_WORKER_ROUNDS (3),
# BENCH_WORKER_SLOW_RECORDS (6000), BENCH_WORKER_HANDLER_MS (1), BENCH_WORKER_TIMEOUT (120 s per run),
# BENCH_WORKER_SEED (17), BENCH_WORKER_POLL_MS (20), BENCH_CAPACITY_UTILISATION (0.7),
# BENCH_CAPACITY_CATCHUP_SECONDS (5). All are described in scripts/bench_worker.py.
set -euo pipefail
cd "$(dirname "$0")/.."

bin=.build/release
for product in switchyard switchyard-corpus switchyard-bench-worker; do
    [ -x "$bin/$product" ] || { swift build -c release; break; }
done
command -v kcat >/dev/null 2>&1 && [ -x .venv/bin/python ] && .venv/bin/python -c 'import confluent_kafka, msgspec' 2>/dev/null \
    || scripts/install-deps.sh

exec .venv/bin/python scripts/bench_worker.py .build/bench
