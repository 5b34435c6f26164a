#include "sluice/core/shape.h"

namespace sluice {

std::string shape_to_string(const Shape& s) {
  std::string out = "(";
  for (size_t i = 0; i < s.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(s[i]);
  }
  return out + ")";
}

}  // namespace sluice
