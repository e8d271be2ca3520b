#!/usr/bin/env python3
"""Checks the alert rules and the Grafana dashboard against PRODUCT.md's metric list.

- PRODUCT.md's "Metrics" section is parsed for metric names, their labels and which are histograms.
- Every PromQL expression (each alert's expr, each dashboard target's expr) may use only those
  metrics (a histogram through _bucket/_sum/_count) and Prometheus' own `up`; every label it names
  in a matcher or in by/without must be one of those metrics' labels or a target label that
  Prometheus adds (instance, job, namespace, pod, service, container, endpoint), `le` for a
  histogram.
- The dashboard: valid JSON, schemaVersion, unique panel ids, panels inside the 24-column grid and
  not overlapping, a `topic` template variable that every selector of a metric with a topic label
  uses, and every expr parses: they are written, with Grafana's variables replaced, into a
  temporary rules file that `promtool check rules` parses (PromQL syntax, not data).
- The alerts: severity page or warning; summary, description and a runbook_url whose #anchor is a
  heading of deploy/README.md under "## Alerts"; every alert in alerts_test.yaml with at least one
  case where it fires and one where it does not.

Prints `ok`/`FAIL` lines and `RESULT passed=N failed=M`; exit 1 if M > 0.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGET_LABELS = {"instance", "job", "namespace", "pod", "service", "container", "endpoint"}
PROMQL_WORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "bool", "and", "or", "unless",
                "offset", "inf", "nan"}

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


def product_md():
    for path in (os.environ.get("SWITCHYARD_PRODUCT_MD", ""), os.path.join(ROOT, "PRODUCT.md"),
                 os.path.join(ROOT, "..", "shared", "PRODUCT.md")):
        if path and os.path.isfile(path):
            return path
    return None


def product_metrics(path):
    """{name: (labels, is_histogram)} from the `## Metrics` section."""
    text = open(path, encoding="utf-8").read()
    m = re.search(r"^## Metrics.*?$(.*?)^## ", text, re.S | re.M)
    section = m.group(1) if m else ""
    metrics = {}
    for name, labels, note in re.findall(r"`(switchyard_[a-z0-9_]+)(?:\{([a-z_,]*)\})?`(?:\s*\((\w+)\))?", section):
        metrics[name] = (set(filter(None, labels.split(","))), note == "histogram")
    return metrics


def strip_strings(expr):
    return re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)


def analyse(expr, metrics):
    """(metric names used, unknown names, label problems) for one PromQL expression."""
    e = strip_strings(expr)
    grouping = []
    for clause in re.findall(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)", e):
        grouping += [l.strip() for l in clause.split(",") if l.strip()]
    e2 = re.sub(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", e)
    selectors = re.findall(r"([a-zA-Z_:][a-zA-Z0-9_:]*)?\s*\{([^}]*)\}", e2)
    e3 = re.sub(r"\{[^}]*\}", " ", e2)
    e3 = re.sub(r"\[[^\]]*\]", " ", e3)  # range and subquery durations
    names = set()
    for token, nxt in re.findall(r"(?<![\w.])([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(\(?)", e3):
        if nxt or token.lower() in PROMQL_WORDS or re.fullmatch(r"\d+[smhdwy]", token):
            continue
        names.add(token)
    known, unknown, label_problems = set(), set(), []
    labels_allowed = set(TARGET_LABELS)
    for n in names:
        base = re.sub(r"_(bucket|sum|count)$", "", n)
        if n == "up":
            known.add(n)
        elif n in metrics and not metrics[n][1]:
            known.add(n)
            labels_allowed |= metrics[n][0]
        elif base in metrics and metrics[base][1] and n != base:
            known.add(n)
            labels_allowed |= metrics[base][0] | ({"le"} if n.endswith("_bucket") else set())
        else:
            unknown.add(n)
    for _, matchers in selectors:
        for label in re.findall(r"([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)", matchers):
            if label != "__name__" and label not in labels_allowed:
                label_problems.append(label)
    label_problems += [l for l in grouping if l not in labels_allowed]
    return known, unknown, label_problems, selectors


def check_exprs(where, exprs, metrics, used):
    for title, expr in exprs:
        known, unknown, bad_labels, _ = analyse(expr, metrics)
        used |= known
        check(not unknown and known, f"{where} {title}: metrics {sorted(known)} are in PRODUCT.md", sorted(unknown) or "no metric")
        check(not bad_labels, f"{where} {title}: labels exist on those metrics", bad_labels)


def promtool_parses(label, exprs):
    rules = {"groups": [{"name": "parse", "rules": [{"record": f"check:expr_{i}", "expr": e} for i, (_, e) in enumerate(exprs)]}]}
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        yaml.safe_dump(rules, f)
    try:
        r = subprocess.run(["promtool", "check", "rules", f.name], capture_output=True, text=True)
    finally:
        os.unlink(f.name)
    check(r.returncode == 0, f"{label}: promtool parses all {len(exprs)} expressions", (r.stdout + r.stderr).strip())


def grafana_to_promql(expr):
    expr = expr.replace("$__rate_interval", "5m").replace("$__interval", "1m").replace("$__range", "1h")
    return re.sub(r"\$\{?(\w+)(?::\w+)?\}?", ".*", expr)


def readme_anchors(path):
    """GitHub-style anchors of the headings under `## Alerts`, and whether that section exists."""
    text = open(path, encoding="utf-8").read() if os.path.exists(path) else ""
    m = re.search(r"^## Alerts\s*$(.*?)(?=^## |\Z)", text, re.S | re.M)
    if not m:
        return None
    anchors = set()
    for heading in re.findall(r"^#{3,6}\s+(.+?)\s*$", m.group(1), re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        anchors.add(slug)
    return anchors


def main():
    path = product_md()
    if not check(path is not None, "PRODUCT.md found (SWITCHYARD_PRODUCT_MD, ./PRODUCT.md or ../shared/PRODUCT.md)"):
        return
    metrics = product_metrics(path)
    check(len(metrics) >= 12 and any(h for _, h in metrics.values()),
          f"PRODUCT.md lists {len(metrics)} metrics", sorted(metrics))
    used = set()

    # ---- alerts
    rules_path = os.path.join(ROOT, "deploy", "prometheus", "alerts.yaml")
    rules = [r for g in yaml.safe_load(open(rules_path))["groups"] for r in g["rules"] if "alert" in r]
    check_exprs("alert", [(r["alert"], r["expr"]) for r in rules], metrics, used)
    anchors = readme_anchors(os.path.join(ROOT, "deploy", "README.md"))
    check(anchors is not None, "deploy/README.md has an `## Alerts` section")
    for r in rules:
        ann, labels = r.get("annotations", {}), r.get("labels", {})
        check(labels.get("severity") in ("page", "warning"), f"alert {r['alert']}: severity page or warning", labels)
        check(all(ann.get(k) for k in ("summary", "description", "runbook_url")), f"alert {r['alert']}: summary, description, runbook_url")
        anchor = ann.get("runbook_url", "").partition("#")[2]
        check(anchors is not None and anchor in anchors, f"alert {r['alert']}: runbook anchor #{anchor} is a heading under README ## Alerts",
              sorted(anchors or []))
    tests = yaml.safe_load(open(os.path.join(ROOT, "deploy", "prometheus", "alerts_test.yaml")))["tests"]
    cases = [c for t in tests for c in t.get("alert_rule_test", [])]
    for r in rules:
        mine = [c for c in cases if c["alertname"] == r["alert"]]
        check(any(c.get("exp_alerts") for c in mine) and any(not c.get("exp_alerts") for c in mine),
              f"alert {r['alert']}: unit-tested firing and not firing")

    # ---- dashboard
    dash_path = os.path.join(ROOT, "deploy", "grafana", "switchyard-dashboard.json")
    try:
        dash = json.load(open(dash_path, encoding="utf-8"))
        check(True, "dashboard is valid JSON")
    except (OSError, json.JSONDecodeError) as e:
        check(False, "dashboard is valid JSON", e)
        return
    check(isinstance(dash.get("schemaVersion"), int) and dash["schemaVersion"] >= 36, f"schemaVersion {dash.get('schemaVersion')}")
    check(bool(dash.get("uid")) and bool(dash.get("title")), "dashboard has uid and title")
    variables = {v["name"]: v for v in dash.get("templating", {}).get("list", [])}
    check("topic" in variables and variables["topic"].get("multi") and variables["topic"].get("includeAll"),
          "template variable `topic` (multi, with All)")
    panels = dash.get("panels", [])
    panels = panels + [p for row in panels for p in row.get("panels", [])]
    ids = [p.get("id") for p in panels]
    check(len(ids) == len(set(ids)) and None not in ids, "panel ids are unique")
    boxes = []
    for p in panels:
        g = p.get("gridPos", {})
        ok = all(isinstance(g.get(k), int) for k in "xywh") and g["x"] + g["w"] <= 24
        check(ok, f"panel {p.get('title')!r}: gridPos inside the 24-column grid", g)
        if ok:
            for q, h in boxes:
                if g["x"] < h["x"] + h["w"] and h["x"] < g["x"] + g["w"] and g["y"] < h["y"] + h["h"] and h["y"] < g["y"] + g["h"]:
                    check(False, f"panel {p.get('title')!r} does not overlap {q!r}")
            boxes.append((p.get("title"), g))
    exprs = [(repr(p.get("title")), t["expr"]) for p in panels for t in p.get("targets", []) if t.get("expr")]
    check(len(exprs) >= 8, f"dashboard has {len(exprs)} queries")
    check_exprs("panel", exprs, metrics, used)
    for title, expr in exprs:
        selectors = re.findall(r"([a-zA-Z_:][a-zA-Z0-9_:]*)\s*\{([^}]*)\}", expr)
        for name, matchers in selectors + [(n, "") for n in re.findall(r"\b(switchyard_\w+)\b(?!\s*\{)", strip_strings(expr))]:
            base = re.sub(r"_(bucket|sum|count)$", "", name or "")
            if base in metrics and "topic" in metrics[base][0]:
                check('topic=~"$topic"' in matchers.replace(" ", ""), f"panel {title}: {name} is filtered by $topic")
    promtool_parses("dashboard", [(t, grafana_to_promql(e)) for t, e in exprs])

    check(set(re.sub(r"_(bucket|sum|count)$", "", m) for m in used) >= set(metrics),
          "every PRODUCT.md metric is shown or alerted on", sorted(set(metrics) - used))


if __name__ == "__main__":
    main()
    print(f"RESULT passed={passed} failed={failed}")
    sys.exit(1 if failed else 0)
