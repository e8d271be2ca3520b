#!/usr/bin/env python3
"""The code generator's conformance corpus: every schema in Tests/CodegenConformance/cases is generated;
what the generator accepts must compile (warnings are errors) and decode, fail and re-encode its records
as its `.records` file says; what it refuses must be refused with the error its `x-conformance` names.

A case is `cases/NAME.json` (a catalog schema, `$defs` inside) or `cases/NAME/catalog.json` (with files
beside it), and optionally `cases/NAME.records` and `cases/NAME.swift`: checks of the generated API compiled
into the checker, `func checkCamelName(_ records: [[UInt8]]) -> [String]` (the records' bytes in order; the
failures). The catalog schema's `x-conformance` annotation says
`policy` (default strict), `validateFormats` (default false) and, for a schema the generator must refuse, `refused`: the texts its error
must contain.

Usage: scripts/codegen_conformance.py [NAME …]   (default: every case)
Last line: `conformance: N passed, M failed`; exit 1 on any failure.
"""
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASES = os.path.join(ROOT, "Tests", "CodegenConformance", "cases")
CHECKER = os.path.join(ROOT, "Tests", "CodegenConformance", "Checker", "Checker.swift")
WORK = os.path.join(ROOT, ".build", "conformance")
SWIFT = os.environ.get("SWIFT", "swift")


def camel(name):
    return "".join(w[:1].upper() + w[1:] for w in re.split(r"[^A-Za-z0-9]+", name) if w)


def cases(selected):
    found = []
    for entry in sorted(os.listdir(CASES)):
        path = os.path.join(CASES, entry)
        if entry.endswith(".json"):
            found.append((entry[:-5], path))
        elif os.path.isdir(path) and os.path.exists(os.path.join(path, "catalog.json")):
            found.append((entry, os.path.join(path, "catalog.json")))
    return [c for c in found if not selected or c[0] in selected]


