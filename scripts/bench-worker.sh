#!/usr/bin/env bash
# make bench-worker: `switchyard consume` end to end against a Python consumer
# (confluent-kafka + msgspec, the same at-least-once work), `kcat -C` (the transport floor) and a C consumer
# that only polls (switchyard-bench-floor: what librdkafka alone costs), on the same
# seeded feeds records in one `switchyard broker`, in alternating rounds; the 1 ms handler case for
# `ordering: partition` and `ordering: key`; a dead-letter storm (every record malformed) for the worker and the
# Python peer. Prints the table, the targets and the capacity table
# (docs/explanation/capacity.md) and writes .build/bench/worker.json.
#
# Environment: BENCH_WORKER_RECORDS (default 200000; the mock broker keeps about 5 MB per partition
# of produced bytes, and the script checks the watermarks before measuring), BENCH_WORKER_COMPRESSION (lz4: what
# fits 200,000 records into 6 partitions), BENCH_WORKER_PARTITIONS (6), BENCH_WORKER_ROUNDS (3),
# BENCH_WORKER_SLOW_RECORDS (6000), BENCH_WORKER_HANDLER_MS (1), BENCH_WORKER_STORM_RECORDS (a tenth of the
# records: the dead-letter storm, every record malformed; 0 leaves it out), BENCH_WORKER_TIMEOUT (120 s per run),
# BENCH_WORKER_SEED (17), BENCH_WORKER_POLL_MS (20), BENCH_CAPACITY_UTILISATION (0.7),
# BENCH_CAPACITY_CATCHUP_SECONDS (5), BENCH_WORKER_SYSTEM_RDKAFKA (1: also a Python peer on the system
# librdkafka). All are described in scripts/bench_worker.py.
set -euo pipefail
cd "$(dirname "$0")/.."

bin=.build/release
for product in switchyard switchyard-corpus switchyard-bench-worker switchyard-bench-floor; do
    [ -x "$bin/$product" ] || { swift build -c release; break; }
done
# The measured workers as the container image builds them (deploy/Dockerfile): the Swift runtime and
# Foundation linked statically. Their own scratch path, so that the everyday release build is left alone.
static=.build/static
for product in switchyard switchyard-bench-worker; do
    swift build -c release --static-swift-stdlib --scratch-path "$static" --product "$product" >&2
done
export BENCH_WORKER_BIN="$PWD/$static/release"

command -v kcat >/dev/null 2>&1 && [ -x .venv/bin/python ] && .venv/bin/python -c 'import confluent_kafka, msgspec' 2>/dev/null \
    || scripts/install-deps.sh

# A second Python peer on the librdkafka the worker and kcat link (Debian's), so that the comparison also
# holds the client library equal: confluent-kafka of the same version, built from source against it (needs
# a C compiler and the Python headers; skipped with a note when they are missing or the build fails).
# BENCH_WORKER_SYSTEM_RDKAFKA=0 leaves it out.
if [ "${BENCH_WORKER_SYSTEM_RDKAFKA:-1}" = 1 ]; then
    rdkafka=$(pkg-config --modversion rdkafka)
    venv=.build/bench/venv-librdkafka-$rdkafka
    # bench_worker_peer.py imports the models of bench_peers.py, which also defines the pydantic ones.
    pins=$(grep -E '^(msgspec|pydantic)==' scripts/requirements.txt)
    if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import confluent_kafka, msgspec, pydantic' 2>/dev/null; then
        if command -v cc >/dev/null 2>&1 && [ -f "$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["include"])')/Python.h" ]; then
            echo "bench-worker: building confluent-kafka $rdkafka against the system librdkafka in $venv" >&2
            rm -rf "$venv"
            if ! { python3 -m venv "$venv" && "$venv/bin/pip" install -q --disable-pip-version-check \
                --no-binary confluent-kafka "confluent-kafka==$rdkafka" $pins; }; then
                echo "bench-worker: could not build confluent-kafka $rdkafka from source: that Python row is left out" >&2
                rm -rf "$venv"
            fi
        else
            echo "bench-worker: no C compiler or Python headers: the Python peer on librdkafka $rdkafka is left out" >&2
        fi
    fi
    [ -x "$venv/bin/python" ] && export BENCH_WORKER_SYSTEM_RDKAFKA_PYTHON="$PWD/$venv/bin/python"
fi

exec .venv/bin/python scripts/bench_worker.py .build/bench
