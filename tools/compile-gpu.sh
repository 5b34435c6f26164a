#!/usr/bin/env bash
# Compiles (does not run) every CUDA and nvJPEG source, the GPU tests included, so GPU code
# never breaks silently on a machine without a GPU (CI). nvJPEG's header and library come from
# the CUDA toolkit, or else from PyPI's nvidia-nvjpeg wheel (downloaded once into build/).
# Skips with a message when there is no nvcc.
set -euo pipefail
cd "$(dirname "$0")/.."

nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
if [ ! -x "$nvcc" ]; then
  echo "compile-gpu.sh: no nvcc: skipping the CUDA compile check"
  exit 0
fi
root=()
cuda_home=$(dirname "$(dirname "$(readlink -f "$nvcc")")")
if ! find "$cuda_home" -name nvjpeg.h -print -quit 2> /dev/null | grep -q .; then
  wheel=build/nvjpeg-wheel
  if [ ! -f "$wheel/nvidia/cu13/include/nvjpeg.h" ]; then
    rm -rf "$wheel"
    .venv/bin/python -m pip download -q --no-deps --only-binary=:all: 'nvidia-nvjpeg>=13,<14' -d "$wheel"
    .venv/bin/python -m zipfile -e "$wheel"/nvidia_nvjpeg-*.whl "$wheel"
  fi
  root=(-DSLUICE_NVJPEG_ROOT="$PWD/$wheel/nvidia/cu13")
fi
# The gpu preset (CMakePresets.json), with this machine's nvcc and nvJPEG.
if command -v ninja > /dev/null; then export CMAKE_GENERATOR=${CMAKE_GENERATOR:-Ninja}; fi
mkdir -p build
cmake --preset gpu -DCMAKE_CUDA_COMPILER="$nvcc" "${root[@]}" > build/gpu.configure.log 2>&1 ||
  { cat build/gpu.configure.log; exit 1; }
t0=$SECONDS
cmake --build --preset gpu -j "$(nproc)" > build/gpu/build.log 2>&1 ||
  { grep -E "error" -A5 build/gpu/build.log | head -60; exit 1; }
# The standalone probes (bench/lab/), compiled only: they are built and run on the GPU machine.
include=()
[ ${#root[@]} -gt 0 ] && include=(-I"$PWD/$wheel/nvidia/cu13/include")
mkdir -p build/gpu/lab
for probe in nvjpeg_hw_probe nvjpeg_context_probe; do
  "$nvcc" -std=c++17 -O2 -arch=sm_90 "${include[@]}" -c "bench/lab/$probe.cu" \
    -o "build/gpu/lab/$probe.o" || exit 1
done
"$nvcc" -std=c++20 -O3 -arch=sm_90 --expt-relaxed-constexpr -Isrc -c bench/lab/warp_variants.cu \
  -o build/gpu/lab/warp_variants.o || exit 1
echo "compile-gpu.sh: CUDA + nvJPEG sources and GPU tests compiled in $((SECONDS - t0)) s"
