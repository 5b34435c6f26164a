#!/usr/bin/env bash
# Installs what Sluice needs on a fresh Debian/Ubuntu machine and builds it into .venv.
#   bash tools/setup.sh           the library and the `sluice` command
#   bash tools/setup.sh --tests   also the C++ test binaries and NVIDIA DALI 2.4 in .venv-dali,
#                                 the reference the tests compare with (for tools/test.sh)
#   --quiet                       no plan and no progress, only errors (CI)
set -euo pipefail
cd "$(dirname "$0")/.."

tests=OFF
quiet=0
for a in "$@"; do
  case "$a" in
    --tests) tests=ON ;;
    --quiet) quiet=1 ;;
    -h | --help) sed -n '2,6p' "$0" | cut -c3-; exit 0 ;;
    *) echo "setup.sh: unknown option '$a' (options: --tests, --quiet)" >&2; exit 2 ;;
  esac
done
say() { if [ "$quiet" = 0 ]; then echo "setup.sh: $*"; fi; }

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo > /dev/null || { echo "setup.sh: run as root, or install sudo" >&2; exit 1; }
  sudo=sudo
fi
pkgs="build-essential cmake ninja-build git python3 python3-dev python3-venv python3-pip
      libjpeg-dev libpng-dev libtiff-dev libwebp-dev libopenjp2-7-dev liblmdb-dev libcurl4-openssl-dev
      nlohmann-json3-dev rapidjson-dev libgtest-dev libgmock-dev
      python3-numpy python3-pil python3-pytest python3-tqdm python3-psutil python3-matplotlib"
# CPU builds of torch/torchvision from the distribution (for the side-by-side benchmark and the
# PyTorch plugin tests) where it has them; PyPI's wheels bring gigabytes of CUDA libraries.
extra="python3-torch python3-torchvision"

if [ "$quiet" = 0 ]; then
  cat << EOF
