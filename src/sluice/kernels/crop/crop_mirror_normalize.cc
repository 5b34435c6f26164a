#include "sluice/kernels/crop/crop_mirror_normalize.h"

#include <cmath>
#include <limits>
#include <string>

#include "sluice/core/error.h"
#include "sluice/kernels/crop/crop_math.h"

namespace sluice {
namespace {

// One value or one per channel; returns the value of channel c.
float per_channel(const std::vector<float>& v, int c) {
  return v.size() == 1 ? v[0] : v[c];
}

// `v` holds one value, one per output channel (`out_channels`: pad_output's count) or, when
// `per_input` (mean and std), one per input channel.
void check_per_channel(const std::vector<float>& v, int channels, int out_channels, bool per_input,
                       const char* name) {
  const int n = static_cast<int>(v.size());
  if (n != 1 && n != out_channels && !(per_input && n == channels)) {
    std::string counts =
        out_channels == channels ? make_string("one per channel (", channels, ")")
        : per_input
            ? make_string("one per channel (", channels, ", or ", out_channels, " with pad_output)")
            : make_string("one per output channel (", out_channels, " with pad_output)");
    throw InvalidArgument(
        make_string(name, " must hold 1 value or ", counts, ", got ", n, " values"));
  }
  for (size_t i = 0; i < v.size(); ++i) {
    SLUICE_CHECK(std::isfinite(v[i]), InvalidArgument, name, "[", i, "] must be finite, got ",
                 v[i]);
  }
}

bool is_cmn_out_type(DType t) {
  return t == DType::kFloat32 || t == DType::kFloat16 || t == DType::kUInt8 || t == DType::kInt8;
}

// The whole kernel; inlined into the two clones below.
template <typename In, typename Out>
[[gnu::always_inline]] inline void cmn_body(const In* in, int64_t in_h, int64_t in_w,
                                            const CropWindow& win, bool mirror,
                                            const CmnChannelTable& t, Out* out) {
  using crop_detail::cmn_normalize;
  using crop_detail::float_to;
  using crop_detail::to_float;
  const int C = t.channels;
  const int OC = t.out_channels;
  const int64_t oh = win.h, ow = win.w;
  const bool chw = t.out_layout == ImageLayout::kCHW;
  const int64_t plane = oh * ow;
  // Output element of (pixel index p = oy * ow + ox, channel c).
  const int64_t c_stride = chw ? plane : 1;
  const int64_t p_stride = chw ? 1 : OC;
  std::vector<Out> fill(static_cast<size_t>(OC));
  for (int c = 0; c < OC; ++c) fill[c] = float_to<Out>(t.fill[c]);
  for (int64_t oy = 0; oy < oh; ++oy) {
    const int64_t sy = win.y + oy;
    const bool row_inside = sy >= 0 && sy < in_h;
    const In* in_row = in + sy * in_w * C;  // only dereferenced when row_inside
    for (int64_t ox = 0; ox < ow; ++ox) {
      const int64_t sx = win.x + (mirror ? ow - 1 - ox : ox);
      Out* o = out + (oy * ow + ox) * p_stride;
      if (row_inside && sx >= 0 && sx < in_w) {
        const In* px = in_row + sx * C;
        for (int c = 0; c < C; ++c) {
          o[c * c_stride] =
              float_to<Out>(cmn_normalize(to_float(px[c]), t.mean[c], t.k[c], t.shift));
        }
        for (int c = C; c < OC; ++c) o[c * c_stride] = fill[c];
      } else {
        for (int c = 0; c < OC; ++c) o[c * c_stride] = fill[c];
      }
    }
  }
}

// std::fma is a library call unless the compiler may emit FMA instructions, and the build
// targets baseline x86-64; that call dominated the kernel (about 3x slower). The kernel is
// therefore also compiled for FMA-capable CPUs and picked at run time. Both clones compute
// correctly rounded fused multiply-adds, so their results are identical (Note [Normalization
// order] in crop_math.h).
template <typename In, typename Out>
void cmn_generic(const In* in, int64_t in_h, int64_t in_w, const CropWindow& win, bool mirror,
                 const CmnChannelTable& t, Out* out) {
  cmn_body(in, in_h, in_w, win, mirror, t, out);
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SLUICE_CMN_FMA_CLONE 1
template <typename In, typename Out>
__attribute__((target("fma"))) void cmn_fma(const In* in, int64_t in_h, int64_t in_w,
                                            const CropWindow& win, bool mirror,
                                            const CmnChannelTable& t, Out* out) {
  cmn_body(in, in_h, in_w, win, mirror, t, out);
}
#endif

template <typename In, typename Out>
void cmn_impl(const In* in, int64_t in_h, int64_t in_w, const CropWindow& win, bool mirror,
              const CmnChannelTable& t, Out* out) {
#if defined(SLUICE_CMN_FMA_CLONE)
  static const bool has_fma = __builtin_cpu_supports("fma");
  if (has_fma) return cmn_fma(in, in_h, in_w, win, mirror, t, out);
#endif
  cmn_generic(in, in_h, in_w, win, mirror, t, out);
}

}  // namespace

int cmn_output_channels(int channels, bool pad_output) {
  return pad_output ? crop_detail::next_pow2(channels) : channels;
}

CmnChannelTable make_cmn_channel_table(const CmnParams& p, int channels) {
  SLUICE_CHECK(channels >= 1 && channels <= (1 << 20), InvalidArgument,
               "crop_mirror_normalize: channel count must be in [1, 2^20], got ", channels);
  SLUICE_CHECK(is_cmn_out_type(p.out_type), InvalidArgument,
               "crop_mirror_normalize: dtype must be FLOAT, FLOAT16, UINT8 or INT8, got ",
               dtype_name(p.out_type));
  const int out_channels = cmn_output_channels(channels, p.pad_output);
  check_per_channel(p.mean, channels, out_channels, true, "mean");
  check_per_channel(p.stddev, channels, out_channels, true, "std");
  check_per_channel(p.fill_values, channels, out_channels, false, "fill_values");
  SLUICE_CHECK(std::isfinite(p.scale), InvalidArgument, "scale must be finite, got ", p.scale);
  SLUICE_CHECK(std::isfinite(p.shift), InvalidArgument, "shift must be finite, got ", p.shift);
  CmnChannelTable t;
  t.channels = channels;
  t.out_channels = out_channels;
  t.out_type = p.out_type;
  t.out_layout = p.out_layout;
  t.shift = p.shift;
  t.mean.resize(channels);
  t.k.resize(channels);
  t.fill.resize(out_channels);
  for (int c = 0; c < out_channels; ++c) t.fill[c] = per_channel(p.fill_values, c);
  for (int c = 0; c < channels; ++c) {
    const float s = per_channel(p.stddev, c);
    SLUICE_CHECK(s != 0.0f, InvalidArgument, "std must not be 0 (channel ", c, ")");
    const double k = crop_detail::cmn_multiplier(p.scale, s);
    SLUICE_CHECK(std::fabs(k) <= std::numeric_limits<float>::max(), InvalidArgument,
                 "scale / std overflows float for channel ", c, ": scale ", p.scale, ", std ", s);
    t.mean[c] = per_channel(p.mean, c);
    t.k[c] = static_cast<float>(k);
  }
  return t;
}

Shape cmn_output_shape(const CropWindow& window, const CmnChannelTable& table) {
  if (table.out_layout == ImageLayout::kCHW) return {table.out_channels, window.h, window.w};
  return {window.h, window.w, table.out_channels};
}

template <typename In>
void crop_mirror_normalize_cpu(std::type_identity_t<ImageView<const In>> in, void* out,
                               const CropWindow& window, bool mirror,
                               const CmnChannelTable& table) {
  SLUICE_CHECK(in.layout == ImageLayout::kHWC, InvalidArgument,
               "crop_mirror_normalize: input layout must be HWC, got ",
               image_layout_name(in.layout));
  SLUICE_CHECK(in.height >= 0 && in.width >= 0, InvalidArgument,
               "crop_mirror_normalize: input shape must not be negative, got ", in.height, "x",
               in.width);
  SLUICE_CHECK(in.channels == table.channels && table.channels >= 1, InvalidArgument,
               "crop_mirror_normalize: input has ", in.channels,
               " channels, the parameters were resolved for ", table.channels);
  SLUICE_CHECK(window.h >= 0 && window.w >= 0, InvalidArgument,
               "crop_mirror_normalize: window shape must not be negative, got ", to_string(window));
  if (window.h == 0 || window.w == 0) return;
  SLUICE_CHECK(out != nullptr, InvalidArgument, "crop_mirror_normalize: output is null");
  SLUICE_CHECK(in.data != nullptr || in.height * in.width == 0, InvalidArgument,
               "crop_mirror_normalize: input data is null");
  switch (table.out_type) {
    case DType::kFloat32:
      return cmn_impl(in.data, in.height, in.width, window, mirror, table,
                      static_cast<float*>(out));
    case DType::kFloat16:
      return cmn_impl(in.data, in.height, in.width, window, mirror, table,
                      static_cast<float16*>(out));
    case DType::kUInt8:
      return cmn_impl(in.data, in.height, in.width, window, mirror, table,
                      static_cast<uint8_t*>(out));
    case DType::kInt8:
      return cmn_impl(in.data, in.height, in.width, window, mirror, table,
                      static_cast<int8_t*>(out));
    default:
      break;
  }
  throw InvalidArgument(
      make_string("crop_mirror_normalize: unsupported output dtype ", dtype_name(table.out_type)));
}

template void crop_mirror_normalize_cpu<uint8_t>(std::type_identity_t<ImageView<const uint8_t>>,
                                                 void*, const CropWindow&, bool,
                                                 const CmnChannelTable&);
template void crop_mirror_normalize_cpu<int16_t>(std::type_identity_t<ImageView<const int16_t>>,
                                                 void*, const CropWindow&, bool,
                                                 const CmnChannelTable&);
template void crop_mirror_normalize_cpu<uint16_t>(std::type_identity_t<ImageView<const uint16_t>>,
                                                  void*, const CropWindow&, bool,
                                                  const CmnChannelTable&);
template void crop_mirror_normalize_cpu<float>(std::type_identity_t<ImageView<const float>>, void*,
                                               const CropWindow&, bool, const CmnChannelTable&);

}  // namespace sluice
