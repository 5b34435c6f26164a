#pragma once
// Paste and multi_paste: images placed on a canvas. paste puts one uint8 HWC image on a larger
// canvas filled with a colour; multi_paste copies regions of source images into a zeroed canvas,
// later regions over earlier ones, converting the element type. The CPU functions are the
// references of the CUDA ones, which compute each output element independently.

#include <cstdint>

#include "sluice/core/dtype.h"
#include "sluice/core/float16.h"
#include "sluice/kernels/common/convert_sat.h"

namespace sluice::kernels {

// One region of a multi_paste: `height` x `width` pixels from (in_y, in_x) of the source image
// `in` (`in_width` pixels wide, as many channels as the canvas) to (out_y, out_x) of the canvas.
struct PasteRegion {
  const void* in;
  int64_t in_width;
  int64_t in_y, in_x;
  int64_t out_y, out_x;
  int64_t height, width;
};

// One canvas of multi_paste; its regions are regions[first_region ...] in pasting order.
struct MultiPasteSample {
  void* out;
  int64_t height, width, channels;
  int64_t first_region;
  int num_regions;
};

// Calls fn(TypeTag<T>{}) for the types multi_paste takes (uint8, int16, int32, float; any other
// is taken as float: the operator refuses them first).
template <typename Fn>
void paste_type_dispatch(DType t, Fn&& fn) {
  switch (t) {
    case DType::kUInt8:
      return fn(TypeTag<uint8_t>{});
    case DType::kInt16:
      return fn(TypeTag<int16_t>{});
    case DType::kInt32:
      return fn(TypeTag<int32_t>{});
    default:
      return fn(TypeTag<float>{});
  }
}

// Types: uint8, int16, int32 and float, in and out.
void multi_paste_cpu(const MultiPasteSample& s, const PasteRegion* regions, DType out, DType in);
void multi_paste_gpu(const MultiPasteSample* samples, int num_samples, const PasteRegion* regions,
                     int64_t max_pixels, DType out, DType in, void* stream);

// One sample of paste (uint8): the image at (y, x) of an out_height x out_width canvas, the rest
// of the canvas filled with one value per channel.
struct PasteSample {
  uint8_t* out;
  const uint8_t* in;
  int64_t in_height, in_width;
  int64_t out_height, out_width;
  int64_t channels;
  int64_t y, x;
};

// `fill`: `channels` values.
void paste_cpu(const PasteSample& s, const uint8_t* fill);
// CUDA: one launch for all samples; `fill` in device memory; `max_height` the tallest canvas.
// Rows must fit 32-bit byte offsets (out_width * channels < 2^32), as every image does.
void paste_gpu(const PasteSample* samples, int num_samples, const uint8_t* fill, int64_t max_height,
               void* stream);

}  // namespace sluice::kernels
