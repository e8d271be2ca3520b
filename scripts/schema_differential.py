#!/usr/bin/env python3
"""Switchyard's generated catalogs against a reference JSON Schema validator (python-jsonschema).

For every realistic catalog of the conformance corpus (`Tests/CodegenConformance/cases/NAME/catalog.json`),
each record of `cases/NAME.records` and deterministic, seeded mutations of its accepted records (a member
removed, a member of another JSON type, a value pushed past a validation) are decoded by the generated code
(the conformance checker's `--outcomes` mode, general decode path) and validated by jsonschema against the
catalog schema (Draft202012Validator or Draft7Validator by `$schema`; relative `$ref`s through a registry of
the case's files). Outcomes must agree, decoded or unknown against valid and failed against invalid, except
for the documented differences, each counted:

- unknown members never fail a record (PRODUCT.md rule 2): `additionalProperties: false` is not enforced;
- an unrecognised string enum value decodes (open enums, rule 3);
- `null` on a member that is not required decodes (absent and `null` are kept apart; a default applies);
- an unknown tag decodes as `.unknown` on a lenient catalog, and so does an unknown variant of a tagged union;
- formats are annotations (counted: records a format-checking validator would reject);
- duplicate keys and numbers that do not fit their Swift type (overflow, a fraction in an integer, a
  negative `uint64`, beyond `int32`) fail in Switchyard (rule 5).

One known difference is not a documented one and is printed as such: a `format: date-time` member is
generated as a `Timestamp`, which rejects text that is not RFC 3339, where PRODUCT.md rule 8 makes formats
annotations unless a catalog opts in.

Usage: scripts/schema_differential.py [--reuse] [NAME …]
  --reuse: use the checker the conformance script just built (`make test` runs that script first).
Prints the counts; exits 1 on any undocumented disagreement.
"""
import copy
import decimal
import json
import os
import random
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASES = os.path.join(ROOT, "Tests", "CodegenConformance", "cases")
PACKAGE = os.path.join(ROOT, ".build", "conformance", "package")
SWIFT = os.environ.get("SWIFT", "swift")
MUTATIONS_PER_KIND = 3

try:
    import jsonschema
    import referencing
    import referencing.jsonschema
except ImportError:
    venv = os.path.join(ROOT, ".venv", "bin", "python3")
    if os.path.exists(venv) and sys.executable != venv:
        os.execv(venv, [venv] + sys.argv)
    raise


# MARK: - Records as the reference reads them

class Duplicate(Exception):
    pass


def no_duplicates(pairs):
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise Duplicate()
    return dict(pairs)


def reject_constant(name):
    raise ValueError(name)


def parse(text):
    """The record as a JSON value (exact decimals), or why not: 'invalid' or 'duplicate'."""
    try:
        return json.loads(text, parse_float=decimal.Decimal, parse_constant=reject_constant, object_pairs_hook=no_duplicates), None
    except Duplicate:
        return None, "duplicate"
    except ValueError:
        return None, "invalid"


def dumps(value):
    """Compact JSON; exact decimals keep their digits."""
    text = json.dumps(_marked(value), ensure_ascii=False, separators=(",", ":"))
    return re.sub(r'"@@number@@([^@"]*)@@"', r"\1", text)


