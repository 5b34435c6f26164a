#!/usr/bin/env bash
# Compiles (does not run) every CUDA and nvJPEG source, the GPU tests included, so GPU code
# never breaks silently on a machine without a GPU (CI). nvJPEG's header and library come from
# the CUDA toolkit, or else from PyPI's nvidia-nvjpeg wheel (downloaded once into build/).
# Skips with a message when there is no nvcc.
#
#   tools/compile-gpu.sh               everything: the gpu preset's library and tests, linked
#   tools/compile-gpu.sh --nvjpeg-only what the README's build leaves out when it finds nvcc but
#       no nvJPEG: the nvJPEG sources and the tests that use them (CI, right after that build,
#       which compiled every other CUDA source and GPU test; a second compile of those would
#       take 25 minutes on 2 cores). Compiles everything when that build has no CUDA objects.
set -euo pipefail
cd "$(dirname "$0")/.."

only_nvjpeg=0
case "${1:-}" in
  --nvjpeg-only) only_nvjpeg=1 ;;
  "") ;;
  *) echo "compile-gpu.sh: unknown option '$1' (options: --nvjpeg-only)" >&2; exit 2 ;;
esac

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
targets=()
what="CUDA + nvJPEG sources and GPU tests"
if [ $only_nvjpeg = 1 ]; then
  readme_build=$(ls -d build/cp3*/ 2> /dev/null | head -n 1)
  if [ -f build/gpu/build.ninja ] && grep -qs '\.cu\.o:' "$readme_build/build.ninja" &&
     grep -qs 'sluice_gpu_tests' "$readme_build/build.ninja"; then
    # The objects of the sources under an nvjpeg/ folder and of those that test for nvJPEG: a
    # source's own object, or the unity file (the tests' target) that includes it.
    uses=$(grep -rl SLUICE_HAS_NVJPEG src --include='*.cc' --include='*.cu' | sed 's|^src/sluice/||')
    pattern="/nvjpeg/|/($(echo "$uses" | paste -sd'|'))(\.o|\")?$"
    mapfile -t targets < <(
      ninja -C build/gpu -t targets all | sed -n 's/^\(.*\.o\): .*/\1/p' | grep -E "$pattern"
      grep -lE "$pattern" build/gpu/src/sluice/CMakeFiles/*/Unity/*.cxx 2> /dev/null |
        sed 's|^build/gpu/||; s|$|.o|')
    what="nvJPEG sources and tests (${#targets[@]} objects; the rest compiled in $readme_build)"
  else
    echo "compile-gpu.sh: $readme_build compiled no CUDA (or no Ninja here): compiling everything"
  fi
fi
cmake --build --preset gpu -j "$(nproc)" ${targets[@]+--target "${targets[@]}"} \
  > build/gpu/build.log 2>&1 || { grep -E "error" -A5 build/gpu/build.log | head -60; exit 1; }
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
echo "compile-gpu.sh: $what compiled in $((SECONDS - t0)) s"
