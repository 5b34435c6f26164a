#pragma once
// A rectangular window of an image, in pixels (may extend outside the image).

#include <cstdint>
#include <ostream>
#include <string>

namespace sluice {

struct CropWindow {
  int64_t y = 0;
  int64_t x = 0;
  int64_t h = 0;
  int64_t w = 0;

  friend bool operator==(const CropWindow&, const CropWindow&) = default;
  // True when the window lies inside an image of `height` x `width`.
  bool inside(int64_t height, int64_t width) const {
    return y >= 0 && x >= 0 && y + h <= height && x + w <= width;
  }
};

inline std::string to_string(const CropWindow& w) {
  return "CropWindow{y=" + std::to_string(w.y) + ", x=" + std::to_string(w.x) +
         ", h=" + std::to_string(w.h) + ", w=" + std::to_string(w.w) + "}";
}
inline std::ostream& operator<<(std::ostream& os, const CropWindow& w) {
  return os << to_string(w);
}

}  // namespace sluice
