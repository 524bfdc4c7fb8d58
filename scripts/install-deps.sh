#!/usr/bin/env bash
# Installs the Debian packages glassbox builds and tests with, skipping any already installed.
# Safe to run again and again.
set -euo pipefail
packages=(cmake ninja-build g++ libxsimd-dev libgtest-dev libgmock-dev ca-certificates curl)

missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all Debian packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
sudo_cmd=()
[ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
"${sudo_cmd[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
