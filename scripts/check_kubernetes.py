#!/usr/bin/env python3
"""Checks of rendered Kubernetes manifests (`kubectl kustomize DIR` output) that no schema can make:
that the pieces agree with each other, with the worker's config and with the Dockerfile.

    check_kubernetes.py split RENDERED OUTDIR
        writes each document to OUTDIR/<kind>-<name>.yaml (for per-kind schema validation)
    check_kubernetes.py check RENDERED --config-example FILE [--production]
        the cross-checks below; prints `ok`/`FAIL` lines and `RESULT passed=N failed=M`

What `check` asserts:
  - the ConfigMap's config.json is byte-identical to the config example it is copied from, and
    validates against config/switchyard.schema.json;
  - the Deployment runs `consume --config <mounted path>/config.json` (the Dockerfile's CMD), from
    a volume of that generated ConfigMap; the container port named `metrics` is the config's
    metrics.port; liveness is GET /healthz and readiness GET /readyz on that port;
  - terminationGracePeriodSeconds exceeds shutdownTimeoutSeconds by at least 5 s;
  - pod and container security settings (numeric non-root uid equal to the Dockerfile's USER,
    read-only root filesystem, no privilege escalation, all capabilities dropped), resources set;
  - every ${NAME} in the config's kafka map is an env var of the container, from a secretKeyRef;
    every file the config names (*.location, ${file:...}) lies under a mounted volume;
  - the Service, PodDisruptionBudget and ServiceMonitor select the pods, by the `metrics` port;
  - the ScaledObject targets the Deployment, uses the config's brokers, group and a configured
    topic, SASL/TLS matching the config's security.protocol and sasl.mechanism, an existing
    TriggerAuthentication, and 1 <= min <= Deployment replicas <= max <= partitions per topic;
  - no Secret is rendered (credentials are never part of the kustomization);
  - with --production: the image is pinned to a registry and a tag other than latest/dev.
"""
import argparse
import json
import os
import re
import sys

import jsonschema
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# PRODUCT/deployment fact: payments and feeds have 6 partitions each.
PARTITIONS_PER_TOPIC = 6

passed = failed = 0


