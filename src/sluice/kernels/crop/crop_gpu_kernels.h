#pragma once
// Bodies of the CUDA kernels of kernels/crop, one work item at a time (internal). The kernels in
// crop_gpu.cu and crop_mirror_normalize_gpu.cu only stride over items and call these; the
// functions are also host-callable so that a CPU test (crop_gpu_emulation_test.cc) runs every
// item of a batch on the host and checks the indexing, the run splitting and the stores against
// the CPU references on machines without a GPU. Plain C++17 (nvcc may compile it as such).

#include <cstdint>
#include <cstring>

#include "sluice/core/float16.h"
#include "sluice/kernels/common/host_device.h"
#include "sluice/kernels/crop/crop_gpu_types.h"
#include "sluice/kernels/crop/crop_math.h"

namespace sluice::crop_detail {

using kernels::load_ro;

// Stores v[0, n) to dst. A full run (n == N) whose byte size is a multiple of 16 goes out as
// 16-byte vector stores when dst is 16-byte aligned; anything else element by element. N is a
// compile-time bound so that v stays in registers.
template <typename T, int N>
SLUICE_HOST_DEVICE inline void store_run(T* dst, const T (&v)[N], int n) {
  constexpr int kBytes = N * static_cast<int>(sizeof(T));
  if constexpr (kBytes % 16 == 0) {
    if (n == N && (reinterpret_cast<uintptr_t>(dst) & 15u) == 0) {
      SLUICE_UNROLL
      for (int i = 0; i < kBytes / 16; ++i) {
        // Packed element by element (little-endian): copying the array as bytes would make it
        // addressable and push it to local memory. The host runs the same packing, so the
        // emulation test covers it.
        constexpr int kPerWord = 4 / static_cast<int>(sizeof(T));
        uint32_t w[4];
        SLUICE_UNROLL
        for (int j = 0; j < 4; ++j) {
          w[j] = 0;
          SLUICE_UNROLL
          for (int e = 0; e < kPerWord; ++e) {
            uint32_t bits = 0;
            memcpy(&bits, &v[(4 * i + j) * kPerWord + e], sizeof(T));
            w[j] |= bits << (8 * sizeof(T) * e);
          }
        }
#if defined(__CUDA_ARCH__)
        reinterpret_cast<uint4*>(dst)[i] = make_uint4(w[0], w[1], w[2], w[3]);
#else
        std::memcpy(reinterpret_cast<char*>(dst) + 16 * i, w, 16);
#endif
      }
      return;
    }
  }
  SLUICE_UNROLL
  for (int i = 0; i < N; ++i) {
    if (i < n) dst[i] = v[i];
  }
}

// ---- crop / flip / orientation -------------------------------------------------------------

// Elements per work item: 16 bytes of output.
template <typename S>
SLUICE_HOST_DEVICE constexpr int crop_elems_per_item() {
  return 16 / static_cast<int>(sizeof(S));
}

// Work item `item` of sample `s`: V consecutive output elements (flat in the sample's layout)
// starting at item * V, so that the stores are aligned whenever the output base is. Each
// element's source follows the ImageTransform contract (image_view.h). S is a storage type of
// the element size. Items at or past crop_transform_items() must not be passed.
template <typename S>
SLUICE_HOST_DEVICE inline void crop_transform_item(const CropGpuSample& s, int64_t item) {
  constexpr int V = crop_elems_per_item<S>();
  const bool transpose = s.transpose, fx = s.flip_x, fy = s.flip_y;
  const int64_t oh = transpose ? s.win_w : s.win_h;
  const int64_t ow = transpose ? s.win_h : s.win_w;
  const int64_t C = s.channels;
  const int64_t plane = oh * ow;
  const int64_t total = plane * C;
  const bool hwc = s.layout == 0;  // ImageLayout::kHWC
  const int64_t H = s.in_height, W = s.in_width;
  const S* in = static_cast<const S*>(s.in);
  S* out = static_cast<S*>(s.out);
  const int64_t e0 = item * V;
  const int n = total - e0 < V ? static_cast<int>(total - e0) : V;
  // Coordinates of the first element; the following ones advance incrementally.
  int64_t c, oy, ox;
  if (hwc) {
    const int64_t p = e0 / C;
    c = e0 - p * C;
    oy = p / ow;
    ox = p - oy * ow;
  } else {
    c = e0 / plane;
    const int64_t r = e0 - c * plane;
    oy = r / ow;
    ox = r - oy * ow;
  }
  S v[V];
  SLUICE_UNROLL
  for (int i = 0; i < V; ++i) {
    v[i] = S{};
    if (i < n) {
      const int64_t a = transpose ? ox : oy;
      const int64_t b = transpose ? oy : ox;
      const int64_t sy = s.win_y + (fy ? s.win_h - 1 - a : a);
      const int64_t sx = s.win_x + (fx ? s.win_w - 1 - b : b);
      if (sy >= 0 && sy < H && sx >= 0 && sx < W) {
        v[i] = load_ro(in + (hwc ? (sy * W + sx) * C + c : (c * H + sy) * W + sx));
      } else {
        v[i] = static_cast<S>(s.fill_bits[s.fill_count == 1 ? 0 : c]);
      }
      if (hwc) {
        if (++c == C) {
          c = 0;
          if (++ox == ow) ox = 0, ++oy;
        }
      } else if (++ox == ow) {
        ox = 0;
        if (++oy == oh) oy = 0, ++c;
      }
    }
  }
  store_run(out + e0, v, n);
}

// ---- crop_mirror_normalize -----------------------------------------------------------------

// Output pixels per work item: one 16-byte run per channel plane.
template <typename Out>
SLUICE_HOST_DEVICE constexpr int cmn_pixels_per_item() {
  return 16 / static_cast<int>(sizeof(Out));
}

// Per-sample constants of the CMN kernel, loaded once per thread. C input channels, OC >= C
// output channels (pad_output adds channels that hold their fill value everywhere).
template <typename Out, int C, int OC>
struct CmnSampleConstants {
  float mean[C], k[C];
  Out fill[OC];
  float shift;

