#!/usr/bin/env python3
"""Contract checks that check-jsonschema alone cannot do. Run with the project venv's python.

  check_schemas.py localize OUTDIR   copy Schemas/ to OUTDIR with every $id rewritten to a file:// URI,
                                     so check-jsonschema resolves the relative $refs offline
  check_schemas.py check             everything else (below); prints one PASS/FAIL line per check and
                                     a last line `RESULT passed=N failed=M`

`check` covers:
  - the manifest (Fixtures/expectations.json) names every fixture once, and is well formed
  - fixture shapes: every event type has v1, v2 and v3-future fixtures of the promised shape
  - every schema's $id matches its path, and every $ref resolves locally
  - the schemas are not vacuous: every `failed` fixture is rejected by its topic schema, for the
    expected reason (kind and path), except the defects JSON Schema cannot see (EXCEPTIONS below);
    the lenient topic accepts the unknown-type fixture, the strict one would not
  - golden files: one per decoded fixture, byte rules (compact, no trailing newline, `type` first),
    key order = declaration order taken from the schemas, defaults written out, absent optionals
    omitted, known strings minimally escaped, unknown fields byte-verbatim in input order
  - Schemas/asyncapi.yaml: AsyncAPI 3.0.0, channels, operations, every $ref resolves, DLQ headers
"""
import json
import os
import re
import shutil
import sys
import urllib.parse

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMAS = os.path.join(ROOT, "Schemas")
FIXTURES = os.path.join(ROOT, "Tests", "SwitchyardCatalogTests", "Fixtures")
GOLDEN = os.path.join(FIXTURES, "golden")
BASE = "https://switchyard.dev/schemas/"
TOPICS = {"payments": "strict", "feeds": "lenient"}
KINDS = {"keyNotFound", "valueNotFound", "typeMismatch", "dataCorrupted", "unknownType"}
DLQ_HEADERS = [
    "switchyard.original.topic", "switchyard.original.partition", "switchyard.original.offset",
    "switchyard.original.timestamp", "switchyard.error.kind", "switchyard.error.path",
    "switchyard.error.type", "switchyard.error.message", "switchyard.consumer.group",
    "switchyard.failed.at", "switchyard.redrive.count",
]

# Failing fixtures whose defect a JSON Schema cannot express: schemas see a parsed value, so a
# record that is not JSON, or an object whose duplicate keys were already collapsed by the parser,
# is out of their reach. For these the check verifies the fixture really has that defect instead.
EXCEPTIONS = {
    "fail-truncated.json": "invalid JSON: there is no instance to validate (checked: it does not parse)",
    "fail-duplicate-key.json": "duplicate object keys are collapsed by any JSON parser before validation "
                               "(checked: the duplicate is at the expected path)",
    "fail-duplicate-key-in-unknown-field.json": "duplicate object keys are collapsed by any JSON parser before "
                                                "validation (checked: the duplicate is at the expected path)",
}

results = []


def record(ok, name, why=""):
    results.append(ok)
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else ": " + why))


def load(path):
    with open(path, "rb") as f:
        return json.loads(f.read().decode("utf-8"))


def schema_files():
    """The shipped schemas; Schemas/baseline/ (the last release, for `switchyard schema check`) repeats
    their $ids, so it is not part of the registry."""
    out = []
    for d, dirs, files in os.walk(SCHEMAS):
        if d == SCHEMAS and "baseline" in dirs:
            dirs.remove("baseline")
        out += [os.path.join(d, f) for f in files if f.endswith(".json")]
    return sorted(out)


# ---------------------------------------------------------------------------------------------
# A small JSON reader that keeps the raw text of every value and the decoded key of every member
# (so "ty\u0070e" is the key `type`), and reports duplicate keys with their rendered path.


class Node:
    def __init__(self, kind, raw, value=None, items=None):
        self.kind, self.raw, self.value, self.items = kind, raw, value, items