def check(ok, label, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok   {label}")
    else:
        failed += 1
        print(f"FAIL {label}{': ' + str(detail) if detail != '' else ''}")
    return ok


def load(path):
    with open(path, encoding="utf-8") as f:
        return [d for d in yaml.safe_load_all(f) if d]


def split(rendered, outdir):
    os.makedirs(outdir, exist_ok=True)
    for doc in load(rendered):
        name = f"{doc['kind'].lower()}-{doc['metadata']['name']}.yaml"
        with open(os.path.join(outdir, name), "w", encoding="utf-8") as f:
            yaml.safe_dump(doc, f, sort_keys=False)
        print(os.path.join(outdir, name))


def one(docs, kind):
    found = [d for d in docs if d["kind"] == kind]
    check(len(found) == 1, f"exactly one {kind}", len(found))
    return found[0] if found else {}


def selects(selector, labels):
    return bool(selector) and all(labels.get(k) == v for k, v in selector.items())


def dockerfile_user_and_cmd():
    user, cmd = None, None
    for line in open(os.path.join(ROOT, "deploy", "Dockerfile"), encoding="utf-8"):
        if line.startswith("USER "):
            user = line.split()[1].split(":")[0]
        if line.startswith("CMD "):
            cmd = json.loads(line[4:])
    return user, cmd


def cross_check(rendered, example, production):
    docs = load(rendered)
    kinds = sorted(d["kind"] for d in docs)
    print(f"     rendered: {', '.join(kinds)}")
    check("Secret" not in kinds, "no Secret in the rendered manifests")

    cm = one(docs, "ConfigMap")
    raw = cm.get("data", {}).get("config.json", "")
    check(raw == open(example, encoding="utf-8").read(), f"ConfigMap config.json is identical to {os.path.relpath(example, ROOT)}")
    config = json.loads(raw) if raw else {}
    schema = json.load(open(os.path.join(ROOT, "config", "switchyard.schema.json")))
    errors = [e.message for e in jsonschema.Draft202012Validator(schema).iter_errors(config)]
    check(not errors, "ConfigMap config.json validates against config/switchyard.schema.json", "; ".join(errors))

    dep = one(docs, "Deployment")
    spec = dep.get("spec", {})
    pod = spec.get("template", {}).get("spec", {})
    pod_labels = spec.get("template", {}).get("metadata", {}).get("labels", {})
    check(selects(spec.get("selector", {}).get("matchLabels"), pod_labels), "Deployment selector matches its pod labels")
    containers = pod.get("containers", [])
    check(len(containers) == 1, "one container", len(containers))
    c = containers[0] if containers else {}

    mounts = {m["name"]: m["mountPath"] for m in c.get("volumeMounts", [])}
    volumes = {v["name"]: v for v in pod.get("volumes", [])}
    cfg_volumes = [n for n, v in volumes.items() if v.get("configMap", {}).get("name") == cm.get("metadata", {}).get("name")]
    check(len(cfg_volumes) == 1 and cfg_volumes[0] in mounts, "the generated ConfigMap is a mounted volume", cfg_volumes)
    config_path = os.path.join(mounts.get(cfg_volumes[0], "?") if cfg_volumes else "?", "config.json")
    user, cmd = dockerfile_user_and_cmd()
    args = c.get("args") or []
    check(args == ["consume", "--config", config_path], f"container args are consume --config {config_path}", args)
    check(args == cmd, "container args equal the Dockerfile CMD", cmd)
    check("command" not in c, "container keeps the image ENTRYPOINT (no command override)")

    port = config.get("metrics", {}).get("port", 9464)
    ports = {p.get("name"): p.get("containerPort") for p in c.get("ports", [])}
    check(ports.get("metrics") == port, f"container port `metrics` is config metrics.port {port}", ports)
    for probe, path in (("livenessProbe", "/healthz"), ("readinessProbe", "/readyz")):
        get = c.get(probe, {}).get("httpGet", {})
        check(get.get("path") == path and get.get("port") in ("metrics", port), f"{probe} is GET {path} on the metrics port", get)
    if "startupProbe" in c:
        check(c["startupProbe"].get("httpGet", {}).get("path") == "/healthz", "startupProbe is GET /healthz")

    grace = pod.get("terminationGracePeriodSeconds", 30)
    shutdown = config.get("shutdownTimeoutSeconds", 25)
    check(grace >= shutdown + 5, f"terminationGracePeriodSeconds {grace} >= shutdownTimeoutSeconds {shutdown} + 5")

    psc, csc = pod.get("securityContext", {}), c.get("securityContext", {})
    uid = csc.get("runAsUser", psc.get("runAsUser"))
    check(psc.get("runAsNonRoot") is True or csc.get("runAsNonRoot") is True, "runAsNonRoot")
    check(str(uid) == user, f"runAsUser {uid} is the Dockerfile USER {user}")
    check(csc.get("readOnlyRootFilesystem") is True, "readOnlyRootFilesystem")
    check(csc.get("allowPrivilegeEscalation") is False, "allowPrivilegeEscalation false")
    check("ALL" in csc.get("capabilities", {}).get("drop", []), "capabilities drop ALL")
    res = c.get("resources", {})
    check(all(res.get(k, {}).get(r) for k in ("requests", "limits") for r in ("cpu", "memory")), "cpu and memory requests and limits set", res)
    anti = pod.get("affinity", {}).get("podAntiAffinity", {}).get("preferredDuringSchedulingIgnoredDuringExecution", [])
    check(any(t["podAffinityTerm"]["topologyKey"] == "kubernetes.io/hostname"
              and selects(t["podAffinityTerm"].get("labelSelector", {}).get("matchLabels"), pod_labels) for t in anti),
          "preferred pod anti-affinity by hostname")

    env = {e["name"]: e.get("valueFrom", {}).get("secretKeyRef") for e in c.get("env", [])}
    kafka = config.get("kafka", {})
    refs = sorted({m for v in kafka.values() for m in re.findall(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}", v)})
    for name in refs:
        check(bool(env.get(name)), f"${{{name}}} in the config is an env var from a Secret", env.get(name))
    secrets_used = {ref["name"] for ref in env.values() if ref}
    for key, value in kafka.items():
        if re.search(r"(password|secret)", key):
            check(re.fullmatch(r"\$\{.+\}", value) is not None, f"kafka.{key} is a ${{...}} reference, not a literal")
    files = [v for k, v in kafka.items() if k.endswith(".location")]
    files += [m for v in kafka.values() for m in re.findall(r"\$\{file:([^}]+)\}", v)]
    for path in files:
        under = [n for n, m in mounts.items() if path.startswith(m.rstrip("/") + "/")]
        check(bool(under), f"{path} (named in the config) is under a mounted volume", mounts)
        for n in under:
            if "secret" in volumes.get(n, {}):
                secrets_used.add(volumes[n]["secret"]["secretName"])

    svc = one(docs, "Service")
    svc_ports = {p.get("name"): p for p in svc.get("spec", {}).get("ports", [])}
    check(selects(svc.get("spec", {}).get("selector"), pod_labels), "Service selects the pods")
    check("metrics" in svc_ports and svc_ports["metrics"].get("targetPort") in ("metrics", port), "Service port `metrics` targets the container's metrics port")
    sm = one(docs, "ServiceMonitor")
    sm_spec = sm.get("spec", {})
    check(selects(sm_spec.get("selector", {}).get("matchLabels"), svc.get("metadata", {}).get("labels", {})), "ServiceMonitor selects the Service")
    eps = sm_spec.get("endpoints", [])
    check(any(e.get("port") == "metrics" and e.get("path", "/metrics") == "/metrics" for e in eps), "ServiceMonitor scrapes port `metrics` at /metrics")
    pdb = one(docs, "PodDisruptionBudget")
    check(selects(pdb.get("spec", {}).get("selector", {}).get("matchLabels"), pod_labels), "PodDisruptionBudget selects the pods")
    check(pdb.get("spec", {}).get("maxUnavailable") == 1, "PodDisruptionBudget maxUnavailable 1")

    so = one(docs, "ScaledObject")
    so_spec = so.get("spec", {})
    target = so_spec.get("scaleTargetRef", {})
    check(target.get("name") == dep.get("metadata", {}).get("name") and target.get("kind", "Deployment") == "Deployment",
          "ScaledObject targets the Deployment", target)
    lo, hi, replicas = so_spec.get("minReplicaCount", 0), so_spec.get("maxReplicaCount", 100), spec.get("replicas", 1)
    check(1 <= lo <= replicas <= hi <= PARTITIONS_PER_TOPIC,
          f"1 <= minReplicaCount {lo} <= replicas {replicas} <= maxReplicaCount {hi} <= partitions per topic {PARTITIONS_PER_TOPIC}")
    auths = {d["metadata"]["name"]: d for d in docs if d["kind"] == "TriggerAuthentication"}
    # librdkafka sasl.mechanism -> KEDA kafka scaler `sasl`
    keda_sasl = {"PLAIN": "plaintext", "SCRAM-SHA-256": "scram_sha256", "SCRAM-SHA-512": "scram_sha512",
                 "GSSAPI": "gssapi", "OAUTHBEARER": "oauthbearer"}
    mechanism = keda_sasl.get(kafka.get("sasl.mechanism", "GSSAPI").upper(), "?")
    protocol = kafka.get("security.protocol", "PLAINTEXT").upper()
    for trig in so_spec.get("triggers", []):
        if trig.get("type") != "kafka":
            continue
        md = trig.get("metadata", {})
        check(md.get("bootstrapServers") == config.get("brokers"), "kafka trigger bootstrapServers equal the config's brokers",
              f"{md.get('bootstrapServers')} != {config.get('brokers')}")
        check(md.get("consumerGroup") == config.get("groupId"), "kafka trigger consumerGroup is the config's groupId")
        check(md.get("topic") in config.get("topics", {}), f"kafka trigger topic {md.get('topic')} is a configured topic")
        check(md.get("sasl", "none") == (mechanism if protocol.startswith("SASL") else "none"),
              f"kafka trigger sasl {md.get('sasl')} matches security.protocol {protocol} / sasl.mechanism {kafka.get('sasl.mechanism', '-')}")
        check((md.get("tls") == "enable") == protocol.endswith("SSL"), f"kafka trigger tls {md.get('tls')} matches security.protocol {protocol}")
        auth = auths.get(trig.get("authenticationRef", {}).get("name"))
        check(auth is not None, "kafka trigger's authenticationRef names a TriggerAuthentication in the manifests")
        params = {r["parameter"]: r for r in (auth or {}).get("spec", {}).get("secretTargetRef", [])}
        if protocol.startswith("SASL"):
            check({"username", "password"} <= set(params), "TriggerAuthentication supplies username and password", sorted(params))
        for p, r in params.items():
            check(r["name"] in secrets_used, f"TriggerAuthentication {p} comes from a Secret the worker uses too ({r['name']})", sorted(secrets_used))

    if production:
        image = c.get("image", "")
        name, _, tag = image.rpartition(":")
        check("/" in name and tag not in ("", "latest", "dev"), f"production image is pinned: {image}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("split")
    s.add_argument("rendered")
    s.add_argument("outdir")
    c = sub.add_parser("check")
    c.add_argument("rendered")
    c.add_argument("--config-example", required=True)
    c.add_argument("--production", action="store_true")
    args = ap.parse_args()
    if args.cmd == "split":
        split(args.rendered, args.outdir)
        return 0
    cross_check(args.rendered, args.config_example, args.production)
    print(f"RESULT passed={passed} failed={failed}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
