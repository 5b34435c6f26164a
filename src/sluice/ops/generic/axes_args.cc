#include "sluice/ops/generic/axes_args.h"

#include <algorithm>

#include "sluice/core/error.h"

namespace sluice {

std::vector<int> resolve_axes(const std::vector<int64_t>& axes, int ndim) {
  std::vector<int> out;
  for (int64_t a : axes) {
    SLUICE_CHECK(a >= -ndim && a < ndim, InvalidArgument, "Axis ", a,
                 " out of range. Expected range is [", -ndim, ", ", ndim - 1, "] for a ", ndim,
                 "D input");
    const int d = static_cast<int>(a < 0 ? a + ndim : a);
    SLUICE_CHECK(std::find(out.begin(), out.end(), d) == out.end(), InvalidArgument, "Axis index ",
                 d,
                 " occurs more than once in ``axes`` (might include negative indices referring "
                 "to the same axis");
    out.push_back(d);
  }
  return out;
}

std::vector<int> axes_from_names(const Layout& layout, const std::string& names) {
  std::vector<int> out;
  for (char c : names) {
    const size_t d = layout.find(c);
    SLUICE_CHECK(d != Layout::npos, InvalidArgument, "Axis '", c,
                 "' is not present in the input layout \"", layout, "\"");
    out.push_back(static_cast<int>(d));
  }
  return out;
}

}  // namespace sluice
