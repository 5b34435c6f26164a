// JPEG 2000: the header parser of peek_image (JP2 boxes, the codestream's SIZ marker; no
// library) and decoding through OpenJPEG, J2K codestreams and JP2 files (see image_decoder.h
// for the contract). The whole image is decoded and the window taken from it: OpenJPEG's own
// region decoding (opj_set_decode_area) refuses some files that decode whole. Components of up to
// 8 bits decode as 8-bit samples, deeper ones as 16-bit (other precisions are rescaled to the
// full range: v * (2^depth - 1) / (2^precision - 1); signed samples are offset by 2^(p-1)).
// Refused with DecodeError: subsampled components, more than 4 components.

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "sluice/codecs/decoder_internal.h"
#include "sluice/core/error.h"

#if SLUICE_HAS_OPENJPEG
#include <openjpeg.h>
#endif

namespace sluice::codecs::detail {
namespace {

uint32_t be16(const uint8_t* p) {
  return (uint32_t{p[0]} << 8) | p[1];
}
uint32_t be32(const uint8_t* p) {
  return (be16(p) << 16) | be16(p + 2);
}

// The offset of the codestream in a JP2 file (the contents of its jp2c box).
size_t find_codestream(const uint8_t* d, size_t n) {
  size_t pos = 0;
  while (pos + 8 <= n) {
    uint64_t len = be32(d + pos);
    size_t header = 8;
    if (len == 1) {
      if (pos + 16 > n) break;
      len = (uint64_t{be32(d + pos + 8)} << 32) | be32(d + pos + 12);
      header = 16;
    } else if (len == 0) {
      len = n - pos;  // the last box runs to the end of the file
    }
    if (len < header) break;
    if (std::memcmp(d + pos + 4, "jp2c", 4) == 0) return pos + header;
    if (len > n - pos) break;
    pos += len;
  }
  throw DecodeError("JPEG 2000 (JP2): no codestream box (jp2c) in the file (truncated or corrupt)");
}

}  // namespace

ImageInfo peek_jpeg2000(const uint8_t* d, size_t n) {
  ImageInfo info;
  info.format = ImageFormat::kJpeg2000;
  Jpeg2000Details& j = info.jp2;
  j.jp2 = !(n >= 2 && d[0] == 0xFF && d[1] == 0x4F);
  const size_t cs = j.jp2 ? find_codestream(d, n) : 0;
  // SOC, then SIZ: Lsiz Rsiz Xsiz Ysiz XOsiz YOsiz XTsiz YTsiz XTOsiz YTOsiz Csiz, 3 bytes per
  // component (Ssiz XRsiz YRsiz).
  constexpr size_t kSizFixed = 4 + 2 + 2 + 8 * 4 + 2;
  if (cs > n || n - cs < kSizFixed || be16(d + cs) != 0xFF4F || be16(d + cs + 2) != 0xFF51) {
    throw DecodeError(make_string("JPEG 2000: the codestream at offset ", cs,
                                  " does not start with SOC and SIZ (truncated or corrupt)"));
  }
  const uint8_t* s = d + cs + 4;
  const uint32_t xsiz = be32(s + 4), ysiz = be32(s + 8), x0 = be32(s + 12), y0 = be32(s + 16);
  const uint32_t comps = be16(s + 36);
  if (comps == 0 || comps > 16384 || be16(s) != 38 + 3 * comps || n - cs - 4 < 38 + 3 * comps) {
    throw DecodeError(make_string("JPEG 2000: invalid SIZ marker (", comps, " components, length ",
                                  be16(s), ")"));
  }
  if (xsiz <= x0 || ysiz <= y0 || xsiz - x0 > 0x7FFFFFFFu || ysiz - y0 > 0x7FFFFFFFu) {
    throw DecodeError(
        make_string("JPEG 2000: invalid image area ", x0, "..", xsiz, " x ", y0, "..", ysiz));
  }
  int precision = 0;
  for (uint32_t c = 0; c < comps; ++c) {
    const uint8_t* q = s + 38 + 3 * c;
    precision = std::max(precision, (q[0] & 0x7F) + 1);
    j.is_signed |= (q[0] & 0x80) != 0;
    if (q[1] == 0 || q[2] == 0) throw DecodeError("JPEG 2000: a component has subsampling 0");
    j.subsampled |= q[1] != 1 || q[2] != 1;
  }
  info.width = xsiz - x0;
  info.height = ysiz - y0;
  info.channels = static_cast<int>(comps);
  info.bit_depth = precision;
  return info;
}

#if SLUICE_HAS_OPENJPEG

namespace {

struct MemStream {
  const uint8_t* data = nullptr;
  size_t size = 0;
  size_t pos = 0;
  std::string error;  // OpenJPEG's first error message
};

OPJ_SIZE_T mem_read(void* buf, OPJ_SIZE_T n, void* user) {
  auto* m = static_cast<MemStream*>(user);
  if (m->pos >= m->size) return static_cast<OPJ_SIZE_T>(-1);
  const size_t k = std::min(n, m->size - m->pos);
  std::memcpy(buf, m->data + m->pos, k);
  m->pos += k;
  return k;
}
OPJ_OFF_T mem_skip(OPJ_OFF_T n, void* user) {
  auto* m = static_cast<MemStream*>(user);
  if (n < 0 ? static_cast<size_t>(-n) > m->pos : static_cast<size_t>(n) > m->size - m->pos) {
    return -1;
  }
  m->pos += n;
  return n;
}
OPJ_BOOL mem_seek(OPJ_OFF_T to, void* user) {
  auto* m = static_cast<MemStream*>(user);
  if (to < 0 || static_cast<uint64_t>(to) > m->size) return OPJ_FALSE;
  m->pos = static_cast<size_t>(to);
  return OPJ_TRUE;
}
void on_error(const char* msg, void* user) {
  auto* m = static_cast<MemStream*>(user);
  if (!m->error.empty() || msg == nullptr) return;
  m->error = msg;
  while (!m->error.empty() && (m->error.back() == '\n' || m->error.back() == ' ')) {
    m->error.pop_back();
  }
}
void ignore(const char*, void*) {}

struct Handles {
  opj_stream_t* stream = nullptr;
  opj_codec_t* codec = nullptr;
  opj_image_t* image = nullptr;
  ~Handles() {
    if (image) opj_image_destroy(image);
    if (codec) opj_destroy_codec(codec);
    if (stream) opj_stream_destroy(stream);
  }
};

[[noreturn]] void fail(const MemStream& m, const char* what) {
  throw DecodeError(make_string("JPEG 2000: ", what, m.error.empty() ? "" : ": ", m.error));
}

}  // namespace

void decode_jpeg2000(const uint8_t* data, size_t size, const ImageInfo& info,
                     const RegionRequest& req, ScratchImpl&) {
  if (info.jp2.subsampled) {
    throw DecodeError("JPEG 2000: subsampled components are not supported");
  }
  if (info.channels > 4) {
    throw DecodeError(
        make_string("JPEG 2000: ", info.channels, " components are not supported (at most 4)"));
  }
  MemStream m;
  m.data = data;
  m.size = size;
  Handles h;
  h.stream = opj_stream_create(OPJ_J2K_STREAM_CHUNK_SIZE, OPJ_TRUE);
  if (h.stream == nullptr) throw OutOfMemory("OpenJPEG could not create a stream");
  opj_stream_set_user_data(h.stream, &m, nullptr);
  opj_stream_set_user_data_length(h.stream, size);
  opj_stream_set_read_function(h.stream, mem_read);
  opj_stream_set_skip_function(h.stream, mem_skip);
  opj_stream_set_seek_function(h.stream, mem_seek);
  h.codec = opj_create_decompress(info.jp2.jp2 ? OPJ_CODEC_JP2 : OPJ_CODEC_J2K);
  if (h.codec == nullptr) throw OutOfMemory("OpenJPEG could not create a decoder");
  opj_set_error_handler(h.codec, on_error, &m);
  opj_set_warning_handler(h.codec, ignore, nullptr);
  opj_set_info_handler(h.codec, ignore, nullptr);
  opj_dparameters_t params;
  opj_set_default_decoder_parameters(&params);
  if (!opj_setup_decoder(h.codec, &params)) fail(m, "cannot set up the decoder");
#if OPJ_VERSION_MAJOR > 2 || (OPJ_VERSION_MAJOR == 2 && OPJ_VERSION_MINOR >= 5)
  // Truncated codestreams are errors, not images with missing detail (Note [Corrupt data
  // policy] in image_decoder.h).
  opj_decoder_set_strict_mode(h.codec, OPJ_TRUE);
#endif
  if (!opj_read_header(h.stream, h.codec, &h.image)) fail(m, "cannot read the header");
  opj_image_t* img = h.image;
  if (img->x1 - img->x0 != info.width || img->y1 - img->y0 != info.height ||
      static_cast<int>(img->numcomps) != info.channels) {
    throw InvalidArgument("ImageInfo does not match the JPEG 2000 data (use peek_image)");
  }
  if (!opj_decode(h.codec, h.stream, img) || !opj_end_decompress(h.codec, h.stream)) {
    fail(m, "cannot decode the image");
  }
  const CropWindow& w = req.window;
  const int nc = static_cast<int>(img->numcomps);  // a JP2 palette may have changed it
  if (nc < 1 || nc > 4) fail(m, "the decoded image has an unsupported number of components");
  int precision = 0;
  for (int c = 0; c < nc; ++c) {
    const opj_image_comp_t& comp = img->comps[c];
    if (comp.data == nullptr || comp.w != static_cast<OPJ_UINT32>(info.width) ||
        comp.h != static_cast<OPJ_UINT32>(info.height) || comp.prec < 1 || comp.prec > 31) {
      fail(m, "a component was not decoded to the image's size");
    }
    precision = std::max(precision, static_cast<int>(comp.prec));
  }
  static constexpr PixelLayout kLayouts[] = {PixelLayout::kGray, PixelLayout::kGrayAlpha,
                                             PixelLayout::kRGB, PixelLayout::kRGBA};
  const PixelLayout src = kLayouts[nc - 1];
  const int depth = precision <= 8 ? 8 : 16;
  const uint32_t out_max = depth == 8 ? 255u : 65535u;
  std::vector<uint16_t> row(static_cast<size_t>(w.w) * nc);
  std::vector<uint8_t> row8(depth == 8 ? row.size() : 0);
  for (int64_t y = 0; y < w.h; ++y) {
    for (int c = 0; c < nc; ++c) {
      const opj_image_comp_t& comp = img->comps[c];
      const int64_t p = comp.prec;
      const int64_t max = (int64_t{1} << p) - 1;
      const int64_t offset = comp.sgnd ? int64_t{1} << (p - 1) : 0;
      const OPJ_INT32* in = comp.data + (w.y + y) * info.width + w.x;
      for (int64_t x = 0; x < w.w; ++x) {
        const int64_t v = std::clamp<int64_t>(in[x] + offset, 0, max);
        row[x * nc + c] = static_cast<uint16_t>(p == (depth == 8 ? 8 : 16) ? v : v * out_max / max);
      }
    }
    const void* src_row = row.data();
    if (depth == 8) {
      std::copy(row.begin(), row.end(), row8.begin());
      src_row = row8.data();
    }
    convert_row(src_row, src, depth, req.dst + y * req.dst_stride, req.layout, req.depth, w.w);
  }
}

#else  // !SLUICE_HAS_OPENJPEG

void decode_jpeg2000(const uint8_t*, size_t, const ImageInfo&, const RegionRequest&, ScratchImpl&) {
  throw DecodeError(
      "JPEG 2000 decoding is not available: Sluice was built without OpenJPEG (install "
      "libopenjp2-7-dev and rebuild)");
}

#endif

}  // namespace sluice::codecs::detail
