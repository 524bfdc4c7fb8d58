#!/usr/bin/env bash
# One command from a fresh Debian machine to a working glassbox: system packages, the models, the build.
#   scripts/setup.sh [MODELS_MIRROR_DIR]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/install-deps.sh"
"$root/scripts/fetch-models.sh" "$@"
"$root/scripts/build.sh"
echo
echo "Ready. Try: build/glassbox generate --model models/stories260K.bin --tokenizer models/tok512.bin --prompt \"Once upon a time\""