class RawReader:
    NUM = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")
    WS = " \t\r\n"

    def __init__(self, text):
        self.t, self.i, self.duplicates = text, 0, []

    def parse(self):
        v = self.value([])
        self.ws()
        if self.i != len(self.t):
            raise ValueError("trailing data at %d" % self.i)
        return v

    def ws(self):
        while self.i < len(self.t) and self.t[self.i] in self.WS:
            self.i += 1

    def value(self, path):
        self.ws()
        if self.i >= len(self.t):
            raise ValueError("unexpected end of input")
        start, c = self.i, self.t[self.i]
        if c == "{":
            self.i += 1
            items, seen = [], set()
            self.ws()
            if self.t[self.i:self.i + 1] == "}":
                self.i += 1
                return Node("object", self.t[start:self.i], items=items)
            while True:
                self.ws()
                key = self.string()
                if key.value in seen:
                    self.duplicates.append(render(path + [key.value]))
                seen.add(key.value)
                self.ws()
                self.expect(":")
                items.append((key.value, self.value(path + [key.value])))
                self.ws()
                if self.t[self.i:self.i + 1] == ",":
                    self.i += 1
                    continue
                self.expect("}")
                return Node("object", self.t[start:self.i], items=items)
        if c == "[":
            self.i += 1
            items = []
            self.ws()
            if self.t[self.i:self.i + 1] == "]":
                self.i += 1
                return Node("array", self.t[start:self.i], items=items)
            while True:
                items.append(self.value(path + [len(items)]))
                self.ws()
                if self.t[self.i:self.i + 1] == ",":
                    self.i += 1
                    continue
                self.expect("]")
                return Node("array", self.t[start:self.i], items=items)
        if c == '"':
            return self.string()
        for lit, val in (("true", True), ("false", False), ("null", None)):
            if self.t.startswith(lit, self.i):
                self.i += len(lit)
                return Node("literal", lit, value=val)
        m = self.NUM.match(self.t, self.i)
        if not m or m.end() == self.i:
            raise ValueError("unexpected %r at %d" % (c, self.i))
        self.i = m.end()
        return Node("number", m.group(0), value=json.loads(m.group(0)))

    def string(self):
        start = self.i
        self.expect('"')
        while True:
            if self.i >= len(self.t):
                raise ValueError("unterminated string")
            ch = self.t[self.i]
            if ch == "\\":
                self.i += 2
            elif ch == '"':
                self.i += 1
                break
            else:
                self.i += 1
        raw = self.t[start:self.i]
        return Node("string", raw, value=json.loads(raw))

    def expect(self, ch):
        if self.t[self.i:self.i + 1] != ch:
            raise ValueError("expected %r at %d" % (ch, self.i))
        self.i += 1


IDENT = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")


def render(path):
    """PRODUCT.md path rendering: amount.value, tags[2], ["a.b"]; the root is ""."""
    out = ""
    for p in path:
        if isinstance(p, int):
            out += "[%d]" % p
        elif IDENT.match(p):
            out += ("." if out else "") + p
        else:
            out += "[%s]" % json.dumps(p, ensure_ascii=False)
    return out


def minimal_escape(s):
    """Known strings: only " \\ and control characters escaped; non-ASCII raw; / not escaped."""
    short = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r", "\b": "\\b", "\f": "\\f"}
    return '"' + "".join(short.get(ch) or ("\\u%04x" % ord(ch) if ord(ch) < 0x20 else ch) for ch in s) + '"'


# ---------------------------------------------------------------------------------------------
# Schemas: a local registry keyed by $id, and the declaration order of every event, from the schemas.


def registry():
    from referencing import Registry, Resource
    resources = [(load(p)["$id"], Resource.from_contents(load(p))) for p in schema_files()]
    return Registry().with_resources(resources)


def validator(reg, uri):
    import jsonschema
    from check_jsonschema.formats.implementations.rfc3339 import validate as rfc3339
    checker = jsonschema.FormatChecker()
    checker.checks("date-time")(rfc3339)
    return jsonschema.Draft202012Validator({"$ref": uri}, registry=reg, format_checker=checker)


