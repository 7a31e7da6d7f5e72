#!/usr/bin/env bash
# Installs heddle's build dependencies (Debian packages) when missing and
# builds heddle into ./build (the default targets: the CLI and libraries;
# test/run_tests.sh builds the suite). Idempotent and quiet when all is there.
set -euo pipefail
cd "$(dirname "$0")"
packages=(g++ meson ninja-build pkg-config libboost-context-dev catch2 libspdlog-dev libfmt-dev
          nlohmann-json3-dev libcli11-dev zlib1g-dev tao-pegtl-dev python3 python3-venv)
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
# Python for the Pallas front end (models/pallas/python): JAX on the CPU in a
# git-ignored virtual environment, made only when missing. Optional: heddle
# builds and its C++ tests run without it; the pytest suite needs it.
jax_version=0.8.2
# absl-py: jax.experimental.pallas.mosaic_gpu (the plgpu route) imports it.
if ! .venv/bin/python -c "import jax, pytest, absl; assert jax.__version__ == '$jax_version'" 2>/dev/null; then
  echo "setup: installing JAX $jax_version (CPU) into .venv"
  if ! { { [ -x .venv/bin/python ] || python3 -m venv .venv; } &&
         .venv/bin/python -m pip install -q --disable-pip-version-check \
           "jax==$jax_version" "jaxlib==$jax_version" pytest absl-py >/dev/null; }; then
    echo "setup: warning: could not install JAX into .venv; the Pallas pytest suite will be skipped" >&2
  fi
fi
# heddle_pallas itself, editable, so pytest finds it (and its --heddle
# plugin) without a path hack; installed when missing, like JAX.
if [ -x .venv/bin/python ] && ! .venv/bin/python -c "import heddle_pallas.plugin" 2>/dev/null; then
  echo "setup: installing heddle_pallas (models/pallas/python) into .venv"
  .venv/bin/python -m pip install -q --disable-pip-version-check --no-deps \
    -e models/pallas/python >/dev/null ||
    echo "setup: warning: could not install heddle_pallas into .venv" >&2
fi
if [ ! -f build/build.ninja ]; then
  meson setup build --buildtype=release >/dev/null
fi
ninja -C build >/dev/null || ninja -C build
