#pragma once
// Little-endian integers from byte buffers (file formats: TFRecord, RecordIO, BMP, WebP), by
// byte so that alignment and the host's byte order do not matter.

#include <cstdint>

namespace sluice {

inline uint32_t load_le16(const uint8_t* p) {
  return uint32_t{p[0]} | (uint32_t{p[1]} << 8);
}
inline uint32_t load_le24(const uint8_t* p) {
  return load_le16(p) | (uint32_t{p[2]} << 16);
}
inline uint32_t load_le32(const uint8_t* p) {
  return load_le24(p) | (uint32_t{p[3]} << 24);
}
inline uint64_t load_le64(const uint8_t* p) {
  return load_le32(p) | (uint64_t{load_le32(p + 4)} << 32);
}

}  // namespace sluice