def resolve(reg, base, sub):
    """Follow $refs (relative to base) until the schema says what it is; return (base, schema)."""
    while "$ref" in sub and not {"type", "properties", "const", "anyOf"} & set(sub):
        base, sub = lookup(reg, base, sub["$ref"])
    return base, sub


def lookup(reg, base, ref):
    uri = urllib.parse.urljoin(base, ref)
    doc_uri, _, frag = uri.partition("#")
    doc = reg[doc_uri].contents
    node = doc
    for part in [p for p in frag.split("/") if p]:
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return doc_uri, node


def event_spec(reg, topic, tag):
    """Ordered [(name, base, subschema)] of an event: type, envelope fields, then the event's fields."""
    uri = "%s%s/%s.json" % (BASE, topic, tag)
    doc = reg[uri].contents
    env_base, env = lookup(reg, uri, doc["$ref"])
    fields = [("type", uri, doc["properties"]["type"])]
    fields += [(n, env_base, s) for n, s in env["properties"].items() if n != "type"]
    fields += [(n, uri, s) for n, s in doc["properties"].items() if n != "type"]
    return fields


def object_spec(reg, base, sub):
    base, sub = resolve(reg, base, sub)
    if sub.get("type") == "object" and "properties" in sub:
        return [(n, base, s) for n, s in sub["properties"].items()], sub.get("required", [])
    return None, None


def scalar_kind(reg, base, sub):
    base, s = resolve(reg, base, sub)
    if "const" in s:
        return "string"
    if "anyOf" in s:
        return "string"  # open enum
    t = s.get("type")
    if t == "array":
        return "array-of-string"
    return t


def default_of(reg, base, sub):
    if "default" in sub:
        return True, sub["default"]
    if "$ref" in sub:
        return default_of(reg, *lookup(reg, base, sub["$ref"]))
    return False, None


# ---------------------------------------------------------------------------------------------


def check_manifest(rows, tags_by_topic):
    on_disk = sorted(f for f in os.listdir(FIXTURES) if f.endswith(".json") and f != "expectations.json")
    listed = [r.get("file") for r in rows]
    record(sorted(listed) == on_disk and len(set(listed)) == len(listed), "manifest lists every fixture exactly once",
           "on disk but not listed: %s; listed but not on disk or twice: %s"
           % (sorted(set(on_disk) - set(listed)), sorted(f for f in listed if f not in on_disk or listed.count(f) > 1)))
    for r in rows:
        errs = []
        if set(r) != {"file", "topic", "outcome", "type", "kind", "path"}:
            errs.append("keys %s" % sorted(r))
        if r.get("topic") not in TOPICS:
            errs.append("topic")
        o = r.get("outcome")
        if o not in ("decoded", "unknown", "failed"):
            errs.append("outcome")
        if o == "failed":
            if r.get("kind") not in KINDS or not isinstance(r.get("path"), str):
                errs.append("failed needs kind and path")
            if not r["file"].startswith("fail-"):
                errs.append("failing fixtures are named fail-*")
            if r.get("kind") == "unknownType" and (TOPICS.get(r.get("topic")) != "strict" or r.get("path") != ""):
                errs.append("unknownType only on a strict topic, at the root")
        else:
            if r.get("kind") is not None or r.get("path") is not None:
                errs.append("kind/path only for failed")
            if r["file"].startswith("fail-"):
                errs.append("fail-* must be failed")
        known = tags_by_topic.get(r.get("topic"), [])
        if o == "decoded" and r.get("type") not in known:
            errs.append("decoded type must be one of the topic's types")
        if o == "unknown" and (r.get("type") in known or TOPICS.get(r.get("topic")) != "lenient"):
            errs.append("unknown is for an unrecognised tag on a lenient topic")
        record(not errs, "manifest entry %s" % r.get("file"), "; ".join(errs))


