#pragma once
// Per-thread bodies of the CUDA resize kernels (see Note [GPU resize batch layout] in
// resize_gpu_batch.h). Written as host-device functions so that resize_gpu.cu wraps each in a
// __global__ kernel and resize_gpu_emulation_test.cc runs the very same code on the CPU, thread
// by thread, to test the indexing without a GPU.
//
// Memory access: in both passes a warp handles 32 consecutive output pixels of one row, so its
// loads of a tap (input row, intermediate row, tap-major horizontal weights) and its stores are
// contiguous runs shared by the warp (coalesced). Vertical weights are the same for the whole
// warp (broadcast). Input and intermediate reuse between taps and neighbouring pixels is served
// by L1 (read-only loads).

#include <cstdint>
#include <type_traits>

#include "sluice/kernels/common/host_device.h"
#include "sluice/kernels/resize/detail/channel_dispatch.h"
#include "sluice/kernels/resize/detail/resample_math.h"
#include "sluice/kernels/resize/detail/resize_gpu_batch.h"
#include "sluice/kernels/resize/detail/resize_pixel.h"

namespace sluice::kernels::detail {

// The sample that block `block` of a pass belongs to: the last s with begin[s] <= block
// (samples without blocks have begin[s] == begin[s + 1] and are skipped).
SLUICE_HOST_DEVICE inline int32_t find_sample(const int32_t* begin, int32_t num_samples,
                                              int32_t block) {
  int32_t lo = 0, hi = num_samples - 1;
  while (lo < hi) {
    const int32_t mid = lo + (hi - lo + 1) / 2;
    if (load_ro(begin + mid) <= block) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

// Coefficient kernel: thread `thread` of block `block` (kCoefBlock threads) writes one table
// entry: horizontal outputs first, then vertical ones.
template <typename W>
SLUICE_HOST_DEVICE inline void coef_thread(const GpuBatch& b, int32_t block, int32_t thread) {
  const int32_t s = find_sample(b.coef_block_begin, b.num_samples, block);
  const GpuSampleDesc& d = b.samples[s];
  int64_t i = static_cast<int64_t>(block - b.coef_block_begin[s]) * kCoefBlock + thread;
  if (i < d.h.out_count) {
    const int32_t x = static_cast<int32_t>(i);
    axis_entry<W>(d.h, x, d.h_first + x, d.h_count + x, static_cast<W*>(d.h_weights) + x,
                  d.h.out_count);
    return;
  }
  i -= d.h.out_count;
  if (i < d.v.out_count) {
    const int32_t y = static_cast<int32_t>(i);
    axis_entry<W>(d.v, y, d.v_first + y, d.v_count + y,
                  static_cast<W*>(d.v_weights) + static_cast<int64_t>(y) * d.v.max_taps, 1);
  }
}

// W: coefficient and accumulator type (int32_t: Pillow's fixed point; float). Tmp: intermediate
// (uint8_t with int32_t weights, float with float weights).
template <typename W>
using TmpOf = std::conditional_t<std::is_same_v<W, int32_t>, uint8_t, float>;

// Horizontal pass: intermediate pixel (r, x) = input row tmp_row_begin + r filtered around
// output column x.
template <int C, typename W>
SLUICE_HOST_DEVICE inline void h_pass_pixel(const GpuSampleDesc& d, int32_t x, int32_t r) {
  using Tmp = TmpOf<W>;
  const int32_t first = load_ro(d.h_first + x);
  const int32_t n = load_ro(d.h_count + x);
  const W* w = static_cast<const W*>(d.h_weights) + x;
  const int64_t w_pitch = d.h.out_count;
  const uint8_t* px = d.in + static_cast<int64_t>(d.tmp_row_begin + r) * d.in_stride +
                      static_cast<int64_t>(first) * C;
  W acc[C];
  SLUICE_UNROLL
  for (int c = 0; c < C; c++) acc[c] = accumulator_init<W>();
  for (int32_t j = 0; j < n; j++) {
    const W k = load_ro(w + j * w_pitch);
    SLUICE_UNROLL
    for (int c = 0; c < C; c++) {
      acc[c] = accumulate(acc[c], static_cast<W>(load_ro(px + j * C + c)), k);
    }
  }
  Tmp* dst = static_cast<Tmp*>(d.tmp) + static_cast<int64_t>(r) * d.tmp_stride +
             static_cast<int64_t>(x) * C;
  SLUICE_UNROLL
  for (int c = 0; c < C; c++) dst[c] = to_intermediate(acc[c], dst);
}

// Thread (tx, ty) of horizontal-pass block `block`: column tx, rows ty + k * kTileH of the tile.
template <int C, typename W>
SLUICE_HOST_DEVICE inline void h_pass_thread(const GpuBatch& b, int32_t block, int32_t tx,
                                             int32_t ty) {
  const int32_t s = find_sample(b.h_block_begin, b.num_samples, block);
  const GpuSampleDesc& d = b.samples[s];
  const int32_t t = block - load_ro(b.h_block_begin + s);
  const int32_t x = (t % d.h_tiles_x) * kTileW + tx;
  const int32_t r0 = (t / d.h_tiles_x) * kTileRows + ty;
  if (x >= d.h.out_count) return;
  for (int32_t k = 0; k < kRowsPerThread; k++) {
    const int32_t r = r0 + k * kTileH;
    if (r >= d.tmp_rows) return;
    h_pass_pixel<C, W>(d, x, r);
  }
}

// ---- Epilogues of the vertical pass: store output pixel (y, x) from its accumulators ----

template <int C>
struct StoreU8 {
  SLUICE_HOST_DEVICE static void store(const GpuSampleDesc& d, int32_t y, int32_t x,
                                       const int32_t* acc) {
    uint8_t* o = static_cast<uint8_t*>(d.out) + y * d.out_stride + static_cast<int64_t>(x) * C;
    SLUICE_UNROLL
    for (int c = 0; c < C; c++) o[c] = fixed_to_u8(acc[c]);
  }
};

template <int C>
struct StoreF32 {
  SLUICE_HOST_DEVICE static void store(const GpuSampleDesc& d, int32_t y, int32_t x,
                                       const float* acc) {
    float* o = static_cast<float*>(d.out) + y * d.out_stride + static_cast<int64_t>(x) * C;
    SLUICE_UNROLL
    for (int c = 0; c < C; c++) o[c] = acc[c];
  }
};

SLUICE_HOST_DEVICE inline void store_normalized(float* out, int64_t i, float v) {
  out[i] = v;
}
SLUICE_HOST_DEVICE inline void store_normalized(uint16_t* out, int64_t i, float v) {
  out[i] = crop_detail::float_to<float16>(v).bits;
}

// Fused crop_mirror_normalize: the resized value is rounded to uint8 exactly as the plain uint8
// resize would store it, then normalised; so the result equals resize (uint8) followed by
// normalisation, and the resized image never goes to memory.
template <int C, bool kChw, typename Out>
struct StoreNormalized {
  SLUICE_HOST_DEVICE static void store(const GpuSampleDesc& d, int32_t y, int32_t x,
                                       const int32_t* acc) {
    const int32_t xo = d.mirror ? d.h.out_count - 1 - x : x;
    Out* o = static_cast<Out*>(d.out);
    SLUICE_UNROLL
    for (int c = 0; c < C; c++) {
      const float v = crop_detail::cmn_normalize(static_cast<float>(fixed_to_u8(acc[c])), d.mean[c],
                                                 d.mul[c], d.shift);
      const int64_t i = kChw ? c * d.out_plane_stride + y * d.out_stride + xo
                             : y * d.out_stride + static_cast<int64_t>(xo) * C + c;
      store_normalized(o, i, v);
    }
  }
};

// Vertical pass: output pixel (y, x) = intermediate rows around output row y, column x.
template <int C, typename W, typename Epilogue>
SLUICE_HOST_DEVICE inline void v_pass_pixel(const GpuSampleDesc& d, int32_t x, int32_t y) {
  using Tmp = TmpOf<W>;
  const int32_t first = load_ro(d.v_first + y) - d.tmp_row_begin;
  const int32_t n = load_ro(d.v_count + y);
  const W* w = static_cast<const W*>(d.v_weights) + static_cast<int64_t>(y) * d.v.max_taps;
  const Tmp* px = static_cast<const Tmp*>(d.tmp) + static_cast<int64_t>(first) * d.tmp_stride +
                  static_cast<int64_t>(x) * C;
  W acc[C];
  SLUICE_UNROLL
  for (int c = 0; c < C; c++) acc[c] = accumulator_init<W>();
  for (int32_t j = 0; j < n; j++) {
    const W k = load_ro(w + j);
    const Tmp* row = px + j * d.tmp_stride;
    SLUICE_UNROLL
    for (int c = 0; c < C; c++) acc[c] = accumulate(acc[c], static_cast<W>(load_ro(row + c)), k);
  }
  Epilogue::store(d, y, x, acc);
}

// Thread (tx, ty) of vertical-pass block `block`: column tx, rows ty + k * kTileH of the tile.
template <int C, typename W, typename Epilogue>
SLUICE_HOST_DEVICE inline void v_pass_thread(const GpuBatch& b, int32_t block, int32_t tx,
                                             int32_t ty) {
  const int32_t s = find_sample(b.v_block_begin, b.num_samples, block);
  const GpuSampleDesc& d = b.samples[s];
  const int32_t t = block - load_ro(b.v_block_begin + s);
  const int32_t x = (t % d.v_tiles_x) * kTileW + tx;
  const int32_t y0 = (t / d.v_tiles_x) * kTileRows + ty;
  if (x >= d.h.out_count) return;
  for (int32_t k = 0; k < kRowsPerThread; k++) {
    const int32_t y = y0 + k * kTileH;
    if (y >= d.v.out_count) return;
    v_pass_pixel<C, W, Epilogue>(d, x, y);
  }
}

// Calls runner.template run<C, W, Epilogue>() for the batch's channel count and epilogue: the
// one place that lists the kernel instantiations (shared by the CUDA launcher and the CPU
// emulation test).
template <typename Runner>
void dispatch_gpu_passes(int channels, GpuEpilogue epilogue, Runner& runner) {
  auto with_channels = [&](auto channels_tag) {
    constexpr int C = decltype(channels_tag)::value;
    switch (epilogue) {
      case GpuEpilogue::kU8:
        runner.template run<C, int32_t, StoreU8<C>>();
        break;
      case GpuEpilogue::kF32:
        runner.template run<C, float, StoreF32<C>>();
        break;
      case GpuEpilogue::kNormHwcF32:
        runner.template run<C, int32_t, StoreNormalized<C, false, float>>();
        break;
      case GpuEpilogue::kNormChwF32:
        runner.template run<C, int32_t, StoreNormalized<C, true, float>>();
        break;
      case GpuEpilogue::kNormHwcF16:
        runner.template run<C, int32_t, StoreNormalized<C, false, uint16_t>>();
        break;
      case GpuEpilogue::kNormChwF16:
        runner.template run<C, int32_t, StoreNormalized<C, true, uint16_t>>();
        break;
    }
  };
  dispatch_channels(channels, with_channels);  // other counts are refused by plan_gpu_batch
}

}  // namespace sluice::kernels::detail