def _marked(value):
    if isinstance(value, dict):
        return {k: _marked(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_marked(v) for v in value]
    if isinstance(value, decimal.Decimal):
        return f"@@number@@{value}@@"
    return value


def at(value, path):
    """The value at a Switchyard path (`a.b[2]`, `["x.y"]`), or None."""
    i = 0
    while i < len(path) and value is not None:
        if path[i] == ".":
            i += 1
        elif path.startswith('["', i):
            end = path.index('"]', i)
            key = path[i + 2:end]
            value = value.get(key) if isinstance(value, dict) else None
            i = end + 2
        elif path[i] == "[":
            end = path.index("]", i)
            index = int(path[i + 1:end])
            value = value[index] if isinstance(value, list) and index < len(value) else None
            i = end + 1
        else:
            end = i
            while end < len(path) and path[end] not in ".[":
                end += 1
            value = value.get(path[i:end]) if isinstance(value, dict) else None
            i = end
    return value


# MARK: - The catalog schema and its relaxations

def load_case(name):
    directory = os.path.join(CASES, name)
    documents = {}
    for entry in sorted(os.listdir(directory)):
        if entry.endswith(".json"):
            with open(os.path.join(directory, entry), encoding="utf-8") as f:
                documents[entry] = json.load(f, parse_float=decimal.Decimal)
    return documents


def validator_for(documents, draft7):
    spec = referencing.jsonschema.DRAFT7 if draft7 else referencing.jsonschema.DRAFT202012
    resources = []
    for entry, contents in documents.items():
        resource = referencing.Resource.from_contents(contents, default_specification=spec)
        resources.append(("file://" + os.path.join(CASES, "x", entry), resource))
        if "$id" in contents:
            resources.append((contents["$id"], resource))
    registry = referencing.Registry().with_resources(resources)
    cls = jsonschema.Draft7Validator if draft7 else jsonschema.Draft202012Validator
    root = documents["catalog.json"]
    return cls(root, registry=registry), cls(root, registry=registry, format_checker=cls.FORMAT_CHECKER)


def walk(schema, visit):
    # Children first: a visit may add schemas that must not be visited again.
    if isinstance(schema, dict):
        for v in list(schema.values()):
            walk(v, visit)
        visit(schema)
    elif isinstance(schema, list):
        for v in schema:
            walk(v, visit)


def lookup(documents, entry, ref):
    target, _, pointer = ref.partition("#")
    doc = documents.get(os.path.basename(target)) if target else documents[entry]
    for part in [p for p in pointer.split("/") if p]:
        doc = doc[part.replace("~1", "/").replace("~0", "~")]
    return doc


def open_members(documents):
    def visit(s):
        for key in ("additionalProperties", "unevaluatedProperties"):
            if s.get(key) is False:
                del s[key]
    for doc in documents.values():
        walk(doc, visit)


def open_enums(documents):
    def visit(s):
        values = s.get("enum")
        if isinstance(values, list) and values and all(isinstance(v, str) or v is None for v in values) and any(isinstance(v, str) for v in values):
            s["anyOf"] = [{"enum": values}, {"type": "string"}]
            del s["enum"]
    for doc in documents.values():
        walk(doc, visit)


def null_when_optional(documents):
    def visit(s):
        properties = s.get("properties")
        if isinstance(properties, dict):
            required = set(s.get("required", []))
            for name, member in list(properties.items()):
                if name not in required and isinstance(member, dict) and "const" not in member:
                    properties[name] = {"anyOf": [{"type": "null"}, member]}
    for doc in documents.values():
        walk(doc, visit)


def unknown_variants(documents):
    """A branch for every tag value a union (or a lenient catalog) does not list: `.unknown` keeps it."""
    for entry, doc in documents.items():
        def visit(s, entry=entry):
            for keyword in ("oneOf", "anyOf"):
                branches = s.get(keyword)
                if not isinstance(branches, list):
                    continue
                tags, key = [], None
                for branch in branches:
                    if not isinstance(branch, dict) or branch.get("type") == "null":
                        continue
                    found = tag_of(documents, entry, branch)
                    if found is None:
                        tags = None
                        break
                    if key not in (None, found[0]):
                        tags = None
                        break
                    key = found[0]
                    tags.append(found[1])
                if tags and key:
                    branches.append({"type": "object", "required": [key], "properties": {key: {"type": "string", "not": {"enum": tags}}}})
        walk(doc, visit)


def tag_of(documents, entry, branch, depth=0):
    """(key, const) of the one member with a string `const` in a branch (through `$ref`/`allOf`)."""
    if depth > 8 or not isinstance(branch, dict):
        return None
    for name, member in (branch.get("properties") or {}).items():
        if isinstance(member, dict) and isinstance(member.get("const"), str):
            return name, member["const"]
    if "$ref" in branch:
        ref = branch["$ref"]
        target = os.path.basename(ref.partition("#")[0]) or entry
        try:
            return tag_of(documents, target, lookup(documents, entry, ref), depth + 1)
        except (KeyError, TypeError):
            return None
    for sub in branch.get("allOf", []):
        found = tag_of(documents, entry, sub, depth + 1)
        if found:
            return found
    return None


RELAXATIONS = [
    ("unknown members never fail (additionalProperties: false)", open_members),
    ("open enum: an unrecognised value decodes", open_enums),
    ("null on a member that is not required", null_when_optional),
    ("unknown tag or union variant: .unknown", unknown_variants),
]


def declared_formats(documents):
    """Member name → the integer formats declared for it anywhere in the catalog."""
    formats = {}
    def visit(s):
        for name, member in (s.get("properties") or {}).items():
            if isinstance(member, dict) and member.get("format") in ("int32", "int64", "uint64", "uint32", "date-time"):
                formats.setdefault(name, set()).add(member["format"])
    for doc in documents.values():
        walk(doc, visit)
    return formats


def does_not_fit(value, member, formats):
    """A JSON number that no integer Swift type of its member holds (rule 5)."""
    if isinstance(value, bool) or not isinstance(value, (int, decimal.Decimal)):
        return False
    if isinstance(value, decimal.Decimal):
        return True  # a fraction or an exponent where the member is an integer: jsonschema accepts 1.0
    declared = formats.get(member, set()) - {"date-time"}
    ranges = {"int32": (-2**31, 2**31 - 1), "uint32": (0, 2**32 - 1), "uint64": (0, 2**64 - 1), "int64": (-2**63, 2**63 - 1)}
    allowed = [ranges[f] for f in declared] or [ranges["int64"]]
    return not any(lo <= value <= hi for lo, hi in allowed)


# MARK: - Mutations

def leaves(value, path=()):
    yield path, value
    if isinstance(value, dict):
        for k, v in value.items():
            yield from leaves(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from leaves(v, path + (i,))


def replaced(record, path, new):
    copy_ = copy.deepcopy(record)
    node = copy_
    for p in path[:-1]:
        node = node[p]
    if new is REMOVE:
        del node[path[-1]]
    else:
        node[path[-1]] = new
    return copy_


REMOVE = object()


def other_type(value):
    if isinstance(value, bool):
        return "true" if value else 0
    if isinstance(value, str):
        return 7
    if isinstance(value, (int, decimal.Decimal)):
        return str(value)
    if isinstance(value, list):
        return {"items": value[:1]}
    if isinstance(value, dict):
        return [value] if value else "{}"
    return None


def past_validation(value, rng):
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        return rng.choice(["", value + "!", value.upper() + "-X", "x" * 300, value[:1]])
    if isinstance(value, int):
        return rng.choice([value + 1, value - 1, -value - 1, 0, value * 1000 + 7])
    if isinstance(value, decimal.Decimal):
        return rng.choice([value + decimal.Decimal("0.001"), -value, value * 1000])
    if isinstance(value, list):
        return rng.choice([[], value + value[:1], value * 3])
    return None


def mutations(name, number, record):
    """Deterministic mutations of one accepted record: (kind, record)."""
    found = []
    members = [(p, v) for p, v in leaves(record) if p and isinstance(p[-1], str)]
    values = [(p, v) for p, v in leaves(record) if p]
    for kind in ("member removed", "member of another type", "past a validation"):
        rng = random.Random(f"{name}:{number}:{kind}")
        pool = members if kind == "member removed" else values
        for _ in range(MUTATIONS_PER_KIND):
            if not pool:
                break
            path, value = rng.choice(pool)
            if kind == "member removed":
                new = REMOVE
            elif kind == "member of another type":
                new = other_type(value)
            else:
                new = past_validation(value, rng)
            if new is None:
                continue
            found.append((kind, replaced(record, path, new)))
    return found


# MARK: - Comparing

def catalogs(selected):
    names = sorted(e for e in os.listdir(CASES) if os.path.exists(os.path.join(CASES, e, "catalog.json")) and os.path.exists(os.path.join(CASES, e + ".records")))
    return [n for n in names if not selected or n in selected]


def outcomes(checker, name, records):
    run = subprocess.run([checker, "--outcomes", name], input="\n".join(records) + "\n", capture_output=True, text=True, check=True)
    lines = run.stdout.splitlines()
    assert len(lines) == len(records), f"{name}: {len(lines)} outcomes for {len(records)} records"
    return [json.loads(l) for l in lines]


def main():
    args = sys.argv[1:]
    reuse = "--reuse" in args
    selected = [a for a in args if a != "--reuse"]
    names = catalogs(selected)
    if not reuse:
        subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "codegen_conformance.py"), *names], check=True, stdout=subprocess.DEVNULL)
    bin_dir = subprocess.run([SWIFT, "build", "--show-bin-path"], cwd=PACKAGE, check=True, capture_output=True, text=True).stdout.strip()
    checker = os.path.join(bin_dir, "conformance-checker")

    counts = {"records": 0, "from files": 0, "mutations": 0, "agreed": 0}
    differences = {}
    undocumented = []
    for name in names:
        documents = load_case(name)
        draft7 = "draft-07" in documents["catalog.json"].get("$schema", "")
        plain, with_formats = validator_for(documents, draft7)
        relaxed = []
        current = copy.deepcopy(documents)
        for label, relax in RELAXATIONS:
            relax(current)
            relaxed.append((label, validator_for(copy.deepcopy(current), draft7)[0]))
        formats = declared_formats(documents)

        records = []
        with open(os.path.join(CASES, name + ".records"), encoding="utf-8") as f:
            for number, line in enumerate(f.read().splitlines(), 1):
                if not line or line.startswith("#"):
                    continue
                expectation, _, text = line.partition("\t")
                records.append((f"{name}.records:{number}", text))
                counts["from files"] += 1
                if expectation.split()[0] in ("decoded", "unknown"):
                    value, problem = parse(text)
                    if problem is None:
                        for kind, mutated in mutations(name, number, value):
                            records.append((f"{name}.records:{number} ({kind})", dumps(mutated)))
                            counts["mutations"] += 1
        results = outcomes(checker, name, [t for _, t in records])
        for (where, text), result in zip(records, results):
            counts["records"] += 1
            ours = result["outcome"] != "failed"
            value, problem = parse(text)
            difference = None  # None: they agree; a label: a documented difference; False: undocumented
            if problem == "invalid":
                reference = False
            elif problem == "duplicate":
                reference = False
                if ours:
                    difference = False
                else:
                    difference = "duplicate keys fail (rule 5)"
            else:
                reference = plain.is_valid(value)
                if reference and not with_formats.is_valid(value):
                    label = "formats are annotations (a format checker would reject)"
                    differences[label] = differences.get(label, 0) + 1
                if ours and not reference:
                    difference = next((label for label, validator in relaxed if validator.is_valid(value)), False)
                elif not ours and reference:
                    path = result.get("path", "")
                    member = path.split(".")[-1].split("[")[0].strip('"]')
                    fits = not does_not_fit(at(value, path), member, formats)
                    difference = False if result.get("kind") != "dataCorrupted" or fits else "number does not fit its Swift type (rule 5)"
                    if difference is False and result.get("kind") == "dataCorrupted" and isinstance(at(value, path), str) and "date-time" in formats.get(member, set()):
                        difference = "KNOWN, not in PRODUCT.md: a date-time member is a Timestamp, so RFC 3339 is checked"
            if difference is None:
                counts["agreed"] += 1
            elif difference is False:
                undocumented.append(f"{where}: Switchyard {json.dumps(result)}, jsonschema {'valid' if reference else 'invalid'}: {text[:400]}")
            else:
                differences[difference] = differences.get(difference, 0) + 1

    print(f"schema differential: {len(names)} catalogs, {counts['records']} records ({counts['from files']} from the records files, {counts['mutations']} mutations), {counts['agreed']} agreed")
    for label, n in sorted(differences.items()):
        print(f"schema differential:   {label}: {n}")
    for line in undocumented:
        print("schema differential: DISAGREE " + line)
    print(f"schema differential: {len(undocumented)} undocumented disagreements")
    sys.exit(1 if undocumented else 0)


main()
