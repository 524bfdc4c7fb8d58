#!/usr/bin/env bash
# Fills models/ (git-ignored) with the files listed in scripts/models.txt.
#   scripts/fetch-models.sh               download from the public URLs
#   scripts/fetch-models.sh MIRROR_DIR    copy from a local folder holding the same files (CI: ../shared/models)
# Every file is checked against its sha256; files already present and correct are left alone.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
mirror="${1:-}"
mkdir -p "$root/models"

if [ -n "$mirror" ] && [ ! -d "$mirror" ]; then
  echo "fetch-models: mirror folder '$mirror' does not exist" >&2
  exit 1
fi

verified() { [ -f "$1" ] && echo "$2  $1" | sha256sum --check --status; }

status=0
while read -r name sum url; do
  case "$name" in ''|'#'*) continue ;; esac
  target="$root/models/$name"
  if verified "$target" "$sum"; then
    echo "fetch-models: $name ok"
    continue
  fi
  # A file that cannot be had is reported and the others are still tried; the exit status says it failed.
  if [ -n "$mirror" ]; then
    from="$mirror/$name"
    [ -f "$from" ] || from="$mirror/../corpus/$name"  # texts live beside the models (../shared/corpus)
    if ! cp "$from" "$target.part"; then
      echo "fetch-models: $name is not in the mirror folder $mirror" >&2
      status=1
      continue
    fi
  else
    echo "fetch-models: downloading $name from $url"
    if command -v curl >/dev/null; then
      fetched() { curl -fL --retry 3 -o "$target.part" "$url"; }
    else
      fetched() { wget -q -O "$target.part" "$url"; }
    fi
    if ! fetched; then
      rm -f "$target.part"
      echo "fetch-models: could not download $name from $url" >&2
      status=1
      continue
    fi
  fi
  if verified "$target.part" "$sum"; then
    mv "$target.part" "$target"
    echo "fetch-models: $name ok"
  else
    rm -f "$target.part"
    echo "fetch-models: $name does not match its sha256 ($sum)" >&2
    status=1
  fi
done < "$root/scripts/models.txt"
exit $status
