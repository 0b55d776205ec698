#!/usr/bin/env bash
# Runs the whole suite (the e2e tier on the newest Argo CD built), then the lifecycle loop on the oldest
# (README "Compatibility"); with arguments, only `pytest ARGS`. pytest exits 5 when it collects nothing:
# that is a failure here, never a pass.
set -uo pipefail
cd "$(dirname "$0")/.."
run() {
  .venv/bin/pytest "$@"
  local rc=$?
  if [ "$rc" -eq 5 ]; then echo "pytest collected no tests: failing on purpose" >&2; return 1; fi
  return "$rc"
}
if [ $# -gt 0 ]; then run "$@"; exit $?; fi
run || exit $?
oldest=$(.venv/bin/python -c 'from tests.argocd_versions import OLDEST; print(OLDEST.minor)') || exit 1
echo "== the lifecycle loop on Argo CD $oldest (the oldest built)"
ARGOCD_LIFECYCLE_E2E_ARGOCD=$oldest run -p no:cacheprovider tests/e2e/test_e2e_loop.py
