#pragma once
// What the CPU and GPU classes of cast and cast_like share: the output type.

#include <string>

#include "sluice/exec/operator.h"

namespace sluice {

// cast's `dtype` argument, or cast_like's second input's type.
inline DType cast_target(const OpSpec& spec, const Workspace& ws) {
  return ws.num_inputs() > 1 ? ws.input(1).dtype() : parse_dtype(spec.arg<std::string>("dtype"));
}

}  // namespace sluice
