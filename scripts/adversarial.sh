#!/usr/bin/env bash
# Replays the adversarial inputs through `switchyard replay --records` (release build) and prints
# one table row per input: size, expected and actual outcome/kind/path, wall time, peak RSS
# (`/usr/bin/time -v`). Nothing large is checked in: switchyard-adversarial generates the inputs.
#
#   scripts/adversarial.sh            # the issue's sizes: 20 MB, 1,000,000 levels, 100,000 keys, 10,000 digits
#   scripts/adversarial.sh 0.1        # everything at a tenth of the size
#
# Fails when an outcome differs from the expectation, a replay crashes (exit > 1), an input takes
# more than 10 s, or the peak RSS passes 256 MiB.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
SCALE="${1:-1}"
MAX_SECONDS=10
MAX_RSS_KIB=$((256 * 1024))
swift build -c release --product switchyard >/dev/null
swift build -c release --product switchyard-adversarial >/dev/null
BIN="$(swift build -c release --show-bin-path)"
DIR="$(mktemp -d)"
trap 'rm -rf "$DIR"' EXIT
"$BIN/switchyard-adversarial" "$DIR" "$SCALE"

printf '| %-26s | %10s | %-40s | %-40s | %7s | %8s |\n' input bytes expected "switchyard replay --records" seconds "peak RSS"
printf '|%s|%s|%s|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..28})" "$(printf -- '-%.0s' {1..12})" "$(printf -- '-%.0s' {1..42})" "$(printf -- '-%.0s' {1..42})" "$(printf -- '-%.0s' {1..9})" "$(printf -- '-%.0s' {1..10})"
status=0
while IFS=$'\x1f' read -r name catalog bytes max outcome kind path summary; do
    file="$DIR/$name.ndjson"
    args=(replay --records)
    if [ -n "$max" ]; then
        # The worker's maxRecordBytes comes from its config; replay --config applies it to kcat envelopes.
        printf '{"brokers":"localhost:9092","groupId":"adversarial","topics":{"%s":{"catalog":"%s"}},"maxRecordBytes":%s}\n' \
            "$catalog" "$catalog" "$max" > "$DIR/config.json"
        python3 -c 'import json,sys; print(json.dumps({"topic":sys.argv[2],"partition":0,"offset":0,"tstype":"create","ts":0,"headers":[],"key":None,"payload":open(sys.argv[1],"rb").read().rstrip(b"\n").decode()}))' \
            "$file" "$catalog" > "$DIR/$name.kcat"
        file="$DIR/$name.kcat"
        args+=(--config "$DIR/config.json")
    else
        # No maxRecordBytes: the reader's own limit (64 MiB), which these inputs probe; replay's default
        # is the worker's 1 MiB.
        args+=(--topic "$catalog" --policy lenient --max-record-bytes $((64 << 20)))
    fi
    set +e
    /usr/bin/time -v "$BIN/switchyard" "${args[@]}" "$file" > "$DIR/out.txt" 2> "$DIR/time.txt"
    rc=$?
    set -e
    peak=$(awk -F: '/Maximum resident set size/ { gsub(/ /, "", $2); print $2 }' "$DIR/time.txt")
    elapsed=$(awk -F': ' '/Elapsed \(wall clock\)/ { print $2 }' "$DIR/time.txt")
    seconds=$(echo "$elapsed" | awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')
    actual=$(python3 -c 'import json,sys
line = open(sys.argv[1]).readline()
r = json.loads(line) if line.strip() else {}
print(r.get("outcome", "none") + ((" " + r["kind"] + " @\"" + r.get("path", "") + "\"") if "kind" in r else ""))' "$DIR/out.txt" 2>/dev/null || echo "unreadable")
    expected="$outcome${kind:+ $kind @\"$path\"}"
    mark=""
    if [ "$rc" -gt 1 ] || [ "$actual" != "$expected" ]; then mark=" ✗ (exit $rc)"; status=1; fi
    if awk -v s="$seconds" -v m="$MAX_SECONDS" 'BEGIN { exit !(s > m) }'; then mark="$mark ✗ slow"; status=1; fi
    if [ "$peak" -gt "$MAX_RSS_KIB" ]; then mark="$mark ✗ memory"; status=1; fi
    printf '| %-26s | %10s | %-40s | %-40s | %7s | %5s MiB |%s\n' "$name" "$bytes" "$expected" "$actual" "$seconds" "$((peak / 1024))" "$mark"
done < "$DIR/manifest.tsv"
exit $status
