#!/usr/bin/env bash
# Installs heddle's build dependencies (Debian packages) when missing and
# builds heddle into ./build. Idempotent and quiet when all is there.
set -euo pipefail
cd "$(dirname "$0")"
packages=(g++ meson ninja-build pkg-config libboost-context-dev catch2 libspdlog-dev libfmt-dev
          nlohmann-json3-dev libcli11-dev zlib1g-dev tao-pegtl-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
fi
if [ ! -f build/build.ninja ]; then
  meson setup build --buildtype=release >/dev/null
fi
ninja -C build >/dev/null || ninja -C build