def check_shapes(rows, tags_by_topic):
    by_file = {r["file"]: r for r in rows}
    for topic, tags in tags_by_topic.items():
        for tag in tags:
            stem = tag.replace(".", "-")
            for v in ("v1", "v2", "v3-future"):
                f = "%s-%s.json" % (stem, v)
                r = by_file.get(f)
                errs = []
                if not r or r["outcome"] != "decoded" or r["type"] != tag or r["topic"] != topic:
                    errs.append("missing or not a decoded %s on %s" % (tag, topic))
                else:
                    doc = load(os.path.join(FIXTURES, f))
                    raw = open(os.path.join(FIXTURES, f), encoding="utf-8").read()
                    if v == "v1" and "schemaVersion" in doc:
                        errs.append("v1 has no schemaVersion")
                    if v == "v1" and tag == "payment.captured" and "installments" in doc:
                        errs.append("v1 lacks installments")
                    if v == "v1" and tag == "post.created" and "mediaCount" in doc:
                        errs.append("v1 lacks mediaCount")
                    if v == "v2":
                        if tag in ("payment.captured", "post.created") and doc.get("schemaVersion") != 2:
                            errs.append("v2 has schemaVersion 2")
                        spec = load(os.path.join(SCHEMAS, topic, tag + ".json"))
                        missing = [p for p in spec["properties"] if p not in doc]
                        if missing:
                            errs.append("v2 has every field, lacks %s" % missing)
                    if v == "v3-future":
                        for needle in ("123456789012345678901234567890", "1.10",
                                       r'"caf\u00e9 \"quoted\" \ud83d\ude00"'):
                            if needle not in raw:
                                errs.append("v3-future carries %s" % needle)
                        spec = load(os.path.join(SCHEMAS, topic, tag + ".json"))
                        known = set(spec["properties"]) | {"id", "occurredAt", "schemaVersion"}
                        if not any(isinstance(val, dict) for k, val in doc.items() if k not in known):
                            errs.append("v3-future carries an unknown nested object")
                        for k, s in spec["properties"].items():
                            if "$ref" in s and isinstance(doc.get(k), dict):
                                sub = load(os.path.join(SCHEMAS, "common.json"))["$defs"][s["$ref"].rsplit("/", 1)[1]]
                                if not set(doc[k]) - set(sub["properties"]):
                                    errs.append("v3-future has an unknown field inside %s" % k)
                            if "anyOf" in s and doc.get(k) in s["anyOf"][0]["enum"]:
                                errs.append("v3-future has an unrecognised %s" % k)
                record(not errs, "fixture shape %s" % f, "; ".join(errs))
    for f, want in [("payment-captured-offset-timestamp.json", r"\.[0-9]+\+05:30$"),
                    ("payment-captured-escaped-tag.json", None), ("post-created-tag-last.json", None)]:
        ok = f in by_file and by_file[f]["outcome"] == "decoded"
        if ok and want:
            ok = re.search(want, load(os.path.join(FIXTURES, f))["occurredAt"]) is not None
        if ok and f == "payment-captured-escaped-tag.json":
            raw = open(os.path.join(FIXTURES, f), encoding="utf-8").read()
            ok = '"ty\\u0070e"' in raw and '"type"' not in raw and not raw.lstrip().startswith('{"ty')
        if ok and f == "post-created-tag-last.json":
            ok = list(load(os.path.join(FIXTURES, f)))[-1] == "type"
        record(ok, "fixture shape %s" % f, "missing or not of the promised shape")


def check_schema_files(reg):
    for p in schema_files():
        rel = os.path.relpath(p, SCHEMAS).replace(os.sep, "/")
        doc = load(p)
        errs = []
        if doc.get("$schema") != "https://json-schema.org/draft/2020-12/schema":
            errs.append("$schema is draft 2020-12")
        if doc.get("$id") != BASE + rel:
            errs.append("$id %r is not %r" % (doc.get("$id"), BASE + rel))

        def walk(node, here):
            if isinstance(node, dict):
                if isinstance(node.get("$ref"), str):
                    try:
                        lookup(reg, doc["$id"], node["$ref"])
                    except Exception as e:  # noqa: BLE001
                        errs.append("$ref %s at %s does not resolve (%s)" % (node["$ref"], here, e))
                if node.get("additionalProperties") is False or node.get("unevaluatedProperties") is False:
                    errs.append("unknown fields must never fail a record (%s)" % here)
                for k, v in node.items():
                    walk(v, here + "/" + k)
            elif isinstance(node, list):
                for i, v in enumerate(node):
                    walk(v, "%s/%d" % (here, i))
        walk(doc, "#")
        record(not errs, "schema %s: $id, local $refs, open objects" % rel, "; ".join(errs))


