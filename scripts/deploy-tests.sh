#!/usr/bin/env bash
# Offline validation of the deployment files (config schema and examples, Dockerfile, Kubernetes
# manifests, Prometheus rules, Grafana dashboard). No Docker engine, cluster or network is used;
# what each step can and cannot prove is said beside it.
#
#   1. config: config/switchyard.schema.json is valid JSON Schema 2020-12; every example in
#      config/examples validates against it (check-jsonschema); known-bad configs are rejected;
#      the copies kustomize carries are identical to their examples.
#   2. Dockerfile: scripts/check_dockerfile.py (static: stages, packages, user, entrypoint).
#      DEPLOY_BINARY=path also checks that binary's shared libraries (ldd) against the runtime stage.
#   3. Kubernetes, for the base and each overlay: `kubectl kustomize` renders it (kustomize v5 built
#      into kubectl; without kubectl the base's files are validated one by one and the overlays are
#      skipped); kubernetes-validate --strict checks built-in kinds against the Kubernetes OpenAPI
#      schemas it ships (for each of K8S_VERSIONS); the custom resources (ServiceMonitor,
#      ScaledObject, TriggerAuthentication) are checked with check-jsonschema against the
#      hand-written subsets in deploy/schemas/; scripts/check_kubernetes.py cross-checks the pieces
#      (config <-> Deployment <-> Service <-> ServiceMonitor <-> KEDA <-> Dockerfile). A mutated
#      manifest must be rejected, so that a validator that silently accepts everything fails here.
#   4. Prometheus: promtool check rules and promtool test rules.
#   5. scripts/check_observability.py: alert and dashboard expressions use only PRODUCT.md's
#      metrics and labels, dashboard structure, PromQL syntax (promtool), runbook anchors.
# Needs .venv (scripts/install-deps.sh) and promtool (Debian package prometheus).
# Last line: `deploy: N passed, M failed`; exit 1 if M > 0.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=.venv
for tool in "$venv/bin/check-jsonschema" "$venv/bin/kubernetes-validate"; do
    if [ ! -x "$tool" ]; then
        echo "deploy-tests: $tool is missing; run scripts/install-deps.sh" >&2
        exit 69
    fi
done
if ! command -v promtool >/dev/null 2>&1; then
    echo "deploy-tests: promtool is missing (apt-get install prometheus; scripts/install-deps.sh)" >&2
    exit 69
fi
# Offline: any HTTP(S) request goes to a dead proxy and fails instead of leaving the machine.
export HTTP_PROXY=http://127.0.0.1:9 HTTPS_PROXY=http://127.0.0.1:9 http_proxy=http://127.0.0.1:9 https_proxy=http://127.0.0.1:9
unset NO_PROXY no_proxy || true
export XDG_CACHE_HOME="${TMPDIR:-/tmp}/switchyard-deploy-cache.$$"
K8S_VERSIONS=${K8S_VERSIONS:-"1.30.0 1.37.0"}
CRD_KINDS="ServiceMonitor ScaledObject TriggerAuthentication"

work=$(mktemp -d)
trap 'rm -rf "$work" "$XDG_CACHE_HOME"' EXIT

passed=0
failed=0
skipped=0
pass() { passed=$((passed + 1)); echo "ok   $1"; }
fail() { failed=$((failed + 1)); echo "FAIL $1" >&2; }
skip() { skipped=$((skipped + 1)); echo "skip $1"; }

# run LABEL CMD...: one check; the command's output is shown only when it fails.
run() {
    local label=$1; shift
    if "$@" >"$work/out" 2>&1; then pass "$label"; else fail "$label"; sed 's/^/    /' "$work/out" >&2; fi
}
# reject LABEL CMD...: one check that the command fails (a validator rejecting bad input).
reject() {
    local label=$1; shift
    if "$@" >"$work/out" 2>&1; then fail "$label (was accepted)"; else pass "$label"; fi
}
# pyresult LABEL CMD...: a python checker ending in `RESULT passed=N failed=M`; counts its checks.
pyresult() {
    local label=$1; shift
    set +e
    "$@" >"$work/py" 2>&1
    local rc=$?
    set -e
    grep '^FAIL' "$work/py" | sed 's/^/    /' >&2 || true
    local result
    result=$(grep '^RESULT ' "$work/py" || true)
    if [[ $result =~ ^RESULT\ passed=([0-9]+)\ failed=([0-9]+)$ ]]; then
        passed=$((passed + BASH_REMATCH[1]))
        failed=$((failed + BASH_REMATCH[2]))
        echo "ok   $label: ${BASH_REMATCH[1]} passed, ${BASH_REMATCH[2]} failed"
        grep '^skip' "$work/py" || true
        [ "$rc" -eq 0 ] || [ "${BASH_REMATCH[2]}" -gt 0 ] || fail "$label exited $rc"
    else
        sed 's/^/    /' "$work/py" >&2
        fail "$label did not finish (exit $rc)"
    fi
}
cjs() { "$venv/bin/check-jsonschema" --no-cache "$@"; }
kv() { "$venv/bin/kubernetes-validate" --strict "$@"; }

