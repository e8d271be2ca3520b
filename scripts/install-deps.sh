#!/usr/bin/env bash
# Installs what Switchyard needs on a fresh Debian 12 machine: Debian packages (only the missing
# ones, so a warm machine pays nothing) and a Python venv with the test and benchmark tools.
set -euo pipefail
cd "$(dirname "$0")/.."

# zsh and fish: the CLI tests load `switchyard completion zsh|fish` in them.
packages=(librdkafka-dev libmicrohttpd-dev libsimdjson-dev kcat prometheus pkg-config zlib1g-dev time util-linux zsh fish)
# A target's own extra tools (make worker-instructions: valgrind), installed the same way.
packages+=(${SWITCHYARD_EXTRA_PACKAGES:-})
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "install-deps: installing Debian packages: ${missing[*]}" >&2
    sudo_cmd=()
    [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
    "${sudo_cmd[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    # The Debian prometheus package starts a system service; the project runs its own instances.
    if command -v systemctl >/dev/null 2>&1; then "${sudo_cmd[@]}" systemctl stop prometheus >/dev/null 2>&1 || true; fi
fi

# Python tools for contract tests and benchmarks, pinned, in a project-local venv.
if [ ! -x .venv/bin/check-jsonschema ] || ! .venv/bin/python -c 'import msgspec, pydantic, confluent_kafka' 2>/dev/null; then
    echo "install-deps: creating .venv with the Python test tools" >&2
    python3 -m venv .venv
    .venv/bin/pip install -q --disable-pip-version-check -r scripts/requirements.txt
fi
