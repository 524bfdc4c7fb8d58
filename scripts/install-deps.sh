#!/usr/bin/env bash
# Installs what glassbox builds and tests with, skipping whatever is already there. Safe to run again.
#   Debian: compilers and CMake (and g++'s ThreadSanitizer runtime, libtsan2, and its AddressSanitizer and
#           UndefinedBehaviorSanitizer runtimes, libasan8 and libubsan1, for scripts/test.sh; clang-14 and
#           libclang-rt-14-dev, whose libFuzzer, ASan and UBSan scripts/fuzz.sh builds with), xsimd,
#           GoogleTest, RapidJSON (JSON), CLI11 (the CLI's flags), Emscripten, wabt, Chromium (browser
#           tests), NumPy (the independent reference)
#   npm:    the page's build tools and playwright-core (package-lock.json), and llama.cpp's prebuilt Node
#           binding for the cross-checks (tests/peers/package-lock.json)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
packages=(cmake ninja-build g++ libtsan2 libasan8 libubsan1 clang-14 libclang-rt-14-dev libxsimd-dev libgtest-dev libgmock-dev rapidjson-dev libcli11-dev emscripten wabt chromium firefox-esr webkit2gtk-driver xvfb ccache python3-numpy
          ca-certificates curl)

missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all Debian packages present"
else
  echo "install-deps: installing ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

cd "$root"
# npm ci starts from scratch each time; skip it when node_modules already matches the lock file.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi
if [ ! -f tests/peers/node_modules/.package-lock.json ] ||
   [ tests/peers/package-lock.json -nt tests/peers/node_modules/.package-lock.json ]; then
  # Only the CPU build of llama.cpp: its optional GPU packages are hundreds of megabytes. (npm install, not
  # npm ci: node-llama-cpp names optional packages for other platforms that are not published at its
  # version, which npm leaves out of the lock file and npm ci then refuses. The lock file still pins
  # everything that is installed.)
  (cd tests/peers && NODE_LLAMA_CPP_SKIP_DOWNLOAD=true npm install --omit=optional --no-audit --no-fund)
fi