def reasons(error):
    """(kind, path) pairs a jsonschema error stands for, in Switchyard's DecodingError terms."""
    path = list(error.absolute_path)
    v, inst = error.validator, error.instance
    if v == "required":
        return [("keyNotFound", render(path + [m])) for m in error.validator_value if m not in inst]
    if v == "type":
        if inst is None:
            return [("valueNotFound", render(path))]
        if isinstance(inst, float) and "integer" in str(error.validator_value):
            return [("dataCorrupted", render(path))]  # a fraction into an integer
        return [("typeMismatch", render(path))]
    if v in ("maximum", "minimum", "minLength", "pattern", "format"):
        return [("dataCorrupted", render(path))]
    if v in ("oneOf", "const"):
        out = [("unknownType", render(path))]
        for sub in error.context or []:
            out += reasons(sub)
        return out
    return [(v, render(path))]


def check_rejections(rows, reg, tags_by_topic):
    topic_validators = {t: validator(reg, BASE + t + ".json") for t in TOPICS}
    for r in rows:
        if r["outcome"] == "unknown":
            doc = load(os.path.join(FIXTURES, r["file"]))
            ok = topic_validators[r["topic"]].is_valid(doc)
            strict = [t for t, p in TOPICS.items() if p == "strict"]
            ok = ok and all(not topic_validators[t].is_valid(doc) for t in strict)
            record(ok, "unknown type %s: valid on lenient %s, rejected by strict topics" % (r["file"], r["topic"]))
            continue
        if r["outcome"] != "failed":
            continue
        f, want = r["file"], (r["kind"], r["path"])
        text = open(os.path.join(FIXTURES, f), encoding="utf-8").read()
        if f in EXCEPTIONS:
            try:
                reader = RawReader(text)
                reader.parse()
                parsed = True
            except ValueError:
                parsed = False
            if "duplicate" in f:
                ok = parsed and want == ("dataCorrupted", reader.duplicates[0] if reader.duplicates else None)
                detail = "duplicates found at %s" % (reader.duplicates if parsed else "unparseable")
            else:
                ok = not parsed and want == ("dataCorrupted", "")
                detail = "it parsed" if parsed else "kind/path should be dataCorrupted at the root"
            record(ok, "exception %s (%s)" % (f, EXCEPTIONS[f]), detail)
            continue
        doc = json.loads(text)
        topic_ok = not topic_validators[r["topic"]].is_valid(doc)
        tag = r["type"]
        if tag in tags_by_topic[r["topic"]]:
            v = validator(reg, "%s%s/%s.json" % (BASE, r["topic"], tag))
        else:
            v = topic_validators[r["topic"]]
        found = set()
        for e in v.iter_errors(doc):
            found.update(reasons(e))
        ok = topic_ok and want in found
        record(ok, "rejected %s as %s at %r" % (f, want[0], want[1]),
               ("topic schema accepted it" if not topic_ok else "schema errors say %s" % sorted(found)))


