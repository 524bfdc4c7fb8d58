#!/usr/bin/env bash
# Builds everything, configuring each build folder the first time:
#   build/       the native engine, the `glassbox` CLI and the GoogleTest suite (Release)
#   build-wasm/  the same core compiled to WebAssembly SIMD: the page's engine modules (single-threaded, and
#                threaded with pthreads: glassbox-engine-threads) and the test suite
#   dist/        the static web page (npm run build)
# scripts/build.sh native   builds only build/ (no Emscripten or npm needed).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

if [ ! -f build/CMakeCache.txt ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
fi
cmake --build build --parallel
[ "${1:-}" = native ] && exit 0

# Emscripten's optimizer imports Debian's acorn, which lives outside Node's default module path.
export NODE_PATH="${NODE_PATH:-/usr/share/nodejs}"
if [ ! -f build-wasm/CMakeCache.txt ]; then
  # The WASM test suite reads the reference fixtures the native tests write into build/ (tests/CMakeLists.txt).
  emcmake cmake -S . -B build-wasm -G Ninja -DCMAKE_BUILD_TYPE=Release -DGLASSBOX_NATIVE_BUILD_DIR="$root/build"
fi
cmake --build build-wasm --parallel

npm run build