def main():
    selected = set(sys.argv[1:])
    flags = ["-Xswiftc", "-warnings-as-errors"] if os.environ.get("CI") else []
    subprocess.run([SWIFT, "build", "--product", "switchyard-codegen"], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    bin_path = subprocess.run([SWIFT, "build", "--show-bin-path"], cwd=ROOT, check=True, capture_output=True, text=True).stdout.strip()
    codegen = os.path.join(bin_path, "switchyard-codegen")

    sources = os.path.join(WORK, "package", "Sources")
    subprocess.run(["rm", "-rf", sources, os.path.join(WORK, "configs")], check=True)
    passed, failed = 0, 0
    accepted = []
    for name, schema in cases(selected):
        with open(schema, encoding="utf-8") as f:
            spec = json.load(f).get("x-conformance", {})
        module = "C" + camel(name)
        config_dir = os.path.join(WORK, "configs", name)
        os.makedirs(config_dir)
        config = os.path.join(config_dir, "switchyard-codegen.json")
        with open(config, "w", encoding="utf-8") as f:
            json.dump({"catalogs": [{"name": name, "schema": os.path.relpath(schema, config_dir),
                                     "swiftName": camel(name) + "Event", "policy": spec.get("policy", "strict"),
                                     **({"validateFormats": True} if spec.get("validateFormats") else {})}]}, f)
        out = os.path.join(sources, module)
        run = subprocess.run([codegen, "--config", config, "--output-directory", out], capture_output=True, text=True)
        refused = spec.get("refused")
        if refused is not None:
            expected = refused if isinstance(refused, list) else [refused]
            missing = [t for t in expected if t not in run.stderr]
            if run.returncode == 65 and not missing:
                print(f"conformance: {name}: refused as expected")
                passed += 1
            else:
                print(f"conformance: {name}: expected a refusal containing {expected}, got exit {run.returncode}: {run.stderr.strip()}")
                failed += 1
            continue
        if run.returncode != 0:
            print(f"conformance: {name}: the generator refused it: {run.stderr.strip()}")
            failed += 1
            continue
        accepted.append((name, module))

    if accepted:
        package = os.path.join(WORK, "package")
        checker_dir = os.path.join(sources, "conformance-checker")
        os.makedirs(checker_dir)
        with open(CHECKER, encoding="utf-8") as f:
            checker = f.read()
        with open(os.path.join(checker_dir, "Checker.swift"), "w", encoding="utf-8") as f:
            f.write(checker)
        swift_checks = [name for name, _ in accepted if os.path.exists(os.path.join(CASES, name + ".swift"))]
        for name in swift_checks:
            with open(os.path.join(CASES, name + ".swift"), encoding="utf-8") as f:
                source = f.read()
            with open(os.path.join(checker_dir, f"Case{camel(name)}.swift"), "w", encoding="utf-8") as f:
                f.write(source)
        with open(os.path.join(checker_dir, "Catalogs.swift"), "w", encoding="utf-8") as f:
            f.write("import Foundation\nimport SwitchyardJSON\n")
            for _, module in accepted:
                f.write(f"import {module}\n")
            f.write("\nfunc conformanceCatalogs() -> [(String, (URL) throws -> (records: Int, fast: Int, findings: [Checker.Finding]))] {\n    [\n")
            for name, module in accepted:
                f.write(f"        ({json.dumps(name)}, {{ try Checker.check({module}.{camel(name)}Event.self, records: $0) }}),\n")
            f.write("    ]\n}\n")
            f.write("\nfunc conformanceSwiftChecks() -> [(String, ([[UInt8]]) -> [String])] {\n    [\n")
            for name in swift_checks:
                f.write(f"        ({json.dumps(name)}, {{ check{camel(name)}($0) }}),\n")
            f.write("    ]\n}\n")
            f.write("\nfunc conformanceOutcomes() -> [(String, ([UInt8]) -> String)] {\n    [\n")
            for name, module in accepted:
                f.write(f"        ({json.dumps(name)}, {{ Checker.outcome({module}.{camel(name)}Event.self, $0) }}),\n")
            f.write("    ]\n}\n")
        targets = []
        for _, module in accepted:
            targets.append(f'        .target(name: "{module}", dependencies: [.product(name: "SwitchyardJSON", package: "Switchyard")]),')
        deps = ", ".join(f'"{m}"' for _, m in accepted)
        with open(os.path.join(package, "Package.swift"), "w", encoding="utf-8") as f:
            f.write(f"""// swift-tools-version:6.1
// Written by scripts/codegen_conformance.py: one module per accepted conformance case, and the checker.
import PackageDescription

let package = Package(
    name: "conformance",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "Switchyard", path: {json.dumps(ROOT)})],
    targets: [
{chr(10).join(targets)}
        .executableTarget(name: "conformance-checker", dependencies: [{deps}, .product(name: "SwitchyardJSON", package: "Switchyard")]),
    ],
    swiftLanguageModes: [.v6]
)
""")
        build = subprocess.run([SWIFT, "build", *flags], cwd=package, capture_output=True, text=True)
        output = build.stdout + build.stderr
        diagnostics = [l for l in output.splitlines() if re.match(r"^/.*: (warning|error):", l)]
        if build.returncode != 0 or diagnostics:
            # Name each case whose generated code does not compile, with its first diagnostics.
            for name, module in accepted:
                mine = [l for l in diagnostics if f"/Sources/{module}/" in l]
                if mine:
                    print(f"conformance: {name}: the generated Swift does not compile cleanly:")
                    for l in mine[:8]:
                        print("    " + l.split("/Sources/", 1)[-1])
                    failed += 1
            elsewhere = [l for l in diagnostics if not any(f"/Sources/{m}/" in l for _, m in accepted)]
            for l in elsewhere[:20]:
                print("conformance: " + l)
            if elsewhere or (build.returncode != 0 and not diagnostics):
                if not diagnostics:
                    print(output[-4000:])
                failed += 1
            print(f"conformance: {passed} passed, {failed} failed")
            sys.exit(1)
        bin_dir = subprocess.run([SWIFT, "build", "--show-bin-path"], cwd=package, check=True, capture_output=True, text=True).stdout.strip()
        check = subprocess.run([os.path.join(bin_dir, "conformance-checker"), CASES], capture_output=True, text=True)
        lines = check.stdout.strip().splitlines()
        for l in lines[:-1]:
            print(l)
        summary = re.match(r"conformance: (\d+) passed, (\d+) failed", lines[-1] if lines else "")
        if not summary:
            print(check.stdout + check.stderr)
            failed += 1
        else:
            passed += int(summary.group(1))
            failed += int(summary.group(2))
    print(f"conformance: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


main()
