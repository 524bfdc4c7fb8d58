#!/usr/bin/env bash
# Builds what changed and runs every test. Tests that need a model file skip when it is absent, unless
# GLASSBOX_REQUIRE_MODELS=1 (as in CI), which makes them fail instead.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/build.sh"
ctest --test-dir "$root/build" --output-on-failure --parallel 2
