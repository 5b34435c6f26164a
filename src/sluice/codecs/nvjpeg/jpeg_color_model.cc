#include "sluice/codecs/nvjpeg/jpeg_color_model.h"

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

JpegColorModel scan_jpeg_color_model(const uint8_t* data, size_t size) {
  if (!data || size < 4 || data[0] != 0xFF || data[1] != 0xD8) return JpegColorModel::kUnknown;
  bool saw_jfif = false;
  bool saw_adobe = false;
  int adobe_transform = -1;
  int components = 0;
  uint8_t ids[4] = {0, 0, 0, 0};

  size_t pos = 2;
  for (;;) {
    // Find the next marker: 0xFF, any fill 0xFF bytes, then a code that is not 0x00.
    while (pos < size && data[pos] != 0xFF) ++pos;
    while (pos < size && data[pos] == 0xFF) ++pos;
    if (pos >= size) break;
    uint8_t code = data[pos++];
    if (code == 0x00 || code == 0x01 || (code >= 0xD0 && code <= 0xD7)) continue;  // no length
    if (code == 0xD9 || code == 0xDA) break;  // EOI / SOS: the header is over
    if (pos + 2 > size) break;
    size_t length = (size_t(data[pos]) << 8) | data[pos + 1];
    if (length < 2 || pos + length > size) break;
    const uint8_t* payload = data + pos + 2;
    size_t payload_size = length - 2;

    if (code == 0xE0 && payload_size >= 5 && std::memcmp(payload, "JFIF\0", 5) == 0) {
      saw_jfif = true;
    } else if (code == 0xEE && payload_size >= 12 && std::memcmp(payload, "Adobe", 5) == 0) {
      // "Adobe", version (2), flags0 (2), flags1 (2), transform (1).
      saw_adobe = true;
      adobe_transform = payload[11];
    } else if (code >= 0xC0 && code <= 0xCF && code != 0xC4 && code != 0xC8 && code != 0xCC) {
      // SOFn: precision (1), height (2), width (2), components (1), then 3 bytes per component.
      if (components == 0 && payload_size >= 6) {
        components = payload[5];
        for (int c = 0; c < components && c < 4; ++c) {
          size_t at = 6 + size_t(c) * 3;
          if (at < payload_size) ids[c] = payload[at];
        }
      }
    }
    pos += length;
  }

  switch (components) {
    case 1:
      return JpegColorModel::kGray;
    case 3:
      if (saw_jfif) return JpegColorModel::kYCbCr;
      if (saw_adobe) return adobe_transform == 0 ? JpegColorModel::kRGB : JpegColorModel::kYCbCr;
      if (ids[0] == 'R' && ids[1] == 'G' && ids[2] == 'B') return JpegColorModel::kRGB;
      return JpegColorModel::kYCbCr;
    case 4:
      if (saw_adobe && adobe_transform != 0) return JpegColorModel::kYCCK;
      return JpegColorModel::kCMYK;
    default:
      return JpegColorModel::kUnknown;
  }
}

}  // namespace sluice::nvjpeg