def check_goldens(rows, reg):
    decoded = {r["file"]: r for r in rows if r["outcome"] == "decoded"}
    present = sorted(os.listdir(GOLDEN)) if os.path.isdir(GOLDEN) else []
    extra = sorted(set(present) - set(decoded))
    record(not extra, "golden files only for decoded fixtures", "extra: %s" % extra)
    for f, r in decoded.items():
        errs = []
        gp = os.path.join(GOLDEN, f)
        if not os.path.exists(gp):
            record(False, "golden %s" % f, "missing")
            continue
        gbytes = open(gp, "rb").read()
        try:
            gtext = gbytes.decode("utf-8")
            g = RawReader(gtext).parse()
            inp = RawReader(open(os.path.join(FIXTURES, f), encoding="utf-8").read()).parse()
        except (UnicodeDecodeError, ValueError) as e:
            record(False, "golden %s" % f, "unreadable: %s" % e)
            continue
        if gbytes.endswith(b"\n"):
            errs.append("trailing newline")
        if not gtext.startswith('{"type":'):
            errs.append("`type` is not first")
        compare_object(reg, inp, g, event_spec(reg, r["topic"], r["type"]), [], errs, top=True)
        record(not errs, "golden %s" % f, "; ".join(errs[:6]))


def compare_object(reg, inp, out, spec, path, errs, top=False):
    """out must be the canonical encoding of inp under spec (an ordered [(name, base, subschema)])."""
    if out.kind != "object":
        errs.append("%s: not an object" % render(path))
        return
    given = dict(inp.items)
    names = [n for n, _, _ in spec]
    expected_keys = []
    for n, base, sub in spec:
        has_default, _ = default_of(reg, base, sub)
        if n in given or has_default:
            expected_keys.append(n)
    expected_keys += [k for k, _ in inp.items if k not in names]
    got_keys = [k for k, _ in out.items]
    if got_keys != expected_keys:
        errs.append("%s: keys %s, expected %s" % (render(path) or "root", got_keys, expected_keys))
        return
    # compact: the object's raw text is exactly its members' raw texts joined by , and :
    got = dict(out.items)
    rebuilt = "{" + ",".join("%s:%s" % (minimal_escape(k) if k in names else json.dumps(k, ensure_ascii=False), v.raw)
                             for k, v in out.items) + "}"
    if rebuilt != out.raw:
        errs.append("%s: not compact, or a key is escaped" % (render(path) or "root"))
    for n, base, sub in spec:
        if n not in got:
            continue
        here = path + [n]
        if n not in given:
            _, d = default_of(reg, base, sub)
            if got[n].raw != json.dumps(d, separators=(",", ":"), ensure_ascii=False):
                errs.append("%s: default %s written as %s" % (render(here), json.dumps(d), got[n].raw))
            continue
        nested, _ = object_spec(reg, base, sub)
        if nested is not None:
            compare_object(reg, given[n], got[n], nested, here, errs)
            continue
        kind = scalar_kind(reg, base, sub)
        if kind == "string":
            if got[n].raw != minimal_escape(given[n].value):
                errs.append("%s: %s, expected %s" % (render(here), got[n].raw, minimal_escape(given[n].value)))
        elif kind == "integer":
            if got[n].raw != str(int(given[n].value)):
                errs.append("%s: %s, expected %s" % (render(here), got[n].raw, int(given[n].value)))
        elif kind == "array-of-string":
            want = "[" + ",".join(minimal_escape(x.value) for x in given[n].items) + "]"
            if got[n].raw != want:
                errs.append("%s: %s, expected %s" % (render(here), got[n].raw, want))
        else:
            errs.append("%s: no rule for known field of kind %s" % (render(here), kind))
    for k, v in inp.items:
        if k not in names and got[k].raw != v.raw:
            errs.append("%s: unknown field not verbatim: %s, input %s" % (render(path + [k]), got[k].raw, v.raw))


