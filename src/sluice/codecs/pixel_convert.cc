#include "sluice/codecs/pixel_convert.h"

#include <cstring>

#include "sluice/core/error.h"

namespace sluice::codecs {

namespace {

// Pillow's MULDIV255: round(a * b / 255) for 8-bit a, b.
inline uint32_t muldiv255(uint32_t a, uint32_t b) {
  uint32_t t = a * b + 128;
  return ((t >> 8) + t) >> 8;
}

// Note [Grey from colour] / [YCbCr] in pixel_convert.h.
inline uint32_t luma(uint32_t r, uint32_t g, uint32_t b) {
  return static_cast<uint32_t>(
      (uint64_t{r} * 19595 + uint64_t{g} * 38470 + uint64_t{b} * 7471 + 0x8000) >> 16);
}

template <PixelLayout S, PixelLayout D, typename SrcT, typename DstT>
void convert_impl(const SrcT* s, DstT* d, int64_t n) {
  constexpr int sc = layout_channels(S);
  constexpr int dc = layout_channels(D);
  constexpr bool narrow = sizeof(SrcT) == 2 && sizeof(DstT) == 1;
  constexpr bool widen = sizeof(SrcT) == 1 && sizeof(DstT) == 2;
  // The working depth is the lower of the two (Note [Depth]).
  constexpr uint32_t kMax = (sizeof(SrcT) == 1 || sizeof(DstT) == 1) ? 255u : 65535u;
  constexpr int64_t kHalfShifted = int64_t{(kMax + 1) / 2} << 16;
  constexpr bool gray_src = S == PixelLayout::kGray || S == PixelLayout::kGrayAlpha;

  for (int64_t i = 0; i < n; ++i, s += sc, d += dc) {
    auto in = [&](int k) -> uint32_t {
      return narrow ? static_cast<uint32_t>(s[k] >> 8) : static_cast<uint32_t>(s[k]);
    };
    uint32_t r = 0, g = 0, b = 0, a = kMax;
    if constexpr (S == PixelLayout::kGray) {
      r = g = b = in(0);
    } else if constexpr (S == PixelLayout::kGrayAlpha) {
      r = g = b = in(0);
      a = in(1);
    } else if constexpr (S == PixelLayout::kRGB) {
      r = in(0), g = in(1), b = in(2);
    } else if constexpr (S == PixelLayout::kBGR) {
      r = in(2), g = in(1), b = in(0);
    } else if constexpr (S == PixelLayout::kRGBA) {
      r = in(0), g = in(1), b = in(2), a = in(3);
    } else if constexpr (S == PixelLayout::kCmykInverted) {
      // Note [CMYK]: 8-bit only; k - muldiv255(ink, k) is within [0, k].
      const uint32_t k = in(3);
      r = k - muldiv255(255 - in(0), k);
      g = k - muldiv255(255 - in(1), k);
      b = k - muldiv255(255 - in(2), k);
    }
    auto out = [&](int k, uint32_t v) { d[k] = static_cast<DstT>(widen ? v * 257 : v); };
    if constexpr (D == PixelLayout::kGray || D == PixelLayout::kGrayAlpha) {
      out(0, gray_src ? r : luma(r, g, b));
      if constexpr (D == PixelLayout::kGrayAlpha) out(1, a);
    } else if constexpr (D == PixelLayout::kRGB || D == PixelLayout::kRGBA) {
      out(0, r), out(1, g), out(2, b);
      if constexpr (D == PixelLayout::kRGBA) out(3, a);
    } else if constexpr (D == PixelLayout::kBGR) {
      out(0, b), out(1, g), out(2, r);
    } else if constexpr (D == PixelLayout::kYCbCr) {
      const int64_t ri = r, gi = g, bi = b;
      out(0, gray_src ? r : luma(r, g, b));
      out(1, static_cast<uint32_t>((-11059 * ri - 21709 * gi + 32768 * bi + kHalfShifted + 32767) >>
                                   16));
      out(2, static_cast<uint32_t>((32768 * ri - 27439 * gi - 5329 * bi + kHalfShifted + 32767) >>
                                   16));
    }
  }
}

template <PixelLayout S, PixelLayout D>
void dispatch_depth(const void* src, int sd, void* dst, int dd, int64_t n) {
  if (sd == 8 && dd == 8) {
    convert_impl<S, D>(static_cast<const uint8_t*>(src), static_cast<uint8_t*>(dst), n);
  } else if (sd == 8 && dd == 16) {
    convert_impl<S, D>(static_cast<const uint8_t*>(src), static_cast<uint16_t*>(dst), n);
  } else if (sd == 16 && dd == 8) {
    convert_impl<S, D>(static_cast<const uint16_t*>(src), static_cast<uint8_t*>(dst), n);
  } else {
    convert_impl<S, D>(static_cast<const uint16_t*>(src), static_cast<uint16_t*>(dst), n);
  }
}

template <PixelLayout S>
void dispatch_dst(const void* src, int sd, void* dst, PixelLayout dl, int dd, int64_t n) {
  switch (dl) {
    case PixelLayout::kGray:
      return dispatch_depth<S, PixelLayout::kGray>(src, sd, dst, dd, n);
    case PixelLayout::kGrayAlpha:
      return dispatch_depth<S, PixelLayout::kGrayAlpha>(src, sd, dst, dd, n);
    case PixelLayout::kRGB:
      return dispatch_depth<S, PixelLayout::kRGB>(src, sd, dst, dd, n);
    case PixelLayout::kRGBA:
      return dispatch_depth<S, PixelLayout::kRGBA>(src, sd, dst, dd, n);
    case PixelLayout::kBGR:
      return dispatch_depth<S, PixelLayout::kBGR>(src, sd, dst, dd, n);
    case PixelLayout::kYCbCr:
      return dispatch_depth<S, PixelLayout::kYCbCr>(src, sd, dst, dd, n);
    case PixelLayout::kCmykInverted:
      break;
  }
  throw Error("convert_row: CMYK is not an output layout");
}

}  // namespace

void convert_row(const void* src, PixelLayout sl, int src_depth, void* dst, PixelLayout dl,
                 int dst_depth, int64_t n) {
  SLUICE_ENFORCE((src_depth == 8 || src_depth == 16) && (dst_depth == 8 || dst_depth == 16),
                 "convert_row: depths must be 8 or 16, got ", src_depth, " and ", dst_depth);
  if (n <= 0) return;
  if (sl == dl) {
    const int64_t samples = n * layout_channels(sl);
    if (src_depth == dst_depth) {
      std::memcpy(dst, src, static_cast<size_t>(samples) * (src_depth / 8));
    } else if (src_depth == 8) {  // widen (Note [Depth])
      const auto* s = static_cast<const uint8_t*>(src);
      auto* d = static_cast<uint16_t*>(dst);
      for (int64_t i = 0; i < samples; ++i) d[i] = static_cast<uint16_t>(s[i] * 257);
    } else {  // narrow
      const auto* s = static_cast<const uint16_t*>(src);
      auto* d = static_cast<uint8_t*>(dst);
      for (int64_t i = 0; i < samples; ++i) d[i] = static_cast<uint8_t>(s[i] >> 8);
    }
    return;
  }
  switch (sl) {
    case PixelLayout::kGray:
      return dispatch_dst<PixelLayout::kGray>(src, src_depth, dst, dl, dst_depth, n);
    case PixelLayout::kGrayAlpha:
      return dispatch_dst<PixelLayout::kGrayAlpha>(src, src_depth, dst, dl, dst_depth, n);
    case PixelLayout::kRGB:
      return dispatch_dst<PixelLayout::kRGB>(src, src_depth, dst, dl, dst_depth, n);
    case PixelLayout::kBGR:
      return dispatch_dst<PixelLayout::kBGR>(src, src_depth, dst, dl, dst_depth, n);
    case PixelLayout::kRGBA:
      return dispatch_dst<PixelLayout::kRGBA>(src, src_depth, dst, dl, dst_depth, n);
    case PixelLayout::kCmykInverted:
      SLUICE_ENFORCE(src_depth == 8, "convert_row: CMYK sources are 8-bit only");
      return dispatch_dst<PixelLayout::kCmykInverted>(src, src_depth, dst, dl, dst_depth, n);
    case PixelLayout::kYCbCr:
      break;
  }
  throw Error("convert_row: YCbCr is not a supported source layout");
}

}  // namespace sluice::codecs
