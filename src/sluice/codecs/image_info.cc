#include "sluice/codecs/image_info.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "sluice/codecs/decoder_internal.h"
#include "sluice/core/bytes.h"
#include "sluice/core/error.h"

namespace sluice::codecs {

std::string_view format_name(ImageFormat f) {
  switch (f) {
    case ImageFormat::kJpeg:
      return "JPEG";
    case ImageFormat::kPng:
      return "PNG";
    case ImageFormat::kBmp:
      return "BMP";
    case ImageFormat::kPnm:
      return "PNM";
    case ImageFormat::kTiff:
      return "TIFF";
    case ImageFormat::kWebp:
      return "WebP";
    case ImageFormat::kJpeg2000:
      return "JPEG 2000";
    case ImageFormat::kUnknown:
      break;
  }
  return "unknown";
}

std::string_view jpeg_color_space_name(JpegColorSpace c) {
  switch (c) {
    case JpegColorSpace::kGray:
      return "grayscale";
    case JpegColorSpace::kYCbCr:
      return "YCbCr";
    case JpegColorSpace::kRGB:
      return "RGB";
    case JpegColorSpace::kCMYK:
      return "CMYK";
    case JpegColorSpace::kYCCK:
      return "YCCK";
    case JpegColorSpace::kUnknown:
      break;
  }
  return "unknown";
}

std::string_view subsampling_name(ChromaSubsampling s) {
  switch (s) {
    case ChromaSubsampling::kNone:
      return "none";
    case ChromaSubsampling::k444:
      return "4:4:4";
    case ChromaSubsampling::k422:
      return "4:2:2";
    case ChromaSubsampling::k420:
      return "4:2:0";
    case ChromaSubsampling::k440:
      return "4:4:0";
    case ChromaSubsampling::k411:
      return "4:1:1";
    case ChromaSubsampling::k410:
      return "4:1:0";
    case ChromaSubsampling::kOther:
      break;
  }
  return "other";
}

bool JpegDetails::decodable() const {
  return precision == 8 && !lossless && !hierarchical &&
         (num_components == 1 || num_components == 3 || num_components == 4);
}

ImageFormat detect_format(const uint8_t* d, size_t n) {
  static constexpr uint8_t kPngSig[8] = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};
  static constexpr uint8_t kJp2Sig[12] = {0, 0, 0, 12, 'j', 'P', ' ', ' ', 0x0D, 0x0A, 0x87, 0x0A};
  static constexpr uint8_t kJ2kSig[4] = {0xFF, 0x4F, 0xFF, 0x51};  // SOC, SIZ
  if (d == nullptr) return ImageFormat::kUnknown;
  // TIFF: "II" 42 or "MM" 42 (43: BigTIFF), little- or big-endian.
  if (n >= 4 && ((d[0] == 'I' && d[1] == 'I' && (d[2] == 42 || d[2] == 43) && d[3] == 0) ||
                 (d[0] == 'M' && d[1] == 'M' && d[2] == 0 && (d[3] == 42 || d[3] == 43)))) {
    return ImageFormat::kTiff;
  }
  if (n >= 12 && std::memcmp(d, "RIFF", 4) == 0 && std::memcmp(d + 8, "WEBP", 4) == 0) {
    return ImageFormat::kWebp;
  }
  if ((n >= 12 && std::memcmp(d, kJp2Sig, 12) == 0) ||
      (n >= 4 && std::memcmp(d, kJ2kSig, 4) == 0)) {
    return ImageFormat::kJpeg2000;
  }
  if (n >= 2 && d[0] == 0xFF && d[1] == 0xD8) return ImageFormat::kJpeg;
  if (n >= 8 && std::memcmp(d, kPngSig, 8) == 0) return ImageFormat::kPng;
  if (n >= 2 && d[0] == 'B' && d[1] == 'M') return ImageFormat::kBmp;
  if (n >= 3 && d[0] == 'P' && d[1] >= '1' && d[1] <= '6' &&
      (d[2] == ' ' || d[2] == '\t' || d[2] == '\n' || d[2] == '\r' || d[2] == '\f' ||
       d[2] == '\v' || d[2] == '#')) {
    return ImageFormat::kPnm;
  }
  return ImageFormat::kUnknown;
}

namespace {

uint32_t be16(const uint8_t* p) {
  return (uint32_t{p[0]} << 8) | p[1];
}
uint32_t be32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

std::string hex_bytes(const uint8_t* d, size_t n) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < n && i < 8; ++i) {
    if (i) s += ' ';
    s += kHex[d[i] >> 4];
    s += kHex[d[i] & 15];
  }
  return s;
}

