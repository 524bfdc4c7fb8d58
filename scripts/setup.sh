#!/usr/bin/env bash
# One command from a fresh Debian bookworm machine to the page running with stories260K:
# Debian and npm packages, the models into models/, the native and WebAssembly builds, the page, and then
# a local server for it (Ctrl-C stops it).
#   scripts/setup.sh                      download the models from their public URLs
#   scripts/setup.sh ../shared/models     copy them from a local mirror folder
#   GLASSBOX_NO_SERVE=1 scripts/setup.sh  everything but the server
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/install-deps.sh"
"$root/scripts/fetch-models.sh" "$@"
"$root/scripts/build.sh"
echo
echo "Built. The CLI: build/glassbox generate --model models/stories260K.bin --tokenizer models/tok512.bin --prompt \"Once upon a time\""
if [ -z "${GLASSBOX_NO_SERVE:-}" ]; then
  echo "Serving the page (stories260K preloaded); open the address below, Ctrl-C to stop."
  cd "$root" && exec npm run serve
fi
