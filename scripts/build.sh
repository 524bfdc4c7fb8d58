#!/usr/bin/env bash
# Builds what changed, configuring each build folder the first time:
#   build/       the native engine and the `glassbox` CLI (Release)
#   build-wasm/  the same core compiled to WebAssembly SIMD: the page's engine modules (single-threaded, and
#                threaded with pthreads: glassbox-engine-threads)
#   dist/        the static web page (npm run build)
# and, with --tests, the GoogleTest suite in build/ and in build-wasm/ (scripts/test.sh asks for them; set-up
# does not, so a new user waits only for what the page and the CLI need).
#   scripts/build.sh [--tests] [native]   native: only build/ (no Emscripten or npm needed)
# Objects go through ccache when it is installed, native ones as CMake's compiler launcher and WebAssembly
# ones as Emscripten's compiler wrapper (EM_COMPILER_WRAPPER); CCACHE_BASEDIR lets clones share the cache.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

tests=0
native_only=0
for arg in "$@"; do
  case "$arg" in
    --tests) tests=1 ;;
    native) native_only=1 ;;
    *) echo "build.sh: unknown argument '$arg' (expected --tests or native)" >&2; exit 2 ;;
  esac
done

launcher=()
if command -v ccache >/dev/null 2>&1; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1 EM_COMPILER_WRAPPER=ccache
fi

if [ ! -f build/CMakeCache.txt ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "${launcher[@]}"
fi
native_targets=(glassbox)
[ "$tests" = 1 ] && native_targets+=(glassbox_tests)
cmake --build build --parallel --target "${native_targets[@]}"
[ "$native_only" = 1 ] && exit 0

# Emscripten's optimizer imports Debian's acorn, which lives outside Node's default module path.
export NODE_PATH="${NODE_PATH:-/usr/share/nodejs}"
if [ ! -f build-wasm/CMakeCache.txt ]; then
  # The WASM test suite reads the reference fixtures the native tests write into build/ (tests/CMakeLists.txt).
  emcmake cmake -S . -B build-wasm -G Ninja -DCMAKE_BUILD_TYPE=Release -DGLASSBOX_NATIVE_BUILD_DIR="$root/build"
fi
wasm_targets=(glassbox_engine glassbox_engine_threads)
[ "$tests" = 1 ] && wasm_targets+=(glassbox_tests)
cmake --build build-wasm --parallel --target "${wasm_targets[@]}"

# The page: rebuilt only when its sources, the engine modules or the build's configuration changed.
page_inputs=(web wasm models package.json package-lock.json vite.config.mjs tsconfig.json
             build-wasm/glassbox-engine.mjs build-wasm/glassbox-engine.wasm build-wasm/glassbox-engine-threads.mjs
             build-wasm/glassbox-engine-threads.wasm build-wasm/glassbox-engine-threads.worker.js)
stamp=dist/.built
changed=""
[ -f "$stamp" ] && changed="$(find -L "${page_inputs[@]}" -newer "$stamp" -type f -print -quit 2>/dev/null || true)"
if [ ! -f "$stamp" ] || [ -n "$changed" ]; then
  npm run build
  touch "$stamp"
else
  echo "build.sh: dist/ is up to date"
fi
