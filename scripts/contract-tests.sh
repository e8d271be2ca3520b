#!/usr/bin/env bash
# Contract tests that need tools outside Swift (PRODUCT.md: "Schemas/ holds a JSON Schema for each
# event; tests keep the Swift types and the schemas in step"):
#   1. every schema in Schemas/ is valid under its metaschema (JSON Schema 2020-12)
#   2. every fixture the manifest marks `decoded` or `unknown` validates against its topic schema
#   3. every golden (canonical) encoding validates against its topic schema
#   4. scripts/check_schemas.py: failing fixtures are rejected for the expected kind and path, the
#      manifest, fixture shapes, golden byte rules, and Schemas/asyncapi.yaml
#   5. `switchyard schema check Schemas/baseline Schemas`: the shipped schemas against the last
#      release's (Schemas/baseline/) are compatible in both directions, or each breaking change is
#      acknowledged (--allow POINTER --reason TEXT) here. Needs the built binary (.build/debug/switchyard,
#      or $SWITCHYARD_BIN). At a release, copy Schemas/*.json and its event folders into Schemas/baseline/.
# Offline: the schemas' $ids are https://switchyard.dev/... and nothing may be fetched, so the
# schemas are validated from a copy whose $ids are file:// URIs (relative $refs then resolve to the
# files), and any HTTP(S) request is sent to a dead proxy so that it fails instead of leaving.
# Needs .venv (scripts/install-deps.sh). Last line: `contract: N passed, M failed`; exit 1 if M > 0.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=.venv
if [ ! -x "$venv/bin/check-jsonschema" ]; then
    echo "contract-tests: $venv/bin/check-jsonschema is missing; run scripts/install-deps.sh" >&2
    exit 69
fi
export HTTP_PROXY=http://127.0.0.1:9 HTTPS_PROXY=http://127.0.0.1:9 http_proxy=http://127.0.0.1:9 https_proxy=http://127.0.0.1:9
unset NO_PROXY no_proxy || true
export XDG_CACHE_HOME="${TMPDIR:-/tmp}/switchyard-contract-cache.$$"

fixtures=Tests/SwitchyardCatalogTests/Fixtures
work=$(mktemp -d)
trap 'rm -rf "$work" "$XDG_CACHE_HOME"' EXIT

passed=0
failed=0
pass() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL $1" >&2; }

cjs() { "$venv/bin/check-jsonschema" --no-cache "$@"; }

# Runs one check-jsonschema over a group of files; on failure reruns file by file so that each
# file counts once and the failing ones are named with their errors.
check_group() { # label, then check-jsonschema options, --, then files
    local label=$1; shift
    local opts=()
    while [ "$1" != "--" ]; do opts+=("$1"); shift; done
    shift
    [ $# -gt 0 ] || { fail "$label: no files"; return; }
    if cjs "${opts[@]}" "$@" >"$work/out" 2>&1; then
        passed=$((passed + $#))
        echo "ok   $label: $# files"
        return
    fi
    local f
    for f in "$@"; do
        if cjs "${opts[@]}" "$f" >"$work/out" 2>&1; then pass; else fail "$label: $f"; sed 's/^/    /' "$work/out" >&2; fi
    done
}

# 1. the schemas themselves
mapfile -t schema_files < <(find Schemas -name '*.json' | sort)
check_group "schemas are valid JSON Schema 2020-12" --check-metaschema -- "${schema_files[@]}"

# 2 and 3. fixtures and goldens against their topic schema
"$venv/bin/python" scripts/check_schemas.py localize "$work/schemas"
for topic in payments feeds; do
    mapfile -t valid < <("$venv/bin/python" - "$fixtures/expectations.json" "$topic" <<'EOF'
import json, sys
for r in json.load(open(sys.argv[1])):
    if r["topic"] == sys.argv[2] and r["outcome"] in ("decoded", "unknown"):
        print(r["file"])
EOF
)
    files=() goldens=()
    for f in "${valid[@]}"; do
        files+=("$fixtures/$f")
        [ ! -e "$fixtures/golden/$f" ] || goldens+=("$fixtures/golden/$f")
    done
    check_group "$topic fixtures validate against Schemas/$topic.json" --schemafile "$work/schemas/$topic.json" -- "${files[@]}"
    check_group "$topic goldens validate against Schemas/$topic.json" --schemafile "$work/schemas/$topic.json" -- "${goldens[@]}"
done

# 4. the rest (see scripts/check_schemas.py)
set +e
"$venv/bin/python" scripts/check_schemas.py check >"$work/py" 2>&1
rc=$?
set -e
grep '^FAIL' "$work/py" | sed 's/^/    /' >&2 || true
result=$(grep '^RESULT ' "$work/py" || true)
if [[ $result =~ ^RESULT\ passed=([0-9]+)\ failed=([0-9]+)$ ]]; then
    passed=$((passed + BASH_REMATCH[1]))
    failed=$((failed + BASH_REMATCH[2]))
    echo "ok   check_schemas.py: ${BASH_REMATCH[1]} passed, ${BASH_REMATCH[2]} failed"
    [ "$rc" -eq 0 ] || [ "${BASH_REMATCH[2]}" -gt 0 ] || fail "check_schemas.py exited $rc"
else
    cat "$work/py" >&2
    fail "check_schemas.py did not finish (exit $rc)"
fi

# 5. schema evolution against the last release
bin=${SWITCHYARD_BIN:-.build/debug/switchyard}
if [ ! -x "$bin" ]; then
    fail "schema check: $bin is missing (swift build first)"
elif "$bin" schema check Schemas/baseline Schemas >"$work/schema" 2>&1; then
    pass
    echo "ok   schema check Schemas/baseline Schemas: $(tail -n 1 "$work/schema")"
else
    fail "schema check Schemas/baseline Schemas (exit $?)"
    sed 's/^/    /' "$work/schema" >&2
fi

echo "contract: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
