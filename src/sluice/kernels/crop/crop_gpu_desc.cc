// Host-side descriptor builders of the CUDA crop and crop_mirror_normalize kernels. No CUDA
// dependency: built in every configuration, so operators and CPU tests can use them.

#include <cstring>
#include <limits>

#include "sluice/core/error.h"
#include "sluice/kernels/crop/crop_gpu.h"
#include "sluice/kernels/crop/crop_math.h"
#include "sluice/kernels/crop/crop_mirror_normalize_gpu.h"
#include "sluice/kernels/crop/crop_validate.h"

namespace sluice {
namespace {

constexpr int64_t kMaxExtent = std::numeric_limits<int32_t>::max();

std::string where(int64_t sample) {
  return sample >= 0 ? make_string(" (sample ", sample, ")") : std::string();
}

// Window coordinates and input extents must fit the kernel's 32-bit pixel arithmetic, including
// the far corner of the window.
void check_extents(int64_t h, int64_t w, const CropWindow& win, int64_t sample) {
  auto fits = [](int64_t v) { return v >= -kMaxExtent && v <= kMaxExtent; };
  SLUICE_CHECK(h <= kMaxExtent && w <= kMaxExtent && fits(win.y) && fits(win.x) &&
                   win.h <= kMaxExtent && win.w <= kMaxExtent && fits(win.y + win.h) &&
                   fits(win.x + win.w),
               InvalidArgument, "image ", h, "x", w, " or window ", to_string(win),
               " exceeds the GPU kernels' 32-bit extents", where(sample));
}

// The input extent and the window, as both descriptors hold them (check_extents first).
template <typename Sample>
void set_geometry(Sample& s, int64_t h, int64_t w, const CropWindow& window) {
  s.in_height = static_cast<int32_t>(h);
  s.in_width = static_cast<int32_t>(w);
  s.win_y = static_cast<int32_t>(window.y);
  s.win_x = static_cast<int32_t>(window.x);
  s.win_h = static_cast<int32_t>(window.h);
  s.win_w = static_cast<int32_t>(window.w);
}

size_t descriptor_bytes(int64_t num_samples, size_t descriptor_size) {
  SLUICE_CHECK(num_samples >= 0, InvalidArgument, "num_samples must not be negative, got ",
               num_samples);
  return static_cast<size_t>(num_samples) * descriptor_size;
}

}  // namespace

template <typename T>
CropGpuSample make_crop_gpu_sample(std::type_identity_t<ImageView<const T>> in, ImageView<T> out,
                                   const CropWindow& window, ImageTransform transform,
                                   std::span<const float> fill_values, int64_t sample) {
  crop_detail::check_crop_transform({in.height, in.width, in.channels, in.layout, in.data},
                                    {out.height, out.width, out.channels, out.layout, out.data},
                                    window, transform, sample);
  crop_detail::check_fill_values(fill_values, in.channels);
  check_extents(in.height, in.width, window, sample);
  SLUICE_CHECK(in.channels <= kMaxExtent, InvalidArgument, "too many channels: ", in.channels,
               where(sample));
  SLUICE_CHECK(fill_values.size() <= 1 || in.channels <= kCropGpuMaxFillChannels, InvalidArgument,
               "per-channel fill_values support at most ", kCropGpuMaxFillChannels,
               " channels on the GPU, got ", in.channels, " (use one fill value)", where(sample));
  CropGpuSample s;
  s.in = in.data;
  s.out = out.data;
  set_geometry(s, in.height, in.width, window);
  s.channels = static_cast<int32_t>(in.channels);
  s.layout = static_cast<uint8_t>(in.layout);
  s.transpose = transform.transpose;
  s.flip_x = transform.flip_x;
  s.flip_y = transform.flip_y;
  s.fill_count = fill_values.size() <= 1 ? 1 : static_cast<int32_t>(in.channels);
  for (int32_t c = 0; c < s.fill_count; ++c) {
    const T v = crop_detail::float_to<T>(crop_detail::fill_value(fill_values, c));
    std::memcpy(&s.fill_bits[c], &v, sizeof(T));  // zero-extended: fill_bits start at 0
  }
  return s;
}

#define SLUICE_INSTANTIATE_CROP_GPU_SAMPLE(T)                                                     \
  template CropGpuSample make_crop_gpu_sample<T>(std::type_identity_t<ImageView<const T>>,        \
                                                 ImageView<T>, const CropWindow&, ImageTransform, \
                                                 std::span<const float>, int64_t);
SLUICE_INSTANTIATE_CROP_GPU_SAMPLE(uint8_t)
SLUICE_INSTANTIATE_CROP_GPU_SAMPLE(int8_t)
SLUICE_INSTANTIATE_CROP_GPU_SAMPLE(uint16_t)
SLUICE_INSTANTIATE_CROP_GPU_SAMPLE(int16_t)
SLUICE_INSTANTIATE_CROP_GPU_SAMPLE(float16)
SLUICE_INSTANTIATE_CROP_GPU_SAMPLE(float)
#undef SLUICE_INSTANTIATE_CROP_GPU_SAMPLE

size_t crop_gpu_descriptor_bytes(int64_t num_samples) {
  return descriptor_bytes(num_samples, sizeof(CropGpuSample));
}

CmnGpuSample make_cmn_gpu_sample(ImageView<const uint8_t> in, void* out, const CropWindow& window,
                                 bool mirror, const CmnChannelTable& table, int64_t sample) {
  SLUICE_CHECK(in.layout == ImageLayout::kHWC, InvalidArgument,
               "crop_mirror_normalize (GPU): input layout must be HWC, got ",
               image_layout_name(in.layout), where(sample));
  SLUICE_CHECK(in.channels == table.channels, InvalidArgument,
               "crop_mirror_normalize (GPU): input has ", in.channels,
               " channels, the parameters were resolved for ", table.channels, where(sample));
  SLUICE_CHECK(table.channels >= 1 && table.channels <= kCmnGpuMaxChannels, InvalidArgument,
               "crop_mirror_normalize (GPU): supports 1..", kCmnGpuMaxChannels, " channels, got ",
               table.channels, where(sample));
  SLUICE_CHECK(in.height >= 0 && in.width >= 0, InvalidArgument,
               "crop_mirror_normalize (GPU): input shape must not be negative, got ", in.height,
               "x", in.width, where(sample));
  SLUICE_CHECK(window.h >= 0 && window.w >= 0, InvalidArgument,
               "crop_mirror_normalize (GPU): window shape must not be negative, got ",
               to_string(window), where(sample));
  check_extents(in.height, in.width, window, sample);
  SLUICE_CHECK(window.h * window.w == 0 || out != nullptr, InvalidArgument,
               "crop_mirror_normalize (GPU): output is null", where(sample));
  SLUICE_CHECK(window.h * window.w == 0 || in.height * in.width == 0 || in.data != nullptr,
               InvalidArgument, "crop_mirror_normalize (GPU): input is null", where(sample));
  SLUICE_CHECK(static_cast<int>(table.mean.size()) == table.channels &&
                   static_cast<int>(table.k.size()) == table.channels &&
                   static_cast<int>(table.fill.size()) == table.out_channels &&
                   table.out_channels <= kCmnGpuMaxChannels,
               InvalidArgument,
               "crop_mirror_normalize (GPU): table not built by make_cmn_channel_table",
               where(sample));
  CmnGpuSample s;
  s.in = in.data;
  s.out = out;
  set_geometry(s, in.height, in.width, window);
  s.mirror = mirror ? 1 : 0;
  s.shift = table.shift;
  for (int c = 0; c < table.channels; ++c) {
    s.mean[c] = table.mean[c];
    s.k[c] = table.k[c];
  }
  for (int c = 0; c < table.out_channels; ++c) s.fill[c] = table.fill[c];
  return s;
}

size_t cmn_gpu_descriptor_bytes(int64_t num_samples) {
  return descriptor_bytes(num_samples, sizeof(CmnGpuSample));
}

}  // namespace sluice
