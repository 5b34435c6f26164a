#pragma once
// Tensor shapes and layouts.

#include <cstdint>
#include <string>
#include <vector>

namespace sluice {

using Shape = std::vector<int64_t>;

// Data layout names such as "HWC" or "CHW"; empty means unspecified.
using Layout = std::string;

inline int64_t volume(const Shape& s) {
  int64_t v = 1;
  for (int64_t d : s) v *= d;
  return v;
}

std::string shape_to_string(const Shape& s);

}  // namespace sluice