[[noreturn]] void unknown_format(const uint8_t* d, size_t n) {
  std::string printable;
  for (size_t i = 0; i < n && i < 16; ++i)
    printable += (d[i] >= 32 && d[i] < 127) ? char(d[i]) : '.';
  throw DecodeError(make_string(
      "unrecognised image format: the first bytes (", hex_bytes(d, n), " = \"", printable,
      "\") match no JPEG, PNG, BMP, PNM, TIFF, WebP or JPEG 2000 signature"));
}

ChromaSubsampling classify_subsampling(const JpegDetails& j) {
  if (j.num_components < 3) return ChromaSubsampling::kNone;
  const int n = std::min(j.num_components, 4);
  for (int c = 1; c < n; ++c) {
    if (j.h_samp[c] != 1 || j.v_samp[c] != 1) return ChromaSubsampling::kOther;
  }
  switch (j.h_samp[0] * 10 + j.v_samp[0]) {
    case 11:
      return ChromaSubsampling::k444;
    case 21:
      return ChromaSubsampling::k422;
    case 22:
      return ChromaSubsampling::k420;
    case 12:
      return ChromaSubsampling::k440;
    case 41:
      return ChromaSubsampling::k411;
    case 42:
      return ChromaSubsampling::k410;
    default:
      return ChromaSubsampling::kOther;
  }
}

// libjpeg-turbo 2.1.5 jdapimin.c default_decompress_parms().
JpegColorSpace classify_color_space(const JpegDetails& j) {
  switch (j.num_components) {
    case 1:
      return JpegColorSpace::kGray;
    case 3:
      if (j.has_jfif) return JpegColorSpace::kYCbCr;
      if (j.has_adobe)
        return j.adobe_transform == 0 ? JpegColorSpace::kRGB : JpegColorSpace::kYCbCr;
      if (j.component_id[0] == 82 && j.component_id[1] == 71 && j.component_id[2] == 66) {
        return JpegColorSpace::kRGB;  // 'R', 'G', 'B'
      }
      return JpegColorSpace::kYCbCr;
    case 4:
      if (j.has_adobe)
        return j.adobe_transform == 0 ? JpegColorSpace::kCMYK : JpegColorSpace::kYCCK;
      return JpegColorSpace::kCMYK;
    default:
      return JpegColorSpace::kUnknown;
  }
}

void parse_sof(const uint8_t* p, size_t len, uint8_t marker, size_t offset, ImageInfo& info) {
  JpegDetails& j = info.jpeg;
  if (len < 6) {
    throw DecodeError(make_string("JPEG SOF", marker - 0xC0, " segment at offset ", offset,
                                  " is too short (", len, " payload bytes)"));
  }
  j.sof_marker = marker;
  j.precision = p[0];
  const uint32_t height = be16(p + 1);
  const uint32_t width = be16(p + 3);
  j.num_components = p[5];
  if (j.num_components == 0) throw DecodeError("JPEG SOF declares 0 components");
  if (len != 6 + 3 * size_t(j.num_components)) {
    throw DecodeError(make_string("JPEG SOF segment at offset ", offset, ": length ", len + 2,
                                  " does not match its ", j.num_components, " components"));
  }
  for (int c = 0; c < j.num_components; ++c) {
    const uint8_t* q = p + 6 + 3 * c;
    const int h = q[1] >> 4, v = q[1] & 15;
    if (h < 1 || h > 4 || v < 1 || v > 4) {
      throw DecodeError(make_string("JPEG component ", c, " has invalid sampling factors ", h, "x",
                                    v, " (must be 1..4)"));
    }
    if (c < 4) {
      j.component_id[c] = q[0];
      j.h_samp[c] = static_cast<uint8_t>(h);
      j.v_samp[c] = static_cast<uint8_t>(v);
    }
  }
  if (width == 0) throw DecodeError("JPEG SOF declares width 0");
  if (height == 0) {
    throw DecodeError(
        "JPEG SOF declares height 0 (height defined by a DNL marker is not supported)");
  }
  const int type = marker & 0x0F;  // SOFn: n = marker - 0xC0
  j.progressive = type == 2 || type == 6 || type == 10 || type == 14;
  j.lossless = type == 3 || type == 7 || type == 11 || type == 15;
  j.hierarchical = (type >= 5 && type <= 7) || type >= 13;
  j.arithmetic = type >= 9;
  info.width = width;
  info.height = height;
  info.channels = j.num_components;
  info.bit_depth = j.precision;
}

}  // namespace

