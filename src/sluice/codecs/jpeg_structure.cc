#include "sluice/codecs/jpeg_structure.h"

#include <cstring>

#include "sluice/core/error.h"

namespace sluice::codecs {

std::string jpeg_structure_problem(const uint8_t* data, size_t size) {
  if (size < 4 || data[0] != 0xFF || data[1] != 0xD8) return "not a JPEG stream (no SOI marker)";
  size_t pos = 2;
  bool in_scan = false;
  int next_restart = 0;
  int restart_interval = 0;  // from the last DRI segment
  bool saw_scan = false;
  while (pos < size) {
    if (in_scan) {
      // Entropy-coded data: skip to the next 0xFF that starts a marker.
      const void* ff = std::memchr(data + pos, 0xFF, size - pos);
      if (!ff) break;
      pos = static_cast<const uint8_t*>(ff) - data + 1;
      while (pos < size && data[pos] == 0xFF) ++pos;  // fill bytes
      if (pos >= size) break;
      const uint8_t code = data[pos++];
      if (code == 0x00) continue;  // a stuffed 0xFF data byte
      if (code >= 0xD0 && code <= 0xD7) {
        // libjpeg reads restart markers only at restart-interval boundaries: without a DRI it
        // never checks their numbers (a stray one inside the data fails as "hit marker").
        if (restart_interval == 0) continue;
        if (code - 0xD0 != next_restart) {
          return make_string("restart marker RST", code - 0xD0, " at offset ", pos - 2,
                             " where RST", next_restart, " was expected");
        }
        next_restart = (next_restart + 1) & 7;
        continue;
      }
      in_scan = false;
      if (code == 0xD9) return "";  // EOI: complete
      pos -= 2;                     // another segment between scans: read it below
      continue;
    }
    if (data[pos] != 0xFF) return make_string("expected a marker at offset ", pos);
    while (pos < size && data[pos] == 0xFF) ++pos;
    if (pos >= size) break;
    const uint8_t code = data[pos++];
    if (code == 0xD9) return saw_scan ? "" : "EOI before any scan";
    if (code == 0x01 || (code >= 0xD0 && code <= 0xD7)) continue;  // no length
    if (pos + 2 > size) break;
    const size_t length = (size_t(data[pos]) << 8) | data[pos + 1];
    if (length < 2 || pos + length > size) {
      return make_string("segment 0x", std::hex, int(code), std::dec, " at offset ", pos - 2,
                         " runs past the end of the file");
    }
    if (code == 0xDD && length >= 4) restart_interval = (data[pos + 2] << 8) | data[pos + 3];
    pos += length;
    if (code == 0xDA) {  // SOS: entropy-coded data follows
      in_scan = true;
      saw_scan = true;
      next_restart = 0;
    }
  }
  return saw_scan ? "truncated: the data ends inside a scan (no EOI marker)"
                  : "truncated: the data ends before the first scan";
}

}  // namespace sluice::codecs
