#include "sluice/codecs/nvjpeg/jpeg_header_scan.h"

#include <cstring>

namespace sluice::nvjpeg {

std::string_view color_model_name(JpegColorModel m) {
  switch (m) {
    case JpegColorModel::kUnknown:
      return "unknown";
    case JpegColorModel::kGray:
      return "gray";
    case JpegColorModel::kYCbCr:
      return "YCbCr";
    case JpegColorModel::kRGB:
      return "RGB";
    case JpegColorModel::kCMYK:
      return "CMYK";
    case JpegColorModel::kYCCK:
      return "YCCK";
  }
  return "unknown";
}

namespace {

constexpr int kMaxComponents = 4;  // more are recorded as a count only
constexpr int kNumQuantTables = 4;

struct Markers {
  bool saw_jfif = false;
  bool saw_adobe = false;
  int adobe_transform = -1;
  int components = 0;
  bool lossless = false;  // SOF3 / 7 / 11 / 15: no quantization
  uint8_t ids[kMaxComponents] = {};
  uint8_t quant[kMaxComponents] = {};  // quantization table of each component
  bool quant_defined[kNumQuantTables] = {};
  bool undefined_quant_table = false;
  uint8_t sof = 0;
  bool quant16 = false;
  uint8_t sampling0 = 0x11;  // first component's sampling factors (H << 4 | V)
};

// DQT: one or more tables, each a Pq/Tq byte then 64 (8-bit) or 128 (16-bit) entries.
void read_dqt(const uint8_t* p, size_t n, Markers& m) {
  size_t at = 0;
  while (at < n) {
    int precision = p[at] >> 4;
    int index = p[at] & 0x0F;
    size_t table = precision ? 128 : 64;
    if (at + 1 + table > n) return;
    if (index < kNumQuantTables) m.quant_defined[index] = true;
    if (precision) m.quant16 = true;
    at += 1 + table;
  }
}

// SOS: Ns, then (component id, table selectors) per component.
void check_first_scan(const uint8_t* p, size_t n, Markers& m) {
  if (n < 1) return;
  int count = p[0];
  for (int s = 0; s < count && 1 + size_t(s) * 2 < n; ++s) {
    uint8_t id = p[1 + s * 2];
    for (int c = 0; c < m.components && c < kMaxComponents; ++c) {
      if (m.ids[c] != id) continue;
      if (m.quant[c] >= kNumQuantTables || !m.quant_defined[m.quant[c]]) {
        m.undefined_quant_table = true;
      }
    }
  }
}

JpegColorModel color_model(const Markers& m) {
  switch (m.components) {
    case 1:
      return JpegColorModel::kGray;
    case 3:
      if (m.saw_jfif) return JpegColorModel::kYCbCr;
      if (m.saw_adobe) {
        return m.adobe_transform == 0 ? JpegColorModel::kRGB : JpegColorModel::kYCbCr;
      }
      if (m.ids[0] == 'R' && m.ids[1] == 'G' && m.ids[2] == 'B') return JpegColorModel::kRGB;
      return JpegColorModel::kYCbCr;
    case 4:
      if (m.saw_adobe && m.adobe_transform != 0) return JpegColorModel::kYCCK;
      return JpegColorModel::kCMYK;
    default:
      return JpegColorModel::kUnknown;
  }
}

}  // namespace

JpegHeaderScan scan_jpeg_header(const uint8_t* data, size_t size) {
  JpegHeaderScan out;
  if (!data || size < 4 || data[0] != 0xFF || data[1] != 0xD8) return out;
  Markers m;
  size_t pos = 2;
  for (;;) {
    // The next marker: 0xFF, any fill 0xFF bytes, then a code that is not 0x00.
    while (pos < size && data[pos] != 0xFF) ++pos;
    while (pos < size && data[pos] == 0xFF) ++pos;
    if (pos >= size) break;
    uint8_t code = data[pos++];
    if (code == 0x00 || code == 0x01 || (code >= 0xD0 && code <= 0xD7)) continue;  // no length
    if (code == 0xD9) break;                                                       // EOI
    if (pos + 2 > size) break;
    size_t length = (size_t(data[pos]) << 8) | data[pos + 1];
    if (length < 2 || pos + length > size) break;
    const uint8_t* payload = data + pos + 2;
    const size_t n = length - 2;

    if (code == 0xE0 && n >= 5 && std::memcmp(payload, "JFIF\0", 5) == 0) {
      m.saw_jfif = true;
    } else if (code == 0xEE && n >= 12 && std::memcmp(payload, "Adobe", 5) == 0) {
      // "Adobe", version (2), flags0 (2), flags1 (2), transform (1).
      m.saw_adobe = true;
      m.adobe_transform = payload[11];
    } else if (code == 0xDB) {
      read_dqt(payload, n, m);
    } else if (code >= 0xC0 && code <= 0xCF && code != 0xC4 && code != 0xC8 && code != 0xCC) {
      // SOFn: precision (1), height (2), width (2), Nf (1), then id, sampling, Tq per component.
      if (m.components == 0 && n >= 6) {
        m.sof = code;
        m.lossless = (code & 0x03) == 0x03;
        m.components = payload[5];
        if (n >= 8) m.sampling0 = payload[7];
        for (int c = 0; c < m.components && c < kMaxComponents; ++c) {
          size_t at = 6 + size_t(c) * 3;
          if (at + 2 < n) {
            m.ids[c] = payload[at];
            m.quant[c] = payload[at + 2];
          }
        }
      }
    } else if (code == 0xDA) {
      if (m.components > 0 && !m.lossless) check_first_scan(payload, n, m);
      break;  // the header is over
    }
    pos += length;
  }
  out.color = color_model(m);
  out.undefined_quant_table = m.undefined_quant_table;
  out.sof = m.sof;
  out.quant16 = m.quant16;
  out.gray_subsampled = m.components == 1 && m.sampling0 != 0x11;
  return out;
}

}  // namespace sluice::nvjpeg