# ---- 1. config -----------------------------------------------------------------------------------
schema=config/switchyard.schema.json
run "config schema is valid JSON Schema 2020-12" cjs --check-metaschema "$schema"
for f in config/examples/*.json; do
    run "$f validates against $schema" cjs --schemafile "$schema" "$f"
done
# Known-bad configs, each one mistake away from local.json, must be rejected.
mkdir -p "$work/bad"
"$venv/bin/python" - config/examples/local.json "$work/bad" <<'EOF'
import copy, json, sys
base = json.load(open(sys.argv[1]))
def bad(name, mutate):
    c = copy.deepcopy(base); mutate(c)
    json.dump(c, open(f"{sys.argv[2]}/{name}.json", "w"))
bad("unknown-top-level-key", lambda c: c.update(broker="x:9092"))
bad("missing-groupId", lambda c: c.pop("groupId"))
bad("no-topics", lambda c: c.update(topics={}))
bad("unknown-topic-key", lambda c: c["topics"]["feeds"].update(polcy="lenient"))
bad("bad-catalog", lambda c: c["topics"]["feeds"].update(catalog="feeds catalog"))
bad("bad-policy", lambda c: c["topics"]["feeds"].update(policy="Lenient"))
bad("bad-onFailure", lambda c: c["topics"]["feeds"].update(onFailure="skip"))
bad("bad-republishMode", lambda c: c["topics"]["payments"].update(republishMode="raw"))
bad("bad-topic-name", lambda c: c["topics"].update({"pay ments": {"catalog": "payments", "policy": "strict"}}))
bad("metrics-unknown-key", lambda c: c["metrics"].update(path="/metrics"))
bad("metrics-port-range", lambda c: c["metrics"].update(port=70000))
bad("shutdown-timeout-string", lambda c: c.update(shutdownTimeoutSeconds="25"))
bad("kafka-non-string-value", lambda c: c.update(kafka={"socket.timeout.ms": 60000}))
EOF
for f in "$work"/bad/*.json; do
    reject "config with $(basename "$f" .json) is rejected" cjs --schemafile "$schema" "$f"
done
run "deploy/kubernetes/base/config.json is a copy of config/examples/kubernetes.json" \
    cmp config/examples/kubernetes.json deploy/kubernetes/base/config.json
run "deploy/kubernetes/overlays/production/config.json is a copy of config/examples/production.json" \
    cmp config/examples/production.json deploy/kubernetes/overlays/production/config.json

# ---- 2. Dockerfile -------------------------------------------------------------------------------
docker_args=()
[ -z "${DEPLOY_BINARY:-}" ] || docker_args=(--binary "$DEPLOY_BINARY")
pyresult "check_dockerfile.py" "$venv/bin/python" scripts/check_dockerfile.py "${docker_args[@]}"

# ---- 3. Kubernetes -------------------------------------------------------------------------------
# validate_rendered NAME FILE: kubernetes-validate for built-in kinds, check-jsonschema for CRDs.
validate_rendered() {
    local name=$1 file=$2 v
    for v in $K8S_VERSIONS; do
        set +e
        kv -k "$v" "$file" >"$work/kv" 2>&1
        local rc=$?
        set -e
        local ok_count
        ok_count=$(grep -c '^INFO .* passed for resource' "$work/kv" || true)
        local unknown
        unknown=$(grep '^WARN' "$work/kv" | grep -v -E "for kind ($(echo "$CRD_KINDS" | tr ' ' '|')) with" || true)
        if [ "$rc" -eq 0 ] && [ "$ok_count" -gt 0 ] && [ -z "$unknown" ] && ! grep -q -E '^(ERROR|FATAL)' "$work/kv"; then
            pass "$name: $ok_count built-in resources valid (kubernetes-validate --strict, Kubernetes $v)"
        else
            fail "$name: kubernetes-validate --strict, Kubernetes $v"
            sed 's/^/    /' "$work/kv" >&2
        fi
    done
    rm -rf "$work/docs"
    "$venv/bin/python" scripts/check_kubernetes.py split "$file" "$work/docs" >/dev/null
    local kind doc found
    for kind in $CRD_KINDS; do
        found=0
        for doc in "$work/docs/$(echo "$kind" | tr 'A-Z' 'a-z')"-*.yaml; do
            [ -e "$doc" ] || continue
            found=1
            run "$name: $kind $(basename "$doc" .yaml | cut -d- -f2-) matches deploy/schemas/$(echo "$kind" | tr 'A-Z' 'a-z').schema.json" \
                cjs --schemafile "deploy/schemas/$(echo "$kind" | tr 'A-Z' 'a-z').schema.json" "$doc"
        done
        [ "$found" -eq 1 ] || fail "$name: no $kind rendered"
    done
}

for s in deploy/schemas/*.schema.json; do
    run "$s is valid JSON Schema 2020-12" cjs --check-metaschema "$s"
done
run "secret.example.yaml is a valid Secret (kept out of the kustomization)" kv -k 1.30.0 deploy/kubernetes/base/secret.example.yaml
run "secret.example.yaml holds placeholders only" grep -q 'REPLACE_ME' deploy/kubernetes/base/secret.example.yaml

if command -v kubectl >/dev/null 2>&1 && kubectl kustomize --help >/dev/null 2>&1; then
    declare -A example=([base]=config/examples/kubernetes.json [production]=config/examples/production.json)
    for dir in deploy/kubernetes/base deploy/kubernetes/overlays/*/; do
        dir=${dir%/}
        name=$(basename "$dir")
        if ! kubectl kustomize "$dir" >"$work/$name.yaml" 2>"$work/err"; then
            fail "kubectl kustomize $dir"; sed 's/^/    /' "$work/err" >&2; continue
        fi
        pass "kubectl kustomize $dir renders"
        validate_rendered "$name" "$work/$name.yaml"
        prod=()
        [ "$name" = base ] || prod=(--production)
        if [ -n "${example[$name]:-}" ]; then
            pyresult "$name: check_kubernetes.py" "$venv/bin/python" scripts/check_kubernetes.py check "$work/$name.yaml" \
                --config-example "${example[$name]}" "${prod[@]}"
        else
            fail "$name: no config example is known for this overlay (add it to deploy-tests.sh)"
        fi
    done
    # The validators must reject a broken manifest: a misspelt probe field, a KEDA typo.
    sed 's/^\(\s*\)path: \/healthz/\1paht: \/healthz/' "$work/base.yaml" >"$work/bad-deployment.yaml"
    reject "kubernetes-validate --strict rejects a misspelt field (livenessProbe.httpGet.paht)" \
        kv -k 1.30.0 "$work/bad-deployment.yaml"
    sed 's/lagThreshold:/lagThreshhold:/' "$work/docs/scaledobject-switchyard.yaml" >"$work/bad-scaledobject.yaml"
    reject "deploy/schemas rejects a misspelt kafka trigger key (lagThreshhold)" \
        cjs --schemafile deploy/schemas/scaledobject.schema.json "$work/bad-scaledobject.yaml"
else
    # Without kustomize the base's resource files are still complete documents.
    awk 'FNR==1 && NR!=1 {print "---"} {print}' \
        deploy/kubernetes/base/{deployment,service,poddisruptionbudget,servicemonitor,scaledobject,triggerauthentication}.yaml \
        >"$work/base-files.yaml"
    validate_rendered base-files "$work/base-files.yaml"
    skip "kubectl kustomize not available: overlays not rendered, cross-checks (check_kubernetes.py) not run"
fi

# ---- 4. Prometheus -------------------------------------------------------------------------------
run "promtool check rules deploy/prometheus/alerts.yaml" promtool check rules deploy/prometheus/alerts.yaml
run "promtool test rules deploy/prometheus/alerts_test.yaml" promtool test rules deploy/prometheus/alerts_test.yaml

# ---- 5. metrics names, dashboard -------------------------------------------------------------------
pyresult "check_observability.py" "$venv/bin/python" scripts/check_observability.py

if [ "$skipped" -gt 0 ]; then
    echo "deploy: $passed passed, $failed failed, $skipped skipped"
else
    echo "deploy: $passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
