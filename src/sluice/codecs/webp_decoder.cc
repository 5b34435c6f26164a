// WebP: the header parser of peek_image (RIFF chunks; no library) and decoding through libwebp
// (lossy, lossless, alpha; see image_decoder.h for the contract). Animated WebP is refused.
// libwebp decodes the whole image (its cropping moves odd windows of lossy images to even
// coordinates); the window's rows are then converted into the output.

#include <cstring>

#include "sluice/codecs/decoder_internal.h"
#include "sluice/core/bytes.h"
#include "sluice/core/error.h"

#if SLUICE_HAS_WEBP
#include <webp/decode.h>
#endif

namespace sluice::codecs::detail {
ImageInfo peek_webp(const uint8_t* d, size_t n) {
  constexpr size_t kChunk = 12 + 8;  // RIFF header, then the first chunk's header
  if (n < kChunk + 10) {
    throw DecodeError(make_string("WebP is truncated: ", n, " bytes cannot hold its headers"));
  }
  ImageInfo info;
  info.format = ImageFormat::kWebp;
  info.bit_depth = 8;
  WebpDetails& w = info.webp;
  const uint8_t* c = d + 12;
  const uint8_t* p = c + 8;
  const uint32_t len = load_le32(c + 4);
  uint32_t width = 0, height = 0;
  if (std::memcmp(c, "VP8 ", 4) == 0) {
    if (len < 10 || p[3] != 0x9D || p[4] != 0x01 || p[5] != 0x2A) {
      throw DecodeError("WebP: the VP8 frame header has no start code (corrupt)");
    }
    width = load_le16(p + 6) & 0x3FFF;
    height = load_le16(p + 8) & 0x3FFF;
  } else if (std::memcmp(c, "VP8L", 4) == 0) {
    if (len < 5 || p[0] != 0x2F) throw DecodeError("WebP: the VP8L header has no signature");
    const uint32_t bits = load_le32(p + 1);
    width = (bits & 0x3FFF) + 1;
    height = ((bits >> 14) & 0x3FFF) + 1;
    w.lossless = true;
    w.has_alpha = (bits >> 28) & 1;
  } else if (std::memcmp(c, "VP8X", 4) == 0) {
    if (len < 10) throw DecodeError("WebP: the VP8X chunk is too short");
    w.has_alpha = p[0] & 0x10;
    w.animated = p[0] & 0x02;
    width = load_le24(p + 4) + 1;
    height = load_le24(p + 7) + 1;
    // The image chunk after the optional ones tells lossless from lossy.
    size_t pos = 12 + 8 + size_t{len} + (len & 1);
    while (pos + 8 <= n) {
      const uint32_t l = load_le32(d + pos + 4);
      if (std::memcmp(d + pos, "VP8L", 4) == 0) w.lossless = true;
      if (std::memcmp(d + pos, "VP8", 3) == 0) break;
      if (l > n - pos - 8) break;
      pos += 8 + size_t{l} + (l & 1);
    }
  } else {
    throw DecodeError(make_string("WebP: unknown first chunk '",
                                  std::string(reinterpret_cast<const char*>(c), 4), "'"));
  }
  if (width == 0 || height == 0) {
    throw DecodeError(make_string("WebP: invalid dimensions ", width, "x", height));
  }
  info.width = width;
  info.height = height;
  info.channels = w.has_alpha ? 4 : 3;
  return info;
}

#if SLUICE_HAS_WEBP

namespace {

const char* status_name(VP8StatusCode s) {
  switch (s) {
    case VP8_STATUS_OUT_OF_MEMORY:
      return "out of memory";
    case VP8_STATUS_INVALID_PARAM:
      return "invalid parameter";
    case VP8_STATUS_BITSTREAM_ERROR:
      return "bitstream error (corrupt data)";
    case VP8_STATUS_UNSUPPORTED_FEATURE:
      return "unsupported feature";
    case VP8_STATUS_SUSPENDED:
      return "suspended";
    case VP8_STATUS_USER_ABORT:
      return "aborted";
    case VP8_STATUS_NOT_ENOUGH_DATA:
      return "not enough data (truncated)";
    default:
      return "unknown error";
  }
}

}  // namespace

void decode_webp(const uint8_t* data, size_t size, const ImageInfo& info, const RegionRequest& req,
                 ScratchImpl& scratch) {
  WebPDecoderConfig config;
  if (!WebPInitDecoderConfig(&config)) throw DecodeError("WebP: libwebp version mismatch");
  VP8StatusCode st = WebPGetFeatures(data, size, &config.input);
  if (st != VP8_STATUS_OK) throw DecodeError(make_string("WebP: ", status_name(st)));
  if (config.input.width != info.width || config.input.height != info.height) {
    throw InvalidArgument(make_string("ImageInfo (", info.width, "x", info.height,
                                      ") does not match the WebP data (", config.input.width, "x",
                                      config.input.height, ")"));
  }
  if (config.input.has_animation) throw DecodeError("WebP: animated images are not supported");
  const bool alpha = info.webp.has_alpha;
  const int channels = alpha ? 4 : 3;
  const size_t stride = static_cast<size_t>(info.width) * channels;
  const size_t bytes = stride * static_cast<size_t>(info.height);
  config.output.colorspace = alpha ? MODE_RGBA : MODE_RGB;
  config.output.is_external_memory = 1;
  config.output.u.RGBA.rgba = scratch.rows.get(bytes);
  config.output.u.RGBA.stride = static_cast<int>(stride);
  config.output.u.RGBA.size = bytes;
  st = WebPDecode(data, size, &config);
  WebPFreeDecBuffer(&config.output);  // external memory: frees nothing of ours
  if (st != VP8_STATUS_OK) throw DecodeError(make_string("WebP: ", status_name(st)));
  const uint8_t* image = scratch.rows.get(bytes);
  const PixelLayout src = alpha ? PixelLayout::kRGBA : PixelLayout::kRGB;
  for (int64_t r = 0; r < req.window.h; ++r) {
    const uint8_t* row = image + (req.window.y + r) * stride + req.window.x * channels;
    convert_row(row, src, 8, req.dst + r * req.dst_stride, req.layout, req.depth, req.window.w);
  }
}

#else  // !SLUICE_HAS_WEBP

void decode_webp(const uint8_t*, size_t, const ImageInfo&, const RegionRequest&, ScratchImpl&) {
  throw DecodeError(
      "WebP decoding is not available: Sluice was built without libwebp (install libwebp-dev "
      "and rebuild)");
}

#endif

}  // namespace sluice::codecs::detail
