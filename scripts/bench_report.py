#!/usr/bin/env python3
"""Turns bench.sh's raw measurements into the table and .build/bench/results.json (the decode targets)."""

import json
import platform
import subprocess
import sys


def main():
    raw_path, results_path = sys.argv[1], sys.argv[2]
    measured = [json.loads(line) for line in open(raw_path) if line.strip()]
    # One row per peer, workload and topic: the best round (bench.sh runs several, alternating processes).
    best = {}
    for r in measured:
        key = (r["peer"], r["workload"], r["topic"])
        r["rounds"] = best[key]["rounds"] + 1 if key in best else 1
        if key not in best or r["eventsPerSecond"] > best[key]["eventsPerSecond"]:
            best[key] = r
        else:
            best[key]["rounds"] = r["rounds"]
    rows = list(best.values())

    def rate(peer, workload, topic):
        for r in rows:
            if r["peer"] == peer and r["workload"] == workload and r["topic"] == topic:
                return r["eventsPerSecond"]
        return None

    targets = []
    for topic in ("payments", "feeds"):
        ms_decode = rate("msgspec", "decode", topic)
        ms_round = rate("msgspec", "decode+encode", topic)
        sy_decode = rate("switchyard", "decode", topic)
        sy_round = rate("switchyard", "decode+encode", topic)
        foundation = rate("foundation", "decode", topic)
        replay = next((r for r in rows if r["peer"].startswith("switchyard replay") and r["topic"] == topic), None)
        targets += [
            (topic, "decode >= 1.0x msgspec decode", sy_decode / ms_decode, 1.0, "x"),
            (topic, "round trip >= 1.0x msgspec decode+encode", sy_round / ms_round, 1.0, "x"),
            (topic, "decode >= 10x Foundation", sy_decode / foundation, 10.0, "x"),
        ]
        if replay:
            targets += [
                (topic, "replay end to end >= 400k records/s", replay["eventsPerSecond"], 400_000, "/s"),
                (topic, "replay peak memory < 100 MiB", replay["maxRSSKiB"] / 1024, 100, "MiB"),
            ]

    # The bench's commerce catalog: what teams' schemas carry beyond the shipped ones.
    ms_decode = rate("msgspec", "decode", "commerce")
    ms_round = rate("msgspec", "decode+encode", "commerce")
    sy_decode = rate("switchyard", "decode", "commerce")
    sy_round = rate("switchyard", "decode+encode", "commerce")
    if ms_decode and sy_decode and ms_round and sy_round:
        targets += [
            ("commerce", "decode >= 1.5x msgspec decode", sy_decode / ms_decode, 1.5, "x"),
            ("commerce", "round trip >= 1.5x msgspec decode+encode", sy_round / ms_round, 1.5, "x"),
        ]

    print()
    print(f"{'topic':<9} {'peer':<26} {'workload':<14} {'events/s':>12} {'vs msgspec decode':>18}")
    print("-" * 83)
    for r in rows:
        base = rate("msgspec", "decode", r["topic"])
        ratio = r["eventsPerSecond"] / base if base else float("nan")
        print(f"{r['topic']:<9} {r['peer']:<26} {r['workload']:<14} {r['eventsPerSecond']:>12,.0f} {ratio:>17.2f}x")
    print()
    print(f"{'topic':<9} {'target':<44} {'measured':>12}  result")
    print("-" * 75)
    results = []
    for topic, name, value, bound, unit in targets:
        ok = value < bound if "memory" in name else value >= bound
        shown = f"{value:,.0f}{unit}" if unit == "/s" else f"{value:.2f}{unit}" if unit == "x" else f"{value:.1f} {unit}"
        print(f"{topic:<9} {name:<44} {shown:>12}  {'PASS' if ok else 'FAIL'}")
        results.append({"topic": topic, "target": name, "value": value, "bound": bound, "pass": ok})

    try:
        cpu = next(l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name"))
    except (OSError, StopIteration):
        cpu = platform.processor()
    try:
        swift = subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    except (OSError, IndexError):
        swift = "unknown"
    with open(results_path, "w") as f:
        json.dump({"machine": {"cpu": cpu, "python": platform.python_version(), "swift": swift},
                   "measurements": rows, "allRounds": measured, "targets": results}, f, indent=2)
    print(f"\nresults: {results_path}")


if __name__ == "__main__":
    main()
