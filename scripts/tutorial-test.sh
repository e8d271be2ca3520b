#!/usr/bin/env bash
# Follows docs/tutorial.md step by step, as a reader does: in a new directory outside the repository, with
# this checkout at ../switchyard, it writes every file the tutorial shows (a code block right under a
# `<!-- file: PATH -->` line) and runs every line of its sh blocks, in order, in one shell; then checks
# what the tutorial says the reader sees. This builds a team's package from scratch outside the
# repository, the way a team does.
#
#   TUTORIAL_TIMEOUT   seconds for the whole tutorial, the first build included (default 1800)
#   TUTORIAL_KEEP=1    keep the directory (its path is printed)
# Last line: `tutorial: passed` or the failing step; exit non-zero on failure.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
pgid=""
cleanup() {
    # The tutorial's broker and worker run in the background of its shell: end that process group.
    if [ -n "$pgid" ]; then kill -TERM -- "-$pgid" 2>/dev/null || true; fi
    if [ -z "${TUTORIAL_KEEP:-}" ]; then rm -rf "$work"; else echo "tutorial: kept $work"; fi
}
trap cleanup EXIT
ln -s "$root" "$work/switchyard"

# The tutorial as one shell script: files as here-documents, sh lines as they are printed.
python3 - "$root/docs/tutorial.md" >"$work/tutorial.sh" <<'PY'
import re, sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
out = ["set -euo pipefail", "PS4='tutorial: $ '", "set -x"]
pending_file = None
i = 0
files = commands = 0
while i < len(lines):
    line = lines[i]
    marker = re.fullmatch(r"<!-- file: (\S+) -->", line.strip())
    if marker:
        pending_file = marker.group(1)
        i += 1
        continue
    if line.startswith("```"):
        lang = line[3:].strip()
        end = lines.index("```", i + 1)
        body = lines[i + 1:end]
        if pending_file:
            out += ["{ set +x; } 2>/dev/null", f'mkdir -p "$(dirname {pending_file})"', f"cat > {pending_file} <<'TUTORIAL_FILE'"]
            out += body + ["TUTORIAL_FILE", f"echo 'tutorial: wrote {pending_file}'", "set -x"]
            files += 1
        elif lang == "sh":
            out += [l for l in body if l.strip()]
            commands += sum(1 for l in body if l.strip())
        pending_file = None
        i = end + 1
        continue
    if line.strip():
        pending_file = None
    i += 1
if files < 5 or commands < 10:
    sys.exit(f"tutorial: only {files} files and {commands} commands found in {sys.argv[1]}: are the markers right?")
print("\n".join(out))
PY

echo "tutorial: following docs/tutorial.md in $work"
cd "$work"
set +e
# timeout(1) runs the tutorial in a process group of its own and ends it, background jobs included, when
# the time is up; the cleanup ends that group too.
timeout "${TUTORIAL_TIMEOUT:-1800}" bash "$work/tutorial.sh" >"$work/stdout.txt" 2>"$work/stderr.txt" &
pgid=$!
wait "$pgid"
status=$?
set -e
grep '^tutorial: ' "$work/stderr.txt" | sed 's/^tutorial: /  /' | grep -v '^  \$ until \|^  \$ for i in \|^  \$ break$\|^  \$ sleep\|^  \$ grep -q\|^  \$ curl -s 127.0.0.1:19464/status$' || true
if [ "$status" != 0 ]; then
    echo "tutorial: a step failed (exit $status); its stderr, last lines:" >&2
    tail -30 "$work/stderr.txt" >&2
    exit 1
fi

fail() { echo "tutorial: $1" >&2; exit 1; }
out="$work/stdout.txt"
orders="$work/orders"
grep -q '"name":"orders"' "$out" || grep -q '"name" *: *"orders"' "$out" || fail "version --json does not list the orders catalog"
grep -q '"outcome":"failed".*"kind":"keyNotFound","path":"orderId"' "$out" || fail "replay --records did not fail the fourth record with keyNotFound at orderId"
[ "$(grep -c '"outcome":"decoded"' "$out")" -ge 3 ] || fail "replay --records did not decode three records"
grep -qx 'placed ord-1: 1999 cents, gift wrap false' "$orders/handled.txt" || fail "the handler did not run for ord-1 (handled.txt)"
grep -qx 'placed ord-2: 4500 cents, gift wrap true' "$orders/handled.txt" || fail "the handler did not run for ord-2 (handled.txt)"
grep -q 'keyNotFound' <(grep -A3 'DEAD LETTER' "$out") || fail "dlq list does not show the dead letter's keyNotFound"
grep -q '^4 records: 3 decoded, 0 unknown, 1 failed' "$out" || fail "replay over the dump did not find 4 records, 3 decoded, 1 failed"
echo "tutorial: passed"