namespace detail {

ImageInfo peek_jpeg(const uint8_t* d, size_t n) {
  ImageInfo info;
  info.format = ImageFormat::kJpeg;
  JpegDetails& j = info.jpeg;
  bool have_sof = false, have_exif = false;
  size_t pos = 2;  // after SOI
  for (;;) {
    // Markers are 0xFF followed by a code; stray bytes and 0xFF fill bytes are skipped the way
    // libjpeg's next_marker() does (the decoder then reports the stray bytes as corruption).
    while (pos < n && d[pos] != 0xFF) ++pos;
    while (pos < n && d[pos] == 0xFF) ++pos;
    if (pos >= n) {
      throw DecodeError(make_string("JPEG headers are truncated: the data (", n,
                                    " bytes) ends before ",
                                    have_sof ? "the first scan (SOS)" : "a frame header (SOF)"));
    }
    const uint8_t m = d[pos++];
    const size_t marker_offset = pos - 2;
    if (m == 0x00 || m == 0x01 || (m >= 0xD0 && m <= 0xD7)) continue;  // no payload
    if (m == 0xD8) {
      throw DecodeError(make_string("JPEG has a second SOI marker at offset ", marker_offset));
    }
    if (m == 0xD9) {
      throw DecodeError(
          make_string("JPEG ends (EOI at offset ", marker_offset, ") before ",
                      have_sof ? "any scan (no SOS marker)" : "a frame header (no SOF marker)"));
    }
    if (pos + 2 > n) {
      throw DecodeError(make_string("JPEG headers are truncated inside marker 0xFF",
                                    hex_bytes(&m, 1), " at offset ", marker_offset));
    }
    const size_t len = be16(d + pos);
    if (len < 2) {
      throw DecodeError(make_string("JPEG marker 0xFF", hex_bytes(&m, 1), " at offset ",
                                    marker_offset, " has invalid length ", len));
    }
    if (pos + len > n) {
      throw DecodeError(make_string("JPEG segment 0xFF", hex_bytes(&m, 1), " at offset ",
                                    marker_offset, " declares ", len, " bytes but only ", n - pos,
                                    " remain (truncated or corrupt)"));
    }
    const uint8_t* p = d + pos + 2;
    const size_t plen = len - 2;
    const bool is_sof = m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC;
    if (is_sof) {
      if (have_sof) {
        throw DecodeError(make_string("JPEG has a second SOF marker at offset ", marker_offset));
      }
      parse_sof(p, plen, m, marker_offset, info);
      have_sof = true;
    } else if (m == 0xDA) {  // SOS: the headers are complete
      if (!have_sof) {
        throw DecodeError(make_string("JPEG scan (SOS at offset ", marker_offset,
                                      ") precedes the frame header (no SOF marker)"));
      }
      break;
    } else if (m == 0xDD && plen >= 2) {
      j.restart_interval = static_cast<int>(be16(p));
    } else if (m == 0xE0 && plen >= 14 && std::memcmp(p, "JFIF\0", 5) == 0) {
      j.has_jfif = true;  // libjpeg requires the full 14-byte JFIF header too
    } else if (m == 0xE1 && !have_exif && plen >= 6 && std::memcmp(p, "Exif\0\0", 6) == 0) {
      have_exif = true;
      info.orientation = parse_exif_orientation(p + 6, plen - 6);
    } else if (m == 0xEE && plen >= 12 && std::memcmp(p, "Adobe", 5) == 0) {
      j.has_adobe = true;
      j.adobe_transform = p[11];
    }
    pos += len;
  }
  j.color_space = classify_color_space(j);
  j.subsampling = classify_subsampling(j);
  return info;
}

ImageInfo peek_png(const uint8_t* d, size_t n) {
  ImageInfo info;
  info.format = ImageFormat::kPng;
  if (n < 8 + 8 + 13 + 4) {
    throw DecodeError(make_string("PNG is truncated: ", n, " bytes cannot hold the IHDR chunk"));
  }
  const uint8_t* c = d + 8;
  if (std::memcmp(c + 4, "IHDR", 4) != 0 || be32(c) != 13) {
    throw DecodeError(make_string("PNG: the first chunk must be a 13-byte IHDR, found '",
                                  std::string(reinterpret_cast<const char*>(c + 4), 4),
                                  "' of length ", be32(c)));
  }
  const uint32_t stored_crc = be32(c + 8 + 13);
  const uint32_t crc = static_cast<uint32_t>(crc32(crc32(0L, nullptr, 0), c + 4, 4 + 13));
  if (crc != stored_crc) {
    throw DecodeError(make_string("PNG: IHDR CRC mismatch (stored 0x", std::hex, stored_crc,
                                  ", computed 0x", crc, ")"));
  }
  const uint8_t* h = c + 8;
  const uint32_t width = be32(h), height = be32(h + 4);
  const int depth = h[8], type = h[9];
  if (width == 0 || height == 0 || width > 0x7FFFFFFFu || height > 0x7FFFFFFFu) {
    throw DecodeError(make_string("PNG: invalid dimensions ", width, "x", height));
  }
  int channels = 0;
  bool depth_ok = false;
  switch (type) {
    case 0:
      channels = 1;
      depth_ok = depth == 1 || depth == 2 || depth == 4 || depth == 8 || depth == 16;
      break;
    case 3:
      channels = 1;
      depth_ok = depth == 1 || depth == 2 || depth == 4 || depth == 8;
      break;
    case 2:
      channels = 3;
      depth_ok = depth == 8 || depth == 16;
      break;
    case 4:
      channels = 2;
      depth_ok = depth == 8 || depth == 16;
      break;
    case 6:
      channels = 4;
      depth_ok = depth == 8 || depth == 16;
      break;
    default:
      throw DecodeError(make_string("PNG: invalid colour type ", type));
  }
  if (!depth_ok) {
    throw DecodeError(make_string("PNG: invalid bit depth ", depth, " for colour type ", type));
  }
  if (h[10] != 0) throw DecodeError(make_string("PNG: unknown compression method ", int(h[10])));
  if (h[11] != 0) throw DecodeError(make_string("PNG: unknown filter method ", int(h[11])));
  if (h[12] > 1) throw DecodeError(make_string("PNG: unknown interlace method ", int(h[12])));
  info.width = width;
  info.height = height;
  info.channels = channels;
  info.bit_depth = depth;
  info.png.color_type = static_cast<PngColorType>(type);
  info.png.interlaced = h[12] == 1;

  // Walk the chunk list (lengths only; no data is inflated) for tRNS and eXIf. A malformed
  // chunk stops the walk quietly: the decoder reports it with libpng's message.
  size_t pos = 8 + 12 + 13;
  bool seen_idat = false, have_exif = false;
  while (pos + 12 <= n) {
    const uint32_t len = be32(d + pos);
    if (len > 0x7FFFFFFFu || len > n - pos - 12) break;
    const uint8_t* type_p = d + pos + 4;
    if (std::memcmp(type_p, "IDAT", 4) == 0) {
      seen_idat = true;
    } else if (std::memcmp(type_p, "tRNS", 4) == 0 && !seen_idat) {
      info.png.has_trns = true;
    } else if (std::memcmp(type_p, "eXIf", 4) == 0 && !have_exif) {
      have_exif = true;
      info.orientation = parse_exif_orientation(d + pos + 8, len);
    } else if (std::memcmp(type_p, "IEND", 4) == 0) {
      break;
    }
    pos += 12 + size_t{len};
  }
  return info;
}

}  // namespace detail

