#!/usr/bin/env bash
# The handler-publish benchmark (scripts/bench_handler_publish.py): a handler publishing one event per record
# through its context against `republishTo`, in the same run, on the release workers. Exit 1 when the handler
# rate is below half of republishTo's. Environment: see scripts/bench_handler_publish.py.
set -euo pipefail
cd "$(dirname "$0")/.."
for product in switchyard switchyard-corpus switchyard-bench-worker; do
    swift build -c release --product "$product" >&2
done
[ -x .venv/bin/python ] && .venv/bin/python -c 'import confluent_kafka, msgspec' 2>/dev/null || scripts/install-deps.sh
exec .venv/bin/python scripts/bench_handler_publish.py "${1:-.build/bench/handler-publish}"