  SLUICE_HOST_DEVICE explicit CmnSampleConstants(const CmnGpuSample& s) {
    SLUICE_UNROLL
    for (int c = 0; c < C; ++c) mean[c] = s.mean[c], k[c] = s.k[c];
    SLUICE_UNROLL
    for (int c = 0; c < OC; ++c) fill[c] = float_to<Out>(s.fill[c]);
    shift = s.shift;
  }
};

// Work item `item` of sample `s`: K consecutive output pixels of one row. Reads their K * C
// input bytes once (K adjacent HWC pixels, reversed under mirror), normalises them, and stores
// K consecutive elements in each channel plane (kPlanar) or K * OC consecutive elements (HWC).
// Items at or past cmn_items() must not be passed.
template <typename Out, int C, int OC, bool kPlanar>
SLUICE_HOST_DEVICE inline void cmn_item(const CmnGpuSample& s,
                                        const CmnSampleConstants<Out, C, OC>& sc, int64_t item) {
  constexpr int K = cmn_pixels_per_item<Out>();
  const int64_t oh = s.win_h, ow = s.win_w;
  const int64_t chunks = (ow + K - 1) / K;
  const int64_t H = s.in_height, W = s.in_width;
  const bool mirror = s.mirror != 0;
  Out* out = static_cast<Out*>(s.out);
  const int64_t oy = item / chunks;
  const int64_t ox0 = (item - oy * chunks) * K;
  const int n = ow - ox0 < K ? static_cast<int>(ow - ox0) : K;
  const int64_t sy = s.win_y + oy;
  const bool row_inside = sy >= 0 && sy < H;
  const uint8_t* in_row = s.in + (row_inside ? sy : 0) * W * C;
  // v[p * OC + c]: pixel p, channel c (the HWC order of the run).
  Out v[K * OC];
  SLUICE_UNROLL
  for (int p = 0; p < K; ++p) {
    const int64_t ox = ox0 + p;
    const int64_t sx = s.win_x + (mirror ? ow - 1 - ox : ox);
    if (p < n && row_inside && sx >= 0 && sx < W) {
      const uint8_t* px = in_row + sx * C;
      SLUICE_UNROLL
      for (int c = 0; c < C; ++c) {
        v[p * OC + c] = float_to<Out>(
            cmn_normalize(static_cast<float>(load_ro(px + c)), sc.mean[c], sc.k[c], sc.shift));
      }
      SLUICE_UNROLL
      for (int c = C; c < OC; ++c) v[p * OC + c] = sc.fill[c];
    } else {
      SLUICE_UNROLL
      for (int c = 0; c < OC; ++c) v[p * OC + c] = sc.fill[c];
    }
  }
  if constexpr (kPlanar) {
    const int64_t plane = oh * ow;
    SLUICE_UNROLL
    for (int c = 0; c < OC; ++c) {
      Out run[K];
      SLUICE_UNROLL
      for (int p = 0; p < K; ++p) run[p] = v[p * OC + c];
      store_run(out + c * plane + oy * ow + ox0, run, n);
    }
  } else {
    store_run(out + (oy * ow + ox0) * OC, v, n * OC);
  }
}

}  // namespace sluice::crop_detail
