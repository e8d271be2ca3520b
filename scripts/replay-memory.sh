#!/usr/bin/env bash
# Peak memory of `switchyard replay` over a generated dump: it streams, so it stays flat however big the dump.
#
#   scripts/replay-memory.sh [COUNT] [--kcat] [--gzip]      (default: 1000000 NDJSON feeds records)
#
# Builds release, writes COUNT seeded records with switchyard-corpus, runs
# `/usr/bin/time -v .build/release/switchyard replay --json …` and prints the records, the time and the peak
# RSS ("Maximum resident set size"). Fails when the peak is 100 MiB or more.
set -euo pipefail
cd "$(dirname "$0")/.."
COUNT=1000000
KCAT=""
GZIP=""
for arg in "$@"; do
  case "$arg" in
    --kcat) KCAT="--kcat" ;;
    --gzip) GZIP=1 ;;
    *) COUNT="$arg" ;;
  esac
done
LIMIT_KIB=$((100 * 1024))
swift build -c release --product switchyard >/dev/null
swift build -c release --product switchyard-corpus >/dev/null
DIR="$(mktemp -d)"
trap 'rm -rf "$DIR"' EXIT
DUMP="$DIR/feeds.dump"
.build/release/switchyard-corpus --catalog feeds --count "$COUNT" --seed 7 $KCAT > "$DUMP"
if [ -n "$GZIP" ]; then gzip -1 "$DUMP"; DUMP="$DUMP.gz"; fi
ARGS=(replay --json)
[ -z "$KCAT" ] && ARGS+=(--topic feeds)
/usr/bin/time -v .build/release/switchyard "${ARGS[@]}" "$DUMP" > "$DIR/summary.json" 2> "$DIR/time.txt" || true
PEAK_KIB=$(awk -F: '/Maximum resident set size/ { gsub(/ /, "", $2); print $2 }' "$DIR/time.txt")
ELAPSED=$(awk -F': ' '/Elapsed \(wall clock\)/ { print $2 }' "$DIR/time.txt")
RECORDS=$(sed -E 's/^\{"records":([0-9]+).*/\1/' "$DIR/summary.json")
echo "dump:       $(du -h "$DUMP" | cut -f1) ($COUNT records${KCAT:+, kcat envelopes}${GZIP:+, gzip})"
echo "replayed:   $RECORDS records in $ELAPSED"
echo "peak RSS:   $((PEAK_KIB / 1024)) MiB ($PEAK_KIB KiB; limit 100 MiB)"
if [ "$RECORDS" != "$COUNT" ]; then echo "FAIL: replayed $RECORDS of $COUNT records"; exit 1; fi
if [ "$PEAK_KIB" -ge "$LIMIT_KIB" ]; then echo "FAIL: peak RSS is over 100 MiB"; exit 1; fi
echo "OK"
