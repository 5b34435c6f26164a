#pragma once
// crop_mirror_normalize (DALI's fn.crop_mirror_normalize) on the CPU, and the parameter handling
// shared with the CUDA kernel (crop_mirror_normalize_gpu.h). One pass over the data: each input
// pixel of the window is read once and every output element written once.
//
// Semantics, for an HWC input of C channels and a window (after the out-of-bounds policy):
//   * output pixel (oy, ox) comes from window pixel (oy, mirror ? w - 1 - ox : ox) - the mirror
//     flips the window, including any padding, as DALI does;
//   * inside the image: out[c] = (x[c] - mean[c]) / std[c] * scale + shift, evaluated as
//     fma(x - mean[c], k[c], shift) with k[c] = float(double(scale) / double(std[c]))
//     (crop_math.h, Note [Normalization order]); outside it: fill_values[c], an output value
//     (not normalized), as in DALI;
//   * conversion to the output type: FLOAT as is; FLOAT16 round to nearest even; UINT8 / INT8
//     saturate, then round to nearest with halves to even (DALI's default rounding="round" uses
//     the device's __float2int_rn, which is the same); NaN becomes the lowest value;
//   * pad_output: the channel dimension grows to the next power of two (3 -> 4), as DALI does;
//     an added channel c holds fill_values[c] (or the single fill value) at every pixel, inside
//     the image too: DALI treats the added channels as lying outside the input. The operator
//     passes fill value 0 unless out_of_bounds_policy is "pad" (DALI reads fill_values only
//     then), so the added channels are usually 0;
//   * output layout HWC (h, w, C') or CHW (C', h, w), C' = padded channel count.
// mean and stddev hold one value (used for every channel), one per input channel, or one per
// output channel (those of the added channels are not used); fill_values one value or one per
// output channel (C' values under pad_output).
//
// Input element types: uint8_t, int16_t, uint16_t, float. Output: DType::kFloat32, kFloat16,
// kUInt8, kInt8.
//
// Thread safety: stateless functions; a CmnChannelTable is immutable after construction and can
// be shared by threads.

#include <cstdint>
#include <type_traits>
#include <vector>

#include "sluice/core/dtype.h"
#include "sluice/core/shape.h"
#include "sluice/kernels/crop/crop_window.h"
#include "sluice/kernels/crop/image_view.h"

namespace sluice {

// User-facing arguments of crop_mirror_normalize that do not vary per sample (DALI names).
struct CmnParams {
  DType out_type = DType::kFloat32;
  ImageLayout out_layout = ImageLayout::kCHW;
  bool pad_output = false;
  std::vector<float> mean = {0.0f};
  std::vector<float> stddev = {1.0f};  // DALI argument "std"
  float scale = 1.0f;
  float shift = 0.0f;
  std::vector<float> fill_values = {0.0f};  // for out_of_bounds_policy "pad"
};

// The parameters resolved for a channel count: what the kernels evaluate.
struct CmnChannelTable {
  int channels = 0;      // input channels C
  int out_channels = 0;  // C, or next power of two of C with pad_output
  DType out_type = DType::kFloat32;
  ImageLayout out_layout = ImageLayout::kCHW;
  float shift = 0.0f;
  std::vector<float> mean;  // C values
  std::vector<float> k;     // C values: scale / std
  std::vector<float> fill;  // C' values: output-space fill for pixels outside the image, and
                            // the value of the added channels (c >= C) everywhere
};

// Validates `params` for `channels` input channels and resolves them. Throws InvalidArgument
// when: channels < 1; mean / std are empty or hold neither 1, `channels` nor C' values;
// fill_values hold neither 1 nor C' values; a std is 0 or any value is not finite; scale or
// shift is not finite; k overflows; out_type is not FLOAT / FLOAT16 / UINT8 / INT8.
CmnChannelTable make_cmn_channel_table(const CmnParams& params, int channels);

// DALI's pad_output channel count.
int cmn_output_channels(int channels, bool pad_output);

// Shape of one output sample: {h, w, C'} for HWC, {C', h, w} for CHW.
Shape cmn_output_shape(const CropWindow& window, const CmnChannelTable& table);

// Writes crop_mirror_normalize of the HWC image `in` for `window` (already passed through
// apply_out_of_bounds_policy; may reach outside the image, which is then filled) to `out`,
// a dense buffer of cmn_output_shape() elements of table.out_type. in.layout must be HWC and
// in.channels == table.channels. Throws InvalidArgument on mismatches.
template <typename In>
void crop_mirror_normalize_cpu(std::type_identity_t<ImageView<const In>> in, void* out,
                               const CropWindow& window, bool mirror, const CmnChannelTable& table);

}  // namespace sluice
