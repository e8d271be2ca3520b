#!/usr/bin/env python3
"""Lists the public declarations of the library modules a team imports and fails on an undocumented one.

A declaration is `public` or `open` (a type, function, initializer, property, subscript, case, typealias,
associated type; not an extension, which carries no documentation of its own). It is documented when a `///`
comment (or a `/** */` block) sits right above it, attributes and blank-free. An undocumented declaration
must be listed in scripts/public_api_undocumented.txt (`path: declaration`, as printed); a listed entry that
is no longer undocumented (documented, made `package`, removed) is an error too, so the list only shrinks.

    scripts/check_public_api.py            check (exit 1 on a new undocumented declaration or a stale entry)
    scripts/check_public_api.py --list     print every undocumented declaration in the allow-list's format
    scripts/check_public_api.py --counts   print per module: public declarations, documented, percentage
"""
import collections
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
MODULES = ["Switchyard", "SwitchyardCLI", "SwitchyardKafka", "SwitchyardJSON", "SwitchyardMetrics", "SwitchyardHTTP",
           "SwitchyardCatalog"]
ALLOW = ROOT / "scripts" / "public_api_undocumented.txt"

MODIFIERS = (r"(?:(?:static|class|final|override|mutating|nonmutating|convenience|required|indirect|dynamic|lazy|"
             r"nonisolated|isolated|borrowing|consuming|private\(set\)|fileprivate\(set\)|internal\(set\)|"
             r"package\(set\))\s+)*")
DECL = re.compile(r"^\s*(?:@[\w.]+(?:\([^)]*\))?\s+)*" + MODIFIERS + r"(public|open)\s+" + MODIFIERS +
                  r"(func|var|let|struct|class|enum|protocol|typealias|actor|init[?!]?|subscript|case|"
                  r"associatedtype|extension|macro)\b")
ATTRIBUTE_LINE = re.compile(r"^\s*@[\w.]+(?:\(.*\))?\s*$")


def declarations(path):
    """(declaration text, documented) for each public declaration in one file."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found = []
    for index, line in enumerate(lines):
        match = DECL.match(line)
        if not match or match.group(2) == "extension":
            continue
        above = index - 1
        while above >= 0 and ATTRIBUTE_LINE.match(lines[above]):
            above -= 1
        previous = lines[above].strip() if above >= 0 else ""
        documented = previous.startswith("///") or previous.endswith("*/")
        text = line.strip()
        text = re.split(r"\s*\{\s*$|\s+\{\s", text)[0] if "{" in text else text
        found.append((" ".join(text.split()), documented))
    return found


def scan():
    """{module: [(relative path, declaration, documented)]}."""
    result = {}
    for module in MODULES:
        entries = []
        for path in sorted((ROOT / "Sources" / module).rglob("*.swift")):
            for text, documented in declarations(path):
                entries.append((str(path.relative_to(ROOT)), text, documented))
        result[module] = entries
    return result


def main(argv):
    scanned = scan()
    undocumented = collections.Counter(f"{path}: {text}" for entries in scanned.values()
                                       for path, text, documented in entries if not documented)
    if "--counts" in argv:
        total = documented = 0
        for module, entries in scanned.items():
            count = len(entries)
            docs = sum(1 for entry in entries if entry[2])
            total += count
            documented += docs
            print(f"{module}: {count} public, {docs} documented ({100 * docs / max(count, 1):.0f}%)")
        print(f"all: {total} public, {documented} documented ({100 * documented / max(total, 1):.0f}%)")
        return 0
    if "--list" in argv:
        for entry in sorted(undocumented.elements()):
            print(entry)
        return 0
    allowed = collections.Counter()
    if ALLOW.exists():
        for line in ALLOW.read_text(encoding="utf-8").splitlines():
            if line.strip() and not line.startswith("#"):
                allowed[line.strip()] += 1
    new = undocumented - allowed
    stale = allowed - undocumented
    for entry in sorted(new.elements()):
        print(f"{entry}: public and undocumented: add a /// summary (what, units, default, throws) or make it package",
              file=sys.stderr)
    for entry in sorted(stale.elements()):
        print(f"{ALLOW.relative_to(ROOT)}: '{entry}' is no longer an undocumented public declaration: remove the line",
              file=sys.stderr)
    if new or stale:
        return 1
    print(f"public API: {sum(len(e) for e in scanned.values())} public declarations, {sum(undocumented.values())} "
          "undocumented, all in the allow-list")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
