#!/usr/bin/env python3
"""Static checks of deploy/Dockerfile, since no Docker engine runs here to build it.

Checks what the file says, not what a build would do: that it is multi-stage, that the build
stage is a Swift image on Debian 12 and builds the `switchyard` product in release with the Swift
runtime linked statically, that the final stage is debian:bookworm-slim and installs the runtime
libraries, runs as a numeric non-root user, and starts `switchyard consume --config ...`, and that
every file it COPYs from the context exists and is not excluded by .dockerignore. Where apt's
package lists are present, it also asks apt-cache whether each runtime package exists in this
machine's Debian release (the runtime image's release, bookworm).

With --binary PATH (a `swift build -c release --static-swift-stdlib` binary built on Debian 12,
as the build stage does), it also maps every shared library that ldd reports to its Debian
package and checks that each one is installed by the runtime stage, is a dependency of one that
is, or is in debian:bookworm-slim itself.

Prints `ok   ...` / `FAIL ...` lines and a last line `RESULT passed=N failed=M`; exit 1 if M > 0.
"""
import argparse
import fnmatch
import json
import os
import re
import shlex
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Packages of debian:bookworm-slim that a binary may rely on without installing them (the image
# carries apt, which depends on libstdc++6 and libgcc-s1; libc6 is essential).
SLIM_BASE = {"libc6", "libgcc-s1", "libstdc++6", "zlib1g"}
RUNTIME_PACKAGES = ["librdkafka1", "libmicrohttpd12", "ca-certificates"]

passed = failed = 0


def check(ok, label, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok   {label}")
    else:
        failed += 1
        print(f"FAIL {label}{': ' + detail if detail else ''}")


def instructions(path):
    """(KEYWORD, argument text) for each instruction; continuations joined, comments dropped."""
    out, buf = [], ""
    for raw in open(path, encoding="utf-8"):
        line = raw.rstrip("\n")
        if not buf and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if buf and line.lstrip().startswith("#"):
            continue  # a comment inside a continued instruction
        if line.endswith("\\"):
            buf += line[:-1] + " "
            continue
        buf += line
        keyword, _, rest = buf.strip().partition(" ")
        out.append((keyword.upper(), rest.strip()))
        buf = ""
    return out


def stages(instrs):
    """[(from_argument, [instructions])], the ARGs before the first FROM left out."""
    result = []
    for keyword, rest in instrs:
        if keyword == "FROM":
            result.append((rest, []))
        elif result:
            result[-1][1].append((keyword, rest))
    return result


def exec_form(rest):
    try:
        value = json.loads(rest)
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, list) and all(isinstance(v, str) for v in value) else None


def apt_installs(stage_instrs):
    pkgs = set()
    for keyword, rest in stage_instrs:
        if keyword != "RUN":
            continue
        for part in re.split(r"&&|;", rest):
            words = shlex.split(part)
            if "apt-get" in words and "install" in words:
                pkgs.update(w for w in words[words.index("install") + 1:] if not w.startswith("-"))
    return pkgs


def dockerignored(relpath, patterns):
    ignored = False
    for pattern in patterns:
        negate = pattern.startswith("!")
        p = pattern[1:] if negate else pattern
        p = p.strip("/")
        if fnmatch.fnmatch(relpath, p) or relpath.startswith(p + "/"):
            ignored = not negate
    return ignored


def installed_closure(packages):
    """The packages and, recursively, what dpkg says they depend on (installed ones only)."""
    seen, todo = set(), list(packages)
    while todo:
        pkg = todo.pop()
        if pkg in seen:
            continue
        seen.add(pkg)
        r = subprocess.run(["dpkg-query", "-W", "-f=${Depends},${Pre-Depends}", pkg], capture_output=True, text=True)
        for alt in re.split(r"[,|]", r.stdout):
            name = alt.strip().split(" ")[0].split(":")[0]
            if name:
                todo.append(name)
    return seen


def package_of(library_path):
    candidates = {library_path, os.path.realpath(library_path)}
    for c in list(candidates):  # usrmerge: dpkg may know /lib/... or /usr/lib/...
        candidates.add(c[4:] if c.startswith("/usr/") else "/usr" + c)
    for c in candidates:
        r = subprocess.run(["dpkg-query", "-S", c], capture_output=True, text=True)
        if r.returncode == 0:
            return r.stdout.split(":")[0].strip()
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dockerfile", nargs="?", default=os.path.join(ROOT, "deploy", "Dockerfile"))
    ap.add_argument("--binary", help="a release switchyard binary to check with ldd against the runtime stage")
    args = ap.parse_args()

    st = stages(instructions(args.dockerfile))
    check(len(st) >= 2, f"multi-stage: {len(st)} FROM instructions")
    if len(st) < 2:
        return
    build_from, build = st[0]
    runtime_from, runtime = st[-1]
    build_image = build_from.split()[0]
    check(re.fullmatch(r"swift:(\$\{SWIFT_VERSION\}|6[.0-9]*)-bookworm", build_image) is not None,
          f"build stage is an official Swift 6.x image on Debian 12: {build_image}")
    build_pkgs = apt_installs(build)
    check({"librdkafka-dev", "libmicrohttpd-dev"} <= build_pkgs,
          f"build stage installs librdkafka-dev and libmicrohttpd-dev: {sorted(build_pkgs)}")
    build_cmds = [shlex.split(part) for k, r in build if k == "RUN" for part in re.split(r"&&|;", r)]
    swift_build = [w for w in build_cmds if w[:2] == ["swift", "build"] and "--product" in w]
    ok = any(w[w.index("--product") + 1] == "switchyard" and "--static-swift-stdlib" in w
             and ("-c" in w and w[w.index("-c") + 1] == "release") for w in swift_build)
    check(ok, "build stage runs swift build -c release --product switchyard --static-swift-stdlib")

    check(runtime_from.split()[0] == "debian:bookworm-slim", f"runtime stage is debian:bookworm-slim: {runtime_from}")
    runtime_pkgs = apt_installs(runtime)
    check(set(RUNTIME_PACKAGES) <= runtime_pkgs,
          f"runtime stage installs {' '.join(RUNTIME_PACKAGES)}: {sorted(runtime_pkgs)}")
    check(not any(p.endswith("-dev") for p in runtime_pkgs), "runtime stage installs no -dev package")
    copies = [r for k, r in runtime if k == "COPY" and r.startswith("--from=")]
    check(any("switchyard" in r for r in copies), "runtime stage copies the switchyard binary from the build stage")

    users = [r for k, r in runtime if k == "USER"]
    user = users[-1].split(":")[0] if users else "root"
    check(user.isdigit() and int(user) != 0,
          f"runtime USER is a numeric non-root uid (runAsNonRoot can verify it): {user}")
    entry = [exec_form(r) for k, r in runtime if k == "ENTRYPOINT"]
    check(bool(entry) and entry[-1] == ["switchyard"], f"ENTRYPOINT is exec-form [\"switchyard\"]: {entry[-1:] }")
    cmd = [exec_form(r) for k, r in runtime if k == "CMD"]
    check(bool(cmd) and cmd[-1] == ["consume", "--config", "/etc/switchyard/config.json"],
          f"CMD is [\"consume\", \"--config\", \"/etc/switchyard/config.json\"]: {cmd[-1:]}")
    exposed = [p for k, r in runtime if k == "EXPOSE" for p in r.split()]
    check("9464" in exposed or "9464/tcp" in exposed, f"EXPOSE 9464 (metrics port): {exposed}")

    ignore_file = os.path.join(ROOT, ".dockerignore")
    patterns = [l.strip() for l in open(ignore_file)] if os.path.exists(ignore_file) else []
    patterns = [p for p in patterns if p and not p.startswith("#")]
    for _, stage in st:
        for keyword, rest in stage:
            if keyword not in ("COPY", "ADD") or "--from=" in rest:
                continue
            words = [w for w in (exec_form(rest) or shlex.split(rest)) if not w.startswith("--")]
            for src in words[:-1]:
                rel = os.path.normpath(src).lstrip("./") or "."
                check(os.path.exists(os.path.join(ROOT, src)) and not dockerignored(rel, patterns),
                      f"COPY source {src} exists in the context and is not in .dockerignore")

    if subprocess.run(["apt-cache", "show", "libc6"], capture_output=True).returncode == 0:
        for pkg in sorted(runtime_pkgs):
            r = subprocess.run(["apt-cache", "show", pkg], capture_output=True)
            check(r.returncode == 0, f"Debian package {pkg} exists in this machine's release")
    else:
        print("skip apt-cache has no package lists (run apt-get update): runtime package names not looked up")

    if args.binary:
        r = subprocess.run(["ldd", args.binary], capture_output=True, text=True)
        check(r.returncode == 0, f"ldd {args.binary}", r.stderr.strip())
        libs = re.findall(r"=>\s*(\S+)", r.stdout)
        check(not any("/swift/" in lib for lib in libs), "binary needs no Swift runtime library (static stdlib)",
              " ".join(l for l in libs if "/swift/" in l))
        allowed = installed_closure(runtime_pkgs | SLIM_BASE)
        for lib in libs:
            pkg = package_of(lib)
            check(pkg in allowed, f"{os.path.basename(lib)} comes from {pkg}, which the runtime image has")


if __name__ == "__main__":
    main()
    print(f"RESULT passed={passed} failed={failed}")
    sys.exit(1 if failed else 0)