int parse_exif_orientation(const uint8_t* d, size_t n) {
  if (d == nullptr) return 1;
  if (n >= 6 && std::memcmp(d, "Exif\0\0", 6) == 0) d += 6, n -= 6;
  if (n < 8) return 1;
  bool le;
  if (d[0] == 'I' && d[1] == 'I') {
    le = true;
  } else if (d[0] == 'M' && d[1] == 'M') {
    le = false;
  } else {
    return 1;
  }
  auto u16 = [&](size_t o) { return le ? load_le16(d + o) : be16(d + o); };
  auto u32 = [&](size_t o) { return le ? load_le32(d + o) : be32(d + o); };
  if (u16(2) != 42) return 1;
  const size_t ifd = u32(4);
  if (ifd < 8 || ifd > n - 2) return 1;
  const size_t count = u16(ifd);
  for (size_t i = 0; i < count; ++i) {
    const size_t e = ifd + 2 + 12 * i;
    if (e + 12 > n) break;  // the IFD runs past the blob: use what is readable
    if (u16(e) != 0x0112) continue;
    const uint32_t type = u16(e + 2), cnt = u32(e + 4);
    uint32_t v = 0;
    if (type == 3 && cnt >= 1) {  // SHORT, stored in the value field
      v = u16(e + 8);
    } else if (type == 4 && cnt >= 1) {  // LONG (non-standard, seen in the wild)
      v = u32(e + 8);
    } else {
      return 1;
    }
    return (v >= 1 && v <= 8) ? static_cast<int>(v) : 1;
  }
  return 1;
}

ImageInfo peek_image(const uint8_t* data, size_t size) {
  if (data == nullptr || size == 0) throw DecodeError("empty input: 0 bytes is not an image");
  switch (detect_format(data, size)) {
    case ImageFormat::kJpeg:
      return detail::peek_jpeg(data, size);
    case ImageFormat::kPng:
      return detail::peek_png(data, size);
    case ImageFormat::kBmp:
      return detail::peek_bmp(data, size);
    case ImageFormat::kPnm:
      return detail::peek_pnm(data, size);
    case ImageFormat::kTiff:
      return detail::peek_tiff(data, size);
    case ImageFormat::kWebp:
      return detail::peek_webp(data, size);
    case ImageFormat::kJpeg2000:
      return detail::peek_jpeg2000(data, size);
    case ImageFormat::kUnknown:
      break;
  }
  unknown_format(data, size);
}

}  // namespace sluice::codecs
