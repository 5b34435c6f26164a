#pragma once
// The `axes` / `axis_names` arguments several tensor operators share (slice, pad, squeeze):
// dimension indices (negative ones from the back) or layout letters, checked as DALI checks them.

#include <string>
#include <vector>

#include "sluice/core/shape.h"

namespace sluice {

// `axes` for an `ndim`-D input: negative indices count from the back; out-of-range and repeated
// axes raise InvalidArgument.
std::vector<int> resolve_axes(const std::vector<int64_t>& axes, int ndim);

// The dimensions of `layout` named by `names`, in the order of `names`; a missing name raises.
std::vector<int> axes_from_names(const Layout& layout, const std::string& names);

}  // namespace sluice
