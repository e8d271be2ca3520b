#!/usr/bin/env bash
# make bench: Switchyard against Foundation, msgspec, pydantic and simdjson, in one run, on the same
# bytes, one core. Prints a table and writes .build/bench/results.json. Topics: the shipped catalogs
# (payments, feeds) and the bench's commerce catalog (unions, maps, nullable members, exact numbers;
# msgspec is its only Python peer; `switchyard replay` knows the shipped catalogs only).
#
# Environment: BENCH_RECORDS (records per topic for the in-process peers, default 100000),
# BENCH_REPLAY_RECORDS (records per topic for `switchyard replay`, default 500000), BENCH_REPS
# (timed passes after one warm-up, best reported, default 5), BENCH_ROUNDS (alternating Swift and Python
# processes, best round reported, default 3), BENCH_CPU (the core, default: the last).
set -euo pipefail
cd "$(dirname "$0")/.."

records=${BENCH_RECORDS:-100000}
replay_records=${BENCH_REPLAY_RECORDS:-500000}
reps=${BENCH_REPS:-5}
rounds=${BENCH_ROUNDS:-3}
cpu=${BENCH_CPU:-$(($(nproc) - 1))}
out=.build/bench
bin=.build/release
mkdir -p "$out"

# One core for every peer: pinned, single-threaded.
pin=()
if command -v taskset >/dev/null 2>&1; then pin=(taskset -c "$cpu"); fi

[ -x "$bin/switchyard-bench" ] && [ -x "$bin/switchyard" ] || swift build -c release
[ -x .venv/bin/python ] || scripts/install-deps.sh

echo "bench: corpus (seed 6; $records records per topic, $replay_records for replay) in $out" >&2
"$bin/switchyard-bench" corpus "$out" "$records" "$replay_records"

raw="$out/raw.ndjson"
: >"$raw"
# Rounds alternate the Swift and the Python processes, so that a noisy neighbour on a shared machine
# slows each side in some round; the report keeps each peer's best round.
for round in $(seq 1 "$rounds"); do
    echo "bench: round $round of $rounds: Switchyard, Foundation, simdjson ($reps passes after a warm-up)" >&2
    "${pin[@]}" "$bin/switchyard-bench" run "$out" "$reps" payments,feeds,commerce | tee -a "$raw" >&2
    echo "bench: round $round of $rounds: msgspec, pydantic" >&2
    "${pin[@]}" .venv/bin/python scripts/bench_peers.py "$out" "$reps" payments,feeds,commerce | tee -a "$raw" >&2
done

echo "bench: switchyard replay --json, end to end (best of 3)" >&2
for topic in payments feeds; do
    file="$out/$topic-replay.ndjson"
    n=$(wc -l <"$file")
    best=""
    for _ in 1 2 3; do
        # Exit 1 is expected: the corpus holds malformed records (a strict topic's findings).
        "${pin[@]}" /usr/bin/time -v -o "$out/time.txt" "$bin/switchyard" replay --json --topic "$topic" "$file" >"$out/replay-$topic.json" || [ $? -eq 1 ]
        secs=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s }' "$out/time.txt")
        rss=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$out/time.txt")
        rate=$(python3 -c "print($n / max($secs, 1e-9))")
        if [ -z "$best" ] || python3 -c "import sys; sys.exit(0 if $rate > $best else 1)"; then best=$rate; best_rss=$rss; fi
    done
    echo "{\"peer\":\"switchyard replay --json\",\"workload\":\"end to end\",\"topic\":\"$topic\",\"records\":$n,\"eventsPerSecond\":$best,\"maxRSSKiB\":$best_rss}" | tee -a "$raw" >&2
done

.venv/bin/python scripts/bench_report.py "$raw" "$out/results.json"
