#!/usr/bin/env bash
# CI, before deploy: the schemas of this change against the last release's, read from git.
#   scripts/schema-check.sh [REV] [schema check options…]
# REV defaults to the latest tag (else origin/main). Exit 0 compatible both ways, 1 a breaking change
# (each verdict says why and which side deploys first; acknowledge one with
# --allow POINTER --reason TEXT), 64 usage, 65 an unreadable schema.
set -euo pipefail
cd "$(dirname "$0")/.."
rev=${1:-$(git describe --tags --abbrev=0 2>/dev/null || echo origin/main)}
[ $# -eq 0 ] || shift
swift build --product orders-switchyard >&2
exec "$(swift build --show-bin-path)/orders-switchyard" schema check --against "$rev" Sources/Orders "$@"
