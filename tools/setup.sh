#!/usr/bin/env bash
# Installs what Sluice needs on a fresh Debian/Ubuntu machine and builds it into .venv.
#   bash tools/setup.sh           the library and the `sluice` command
#   bash tools/setup.sh --tests   also the C++ test binaries and NVIDIA DALI 2.4 in .venv-dali,
#                                 the reference the tests compare with (for tools/test.sh)
set -euo pipefail
cd "$(dirname "$0")/.."

tests=OFF
[ "${1:-}" = "--tests" ] && tests=ON

sudo=""
[ "$(id -u)" -ne 0 ] && sudo=sudo
pkgs="build-essential cmake git python3 python3-dev python3-venv python3-pip
      libjpeg-dev libpng-dev nlohmann-json3-dev libgtest-dev libgmock-dev
      python3-numpy python3-pil python3-pytest python3-tqdm python3-psutil python3-matplotlib"
$sudo apt-get update -qq
# CPU builds of torch/torchvision from the distribution (for the side-by-side benchmark and the
# PyTorch plugin tests) where it has them; PyPI's wheels bring gigabytes of CUDA libraries.
for p in python3-torch python3-torchvision; do
  if apt-cache show "$p" > /dev/null 2>&1; then pkgs="$pkgs $p"; fi
done
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $pkgs > /dev/null

# A venv over the system Python, so the distribution's numpy/torch are visible.
py=/usr/bin/python3
[ -x "$py" ] || py=python3
[ -x .venv/bin/python ] || "$py" -m venv --system-site-packages .venv
.venv/bin/python -m pip install -q --upgrade pip
# pip configures with the python preset (pyproject.toml, CMakePresets.json) into build/cp3*/.
.venv/bin/python -m pip install -q . -Ccmake.define.SLUICE_BUILD_TESTS=$tests

# NVIDIA DALI 2.4, the reference the operator tests compare with, in a venv of its own (it
# brings numpy 2). Without it those comparisons skip.
if [ "$tests" = ON ] && [ ! -x .venv-dali/bin/python ]; then
  if ! { "$py" -m venv .venv-dali && .venv-dali/bin/python -m pip install -q nvidia-dali-cuda130==2.4.0 pillow; }; then
    echo "setup.sh: DALI 2.4 could not be installed; the tests that compare with it will skip" >&2
    rm -rf .venv-dali
  fi
fi