def check_asyncapi(tags_by_topic):
    from ruamel.yaml import YAML
    path = os.path.join(SCHEMAS, "asyncapi.yaml")
    try:
        doc = YAML(typ="safe").load(open(path, encoding="utf-8"))
    except Exception as e:  # noqa: BLE001
        record(False, "asyncapi.yaml parses", str(e))
        return
    record(doc.get("asyncapi") == "3.0.0" and {"title", "version"} <= set(doc.get("info", {})),
           "asyncapi.yaml is AsyncAPI 3.0.0 with info", "asyncapi/info")
    errs = []

    def pointer(p):
        node = doc
        for part in [x for x in p.split("/") if x]:
            node = node[part.replace("~1", "/").replace("~0", "~")]
        return node

    def walk(node, here):
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str):
                target, _, frag = ref.partition("#")
                try:
                    if target:
                        d = load(os.path.normpath(os.path.join(SCHEMAS, target)))
                        for part in [x for x in frag.split("/") if x]:
                            d = d[part]
                    else:
                        pointer(frag)
                except (OSError, KeyError, TypeError, ValueError) as e:
                    errs.append("$ref %s at %s: %s" % (ref, here, e))
            for k, v in node.items():
                walk(v, here + "/" + str(k))
        elif isinstance(node, list):
            for i, v in enumerate(node):
                walk(v, "%s/%d" % (here, i))
    walk(doc, "#")
    record(not errs, "asyncapi.yaml: every $ref resolves", "; ".join(errs))

    channels, ops = doc.get("channels", {}), doc.get("operations", {})
    for topic, tags in tags_by_topic.items():
        errs = []
        ch = channels.get(topic, {})
        if ch.get("address") != topic:
            errs.append("channel %s with address %s" % (topic, topic))
        payloads = {}
        for m in (ch.get("messages") or {}).values():
            msg = pointer(m["$ref"].partition("#")[2]) if "$ref" in m else m
            pl = msg.get("payload", {})
            if pl.get("schemaFormat") != "application/schema+json;version=draft-2020-12":
                errs.append("schemaFormat of %s" % msg.get("name"))
            payloads[msg.get("name")] = pl.get("schema", {}).get("$ref")
        want = {t: "./%s/%s.json" % (topic, t) for t in tags}
        if payloads != want:
            errs.append("messages %s, expected %s" % (payloads, want))
        recv = [o for o in ops.values() if o.get("action") == "receive"
                and o.get("channel", {}).get("$ref") == "#/channels/" + topic]
        if len(recv) != 1 or len(recv[0].get("messages", [])) != len(tags):
            errs.append("one receive operation on %s with every message" % topic)
        dlq = channels.get(topic + ".dlq", {})
        if dlq.get("address") != topic + ".dlq":
            errs.append("channel %s.dlq" % topic)
        hdrs = None
        for m in (dlq.get("messages") or {}).values():
            msg = pointer(m["$ref"].partition("#")[2]) if "$ref" in m else m
            h = msg.get("headers", {})
            h = pointer(h["$ref"].partition("#")[2]) if "$ref" in h else h
            hdrs = list(h.get("properties", {}))
        if hdrs != DLQ_HEADERS:
            errs.append("DLQ headers %s, expected %s" % (hdrs, DLQ_HEADERS))
        record(not errs, "asyncapi.yaml: %s and %s.dlq" % (topic, topic), "; ".join(errs))


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "localize":
        out = sys.argv[2]
        for p in schema_files():
            rel = os.path.relpath(p, SCHEMAS)
            dest = os.path.join(out, rel)
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            doc = load(p)
            doc["$id"] = "file://" + urllib.parse.quote(os.path.abspath(dest))
            with open(dest, "w", encoding="utf-8") as f:
                json.dump(doc, f, ensure_ascii=False)
        return 0
    if sys.argv[1:] != ["check"]:
        print(__doc__, file=sys.stderr)
        return 64
    reg = registry()
    tags_by_topic = {t: [b["properties"]["type"]["const"] for b in load(os.path.join(SCHEMAS, t + ".json"))["oneOf"]
                         if "properties" in b] for t in TOPICS}
    rows = load(os.path.join(FIXTURES, "expectations.json"))
    check_schema_files(reg)
    check_manifest(rows, tags_by_topic)
    check_shapes(rows, tags_by_topic)
    check_rejections(rows, reg, tags_by_topic)
    check_goldens(rows, reg)
    check_asyncapi(tags_by_topic)
    print("RESULT passed=%d failed=%d" % (results.count(True), results.count(False)))
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