setup.sh will
  1. install Debian packages with apt-get${sudo:+ (through sudo: it may ask for your password)},
     unless they are installed already: compilers, CMake and Ninja, the libjpeg/libpng headers,
     numpy, Pillow, pytest, tqdm, psutil, matplotlib, and the distribution's CPU builds of torch and
     torchvision (python3-torch, python3-torchvision; for \`sluice bench\` and the PyTorch plugin)
  2. make a Python environment in .venv that sees those packages
  3. build Sluice's C++ library$([ $tests = ON ] && echo " and its C++ tests") and install it with the \`sluice\` command into .venv
     (the longest step: minutes on a small machine; its progress shows below)
EOF
  if [ "$tests" = ON ]; then
    echo "  4. install NVIDIA DALI 2.4 from PyPI into .venv-dali (about 750 MB installed), the"
    echo "     reference the tests compare with"
  fi
fi

# apt-get, waiting (10 minutes at most) while another process (apt, dpkg, unattended-upgrades)
# holds apt's lock instead of failing at once.
apt_get() {
  local log waited=0
  log=$(mktemp)
  while true; do
    if [ "$quiet" = 1 ]; then
      $sudo env DEBIAN_FRONTEND=noninteractive apt-get -qq "$@" > "$log" 2>&1 && break
    else
      $sudo env DEBIAN_FRONTEND=noninteractive apt-get -q "$@" 2>&1 | tee "$log" && break
    fi
    if grep -q "Could not get lock\|Unable to acquire\|Unable to lock" "$log" && [ $waited -lt 600 ]; then
      [ $waited = 0 ] && echo "setup.sh: another process holds apt's lock (apt, dpkg or" \
        "unattended-upgrades); waiting for it, 10 minutes at most ..." >&2
      sleep 10
      waited=$((waited + 10))
      continue
    fi
    [ "$quiet" = 1 ] && cat "$log" >&2
    rm -f "$log"
    echo "setup.sh: apt-get $1 failed" >&2
    return 1
  done
  rm -f "$log"
}

missing=""
for p in $pkgs $extra; do dpkg -s "$p" > /dev/null 2>&1 || missing="$missing $p"; done
if [ -z "$missing" ]; then
  say "[1] the Debian packages are installed already"
else
  say "[1] installing Debian packages:$missing"
  apt_get update
  install=""
  for p in $missing; do
    # torch and torchvision only where the distribution has them.
    if [[ " $extra " != *" $p "* ]] || apt-cache show "$p" > /dev/null 2>&1; then
      install="$install $p"
    fi
  done
  # shellcheck disable=SC2086 # a list of packages
  if [ -n "$install" ]; then apt_get install -y --no-install-recommends $install; fi
fi

# A venv over the system Python, so the distribution's numpy/torch are visible.
py=/usr/bin/python3
[ -x "$py" ] || py=python3
if [ ! -x .venv/bin/python ]; then
  say "[2] making the Python environment .venv"
  "$py" -m venv --system-site-packages .venv
fi
.venv/bin/python -m pip install -q --upgrade pip

# pip configures with the python preset (pyproject.toml, CMakePresets.json) into build/cp3*/.
say "[3] building Sluice (C++) and installing it into .venv"
mkdir -p build
log=build/setup-build.log
build=(.venv/bin/python -m pip install . "-Ccmake.define.SLUICE_BUILD_TESTS=$tests")
if [ "$quiet" = 1 ]; then
  status=0
  "${build[@]}" -q > "$log" 2>&1 || status=$?
else
  # The build's own progress ("[37/140] Building ..." from ninja), as a percentage: on a
  # terminal one line rewritten in place, elsewhere a line every 10%.
  status=0
  "${build[@]}" -v 2>&1 | tee "$log" | awk -v tty="$([ -t 1 ] && echo 1 || echo 0)" '
    /^-- Configuring done/ { print "  configured (CMake)"; fflush() }
    /^\[[0-9]+\/[0-9]+\]/ {
      split(substr($1, 2, length($1) - 2), a, "/"); pct = int(100 * a[1] / a[2])
      if (tty == 1) { printf "\r  compiling: %3d%% (%d of %d steps) ", pct, a[1], a[2]; fflush() }
      else if (pct >= next_pct) { printf "  compiling: %3d%% (%d of %d steps)\n", pct, a[1], a[2]
                                  fflush(); next_pct = pct - pct % 10 + 10 }
    }
    END { if (tty == 1) print "" }' || status=$?
fi
if [ "$status" -ne 0 ]; then
  tail -n 40 "$log" >&2
  echo "setup.sh: the build failed (the whole log: $log)" >&2
  exit 1
fi
say "    done: $(.venv/bin/sluice --version) in .venv (.venv/bin/sluice)"

# moto's standalone S3 server: the object-storage tests start it on 127.0.0.1 (they skip without).
if [ "$tests" = ON ] && [ ! -x .venv/bin/moto_server ]; then
  say "    installing moto[server] into .venv (the S3-compatible server of the tests)"
  .venv/bin/python -m pip install -q "moto[server]" ||
    echo "setup.sh: moto[server] could not be installed; the S3 tests will skip" >&2
fi

# NVIDIA DALI 2.4, the reference the operator tests compare with, in a venv of its own (it
# brings numpy 2). Without it those comparisons skip.
if [ "$tests" = ON ] && [ ! -x .venv-dali/bin/python ]; then
  say "[4] installing NVIDIA DALI 2.4 into .venv-dali (about 750 MB installed)"
  if ! { "$py" -m venv .venv-dali && .venv-dali/bin/python -m pip install -q nvidia-dali-cuda130==2.4.0 pillow; }; then
    echo "setup.sh: DALI 2.4 could not be installed; the tests that compare with it will skip" >&2
    rm -rf .venv-dali
  fi
fi
say "ready$([ $tests = ON ] && echo ": run the tests with bash tools/test.sh" || echo ": try .venv/bin/sluice bench")"
