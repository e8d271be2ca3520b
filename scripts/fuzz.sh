#!/usr/bin/env bash
# Runs the libFuzzer targets for FUZZ_SECONDS each and prints one line per target:
# executions, corpus size, crashes. Exit 1 if any target crashed (the crashing input is kept in
# .build/fuzz-artifacts/TARGET/ (logs in .build/fuzz-logs/) and replays without sanitizers: .build/debug/TARGET FILE).
#
#   FUZZ_SECONDS=300 scripts/fuzz.sh                 # what `make fuzz` runs
#   FUZZ_SECONDS=30 scripts/fuzz.sh fuzz-decode      # one target
#
# Build: SwiftPM links an executable with its own `main`, so the targets call libFuzzer's
# LLVMFuzzerRunDriver from `main` (Sources/SwitchyardFuzz/FuzzDriver.swift) instead of using
# libFuzzer's `main`. Every module is compiled with -sanitize=fuzzer,address in its own scratch
# path, so the normal debug build never sees these flags.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
SECONDS_PER_TARGET="${FUZZ_SECONDS:-300}"
JOBS="${FUZZ_JOBS:-1}"
TARGETS=("$@")
[ ${#TARGETS[@]} -eq 0 ] && TARGETS=(fuzz-decode fuzz-differential)
SCRATCH=.build/fuzz

for target in "${TARGETS[@]}"; do
    swift build -c release --scratch-path "$SCRATCH" --product "$target" \
        -Xswiftc -sanitize=fuzzer,address -Xswiftc -DSWITCHYARD_LIBFUZZER 2>&1 | grep -vE "Cannot export local symbol '__asan" >&2
done
BIN="$(swift build -c release --scratch-path "$SCRATCH" --show-bin-path)"

# Seeds: the catalog fixtures, their golden encodings and JSONTestSuite, copied into a gitignored
# working corpus (libFuzzer adds what it finds there; nothing is committed).
SEEDS=.build/fuzz-corpus/seeds
mkdir -p "$SEEDS"
cp Tests/SwitchyardCatalogTests/Fixtures/*.json "$SEEDS/"
rm -f "$SEEDS/expectations.json"
for f in Tests/SwitchyardCatalogTests/Fixtures/golden/*.json; do cp "$f" "$SEEDS/golden-$(basename "$f")"; done
if [ -d ../shared/testdata/JSONTestSuite/test_parsing ]; then
    cp ../shared/testdata/JSONTestSuite/test_parsing/*.json "$SEEDS/"
fi
DICT=.build/fuzz-corpus/json.dict
cat > "$DICT" <<'DICT'
"{"
"}"
"["
"]"
":"
","
"\""
"\\u"
"\\ud800"
"null"
"true"
"false"
"-0.0e+1"
"\"type\""
"\"id\""
"\"occurredAt\""
"\"schemaVersion\""
"\"payment.authorized\""
"\"payment.captured\""
"\"payment.refunded\""
"\"payment.failed\""
"\"post.created\""
"\"post.liked\""
"\"comment.added\""
"\"user.followed\""
"\"amount\""
"\"value\""
"\"currency\""
"\"merchant\""
"\"tags\""
"\"2025-03-01T12:00:00Z\""
"\"2025-03-01T12:00:00.250+01:00\""
DICT

status=0
for target in "${TARGETS[@]}"; do
    corpus=.build/fuzz-corpus/$target
    artifacts=.build/fuzz-artifacts/$target/
    log=.build/fuzz-logs/$target.log
    mkdir -p "$corpus" "$artifacts" .build/fuzz-logs
    rm -f .build/fuzz-corpus/fuzz-*.log
    marker=$(mktemp)
    # -jobs makes libFuzzer write fuzz-N.log files into the working directory: only when asked for.
    parallel=()
    [ "$JOBS" -gt 1 ] && parallel=(-jobs="$JOBS" -workers="$JOBS")
    set +e
    (cd .build/fuzz-corpus && "$BIN/$target" "$target" seeds -dict=json.dict -max_total_time="$SECONDS_PER_TARGET" -max_len=4096 \
        -timeout=10 -rss_limit_mb=2048 "${parallel[@]}" -artifact_prefix="../fuzz-artifacts/$target/" -print_final_stats=1) >"$log" 2>&1
    rc=$?
    set -e
    # With -jobs, each worker's stats are in .build/fuzz-corpus/fuzz-N.log; without, in $log.
    if [ "$JOBS" -gt 1 ]; then cat .build/fuzz-corpus/fuzz-*.log >> "$log"; rm -f .build/fuzz-corpus/fuzz-*.log; fi
    runs=$(grep -E '^stat::number_of_executed_units' "$log" | awk '{s+=$2} END {print s+0}')
    corpus_size=$(find "$corpus" -type f | wc -l)
    crashes=$(find "$artifacts" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) -newer "$marker" 2>/dev/null | wc -l)
    rm -f "$marker"
    if [ "$rc" -ne 0 ]; then
        status=1
        crashes=$((crashes > 0 ? crashes : 1))
        echo "$target: CRASHED after $runs executions — see $log and $artifacts" >&2
        grep -E "invariant broken|disagree|ERROR: AddressSanitizer|Fatal error" "$log" | head -5 >&2 || true
    fi
    printf '%-18s %6ss  executions %-10s corpus %-6s crashes %s\n' "$target" "$SECONDS_PER_TARGET" "$runs" "$corpus_size" "$crashes"
done
exit $status
