#pragma once
// DALI's ConvertSat as its CPU operators apply it, on the host and the device, for kernels whose
// outputs must equal those operators'.

#include <cmath>
#include <limits>
#include <type_traits>

#include "sluice/core/float16.h"  // SLUICE_HOST_DEVICE

namespace sluice::kernels {

// DALI's conversion of the CPU operators: floating values round half away from zero, then
// saturate (NaN gives 0); integers saturate.
template <typename Out, typename In>
SLUICE_HOST_DEVICE inline Out convert_sat(In v) {
  if constexpr (std::is_floating_point_v<Out>) {
    return static_cast<Out>(v);
  } else {
    constexpr double lo = static_cast<double>(std::numeric_limits<Out>::lowest());
    constexpr double hi = static_cast<double>(std::numeric_limits<Out>::max());
    double d = static_cast<double>(v);
    if constexpr (std::is_floating_point_v<In>) {
      if (d != d) return Out(0);
      d = round(d);
    }
    return static_cast<Out>(d < lo ? lo : d > hi ? hi : d);
  }
}

}  // namespace sluice::kernels
