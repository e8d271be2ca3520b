#!/usr/bin/env bash
# Fails when the tree speaks of its own history instead of the product as it is: issue or pull-request
# numbers, work periods, sessions, numbered or lettered benchmark runs, "until session …" narratives and
# commit hashes quoted as the state of main. History lives in git and CHANGELOG.md.
#
# Scans every tracked or new (not ignored) text file except CHANGELOG.md and data files (fixtures,
# recorded corpora). Prints `path:line: text` for each hit and exits 1 if there is any.
#
#   scripts/check-no-history.sh              check the tree
#   scripts/check-no-history.sh --self-test  check that each pattern catches an injected line and
#                                            leaves ordinary prose alone
set -euo pipefail
cd "$(dirname "$0")/.."

# One PCRE per kind of reference. Kept narrow: Kafka's `session.timeout.ms`, "no longer assigned",
# a merchant called "Nordstrom #1042" and "run 2 workers" are the product, not its history.
PATTERNS=(
    '\b(?i:issues?|pull requests?|PRs?|tickets?)\s*#?[0-9]+\b'
    '\(#[0-9]+\)'
    '\b(?i:work[- ]periods?)\b'
    '\b(?i:sessions?)[ -]?[0-9]+\b'
    '\b(?i:sessions?)\b(?!\.|-| timeout| timeouts)'
    '\b[Rr]uns? (?:[A-Z]{1,2}|[0-9]+)\b(?![0-9,.]*[ -]*(?:ms|s|µs|seconds?|minutes?|records?|times|workers?|replicas?|partitions?|rounds?|[×x%]))'
    '\b(?i:until|since) (?:session|issue|run|period|commit)\b'
    '\bmain at [0-9a-f]{7,40}\b'
    'MARK: -? ?(?i:items?) [0-9]+'
)

# The data files: recorded payloads and corpora, not prose.
is_data() {
    case "$1" in
        CHANGELOG.md | */Fixtures/* | Tests/CodegenConformance/cases/*.records | *.jsonl | *.ndjson | *.records) return 0 ;;
        scripts/check-no-history.sh) return 0 ;;
        *) return 1 ;;
    esac
}

combined=$(printf '(?:%s)|' "${PATTERNS[@]}")
combined=${combined%|}

scan() { # files on stdin; prints hits, returns 1 if any
    local hits=0 file pattern
    while IFS= read -r file; do
        is_data "$file" && continue
        [[ -f "$file" ]] || continue
        grep -Iq . "$file" 2>/dev/null || continue
        if grep -nP -- "$combined" "$file" | sed "s|^|$file:|" | grep .; then hits=1; fi
    done
    return $hits
}

if [[ "${1:-}" == "--self-test" ]]; then
    dir=$(mktemp -d)
    trap 'rm -rf "$dir"' EXIT
    # Built from pieces so this file does not match itself.
    n=1""2
    bad=(
        "// Fixed in issue $n: the worker halts."
        "/// See #$n and (#$n) for the background."
        "The figure moved in work period $n."
        "Measured in session $n on the slow VM."
        "the session's five runs"
        "run AA of the five (Y to AC) and run $n of three"
        "Until session the loop retried forever."
        "On main at 4cca499 the worker read 1M/s."
        "// MARK: - Items 3 and $n: suggested commands run"
    )
    good=(
        "session.timeout.ms: how long the group waits for a silent member."
        "check the logs for session timeouts."
        "halt not applied: partition no longer assigned"
        "Nordstrom #1042 sells shoes."
        "Run 2 workers with 6 partitions; each run takes 30 seconds."
        "The script runs 200,000 records through the handler."
        "The schema used to decode the record is the one the build was made with."
    )
    failed=0
    for i in "${!bad[@]}"; do
        printf '%s\n' "${bad[$i]}" > "$dir/bad$i.md"
        if echo "$dir/bad$i.md" | scan > /dev/null; then echo "self-test: not caught: ${bad[$i]}"; failed=1; fi
    done
    for i in "${!good[@]}"; do
        printf '%s\n' "${good[$i]}" > "$dir/good$i.md"
        if ! echo "$dir/good$i.md" | scan > /dev/null; then echo "self-test: false hit: ${good[$i]}"; failed=1; fi
    done
    [[ $failed == 0 ]] && echo "check-no-history self-test: ${#bad[@]} injected lines caught, ${#good[@]} ordinary lines passed"
    exit $failed
fi

if ! git ls-files --cached --others --exclude-standard | scan; then
    echo "error: history in the tree (above): say what the code does now; history belongs in git and CHANGELOG.md" >&2
    exit 1
fi
echo "check-no-history: no history references"
