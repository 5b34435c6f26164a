// The TIFF header parser of peek_image: the first IFD of a classic or BigTIFF file, read with
// bounds checks on every offset (no library: peek_image works without libtiff).

#include <cstring>

#include "sluice/codecs/decoder_internal.h"
#include "sluice/core/error.h"

namespace sluice::codecs::detail {
namespace {

class TiffReader {
 public:
  TiffReader(const uint8_t* d, size_t n) : d_(d), n_(n), be_(d[0] == 'M') {}

  bool big_endian() const { return be_; }

  uint64_t u(size_t off, int bytes) const {
    if (off > n_ || static_cast<size_t>(bytes) > n_ - off) {
      throw DecodeError(make_string("TIFF is truncated: a ", bytes, "-byte value at offset ", off,
                                    " lies past the end of the ", n_, "-byte file"));
    }
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) {
      const uint64_t b = d_[off + i];
      v |= be_ ? b << (8 * (bytes - 1 - i)) : b << (8 * i);
    }
    return v;
  }

 private:
  const uint8_t* d_;
  size_t n_;
  bool be_;
};

// The size in bytes of one value of a TIFF field type; 0 for types a header field never has.
int type_size(uint32_t type) {
  switch (type) {
    case 1:  // BYTE
    case 6:  // SBYTE
    case 7:  // UNDEFINED
      return 1;
    case 3:  // SHORT
    case 8:  // SSHORT
      return 2;
    case 4:   // LONG
    case 9:   // SLONG
    case 13:  // IFD
      return 4;
    case 16:  // LONG8
    case 17:  // SLONG8
    case 18:  // IFD8
      return 8;
    default:
      return 0;
  }
}

}  // namespace

ImageInfo peek_tiff(const uint8_t* d, size_t n) {
  if (n < 8) throw DecodeError(make_string("TIFF is truncated: ", n, " bytes hold no header"));
  TiffReader r(d, n);
  const bool big = r.u(2, 2) == 43;
  size_t ifd = 0;
  if (big) {
    if (n < 16 || r.u(4, 2) != 8) throw DecodeError("BigTIFF header is truncated or invalid");
    ifd = r.u(8, 8);
  } else {
    ifd = r.u(4, 4);
  }
  const size_t entry_size = big ? 20 : 12;
  const int count_size = big ? 8 : 2;
  const size_t inline_bytes = big ? 8 : 4;
  if (ifd < 8 || ifd >= n) {
    throw DecodeError(
        make_string("TIFF: the first IFD's offset ", ifd, " lies outside the ", n, "-byte file"));
  }
  const uint64_t count = r.u(ifd, count_size);
  if (count == 0 || count > (n - ifd) / entry_size) {
    throw DecodeError(make_string("TIFF: the IFD at offset ", ifd, " declares ", count,
                                  " entries, more than the file holds"));
  }

  ImageInfo info;
  info.format = ImageFormat::kTiff;
  TiffDetails& t = info.tiff;
  t.big_endian = r.big_endian();
  t.photometric = -1;
  uint64_t width = 0, height = 0, extra_samples = 0;
  int bits = 1, spp = 1;
  for (uint64_t i = 0; i < count; ++i) {
    const size_t e = ifd + count_size + i * entry_size;
    const uint32_t tag = static_cast<uint32_t>(r.u(e, 2));
    const uint32_t type = static_cast<uint32_t>(r.u(e + 2, 2));
    const uint64_t values = r.u(e + 4, big ? 8 : 4);
    const int size = type_size(type);
    if (size == 0 || values == 0) continue;
    // The first value: inline when every value fits in the entry, else at the given offset.
    const size_t value_field = e + 4 + (big ? 8 : 4);
    const size_t at = values <= inline_bytes / size ? value_field : r.u(value_field, big ? 8 : 4);
    auto first = [&] { return r.u(at, size); };
    switch (tag) {
      case 256:
        width = first();
        break;
      case 257:
        height = first();
        break;
      case 258:
        bits = static_cast<int>(first());
        break;
      case 259:
        t.compression = static_cast<int>(first());
        break;
      case 262:
        t.photometric = static_cast<int>(first());
        break;
      case 274:
        info.orientation = static_cast<int>(first());
        break;
      case 277:
        spp = static_cast<int>(first());
        break;
      case 284:
        t.planar_config = static_cast<int>(first());
        break;
      case 322:
        t.tiled = true;
        break;
      case 338:
        extra_samples = values;
        break;
      case 339:
        t.sample_format = static_cast<int>(first());
        break;
      default:
        break;
    }
  }
  if (width == 0 || height == 0 || width > 0x7FFFFFFFu || height > 0x7FFFFFFFu) {
    throw DecodeError(make_string("TIFF: invalid dimensions ", width, "x", height));
  }
  if (spp < 1 || spp > 16) throw DecodeError(make_string("TIFF: invalid SamplesPerPixel ", spp));
  if (bits < 1 || bits > 64) throw DecodeError(make_string("TIFF: invalid BitsPerSample ", bits));
  if (t.photometric < 0) t.photometric = spp >= 3 ? 2 : 1;  // absent: libtiff's guess
  if (info.orientation < 1 || info.orientation > 8) info.orientation = 1;
  const int colour = (t.photometric == 2 || t.photometric == 6) ? 3 : 1;
  t.has_alpha = extra_samples > 0 && spp > colour;
  info.width = static_cast<int64_t>(width);
  info.height = static_cast<int64_t>(height);
  info.channels = spp;
  info.bit_depth = bits;
  return info;
}

PixelLayout tiff_layout(const ImageInfo& info) {
  const TiffDetails& t = info.tiff;
  if (t.photometric == 3) return PixelLayout::kRGB;  // palette
  if (t.photometric == 2 || t.photometric == 6) {
    return info.channels >= 4 ? PixelLayout::kRGBA : PixelLayout::kRGB;
  }
  return info.channels >= 2 ? PixelLayout::kGrayAlpha : PixelLayout::kGray;
}

}  // namespace sluice::codecs::detail
