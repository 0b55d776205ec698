#!/usr/bin/env bash
# Runs the whole suite. pytest exits 5 when it collects nothing: that is a failure here, never a pass.
set -uo pipefail
cd "$(dirname "$0")/.."
.venv/bin/pytest "$@"
rc=$?
if [ "$rc" -eq 5 ]; then echo "pytest collected no tests: failing on purpose" >&2; exit 1; fi
exit "$rc"
