#include "sluice/kernels/convolution/filter.h"

#include "sluice/core/error.h"
#include "sluice/kernels/convolution/filter_element.h"

namespace sluice::kernels::conv {

bool filter_type_supported(DType t) {
  return t == DType::kUInt8 || t == DType::kUInt16 || t == DType::kInt16 || t == DType::kFloat32;
}

void filter_cpu(const FilterSample& s, DType in_type, DType out_type) {
  filter_dispatch(in_type, out_type, [&](auto in_tag, auto out_tag) {
    using In = typename decltype(in_tag)::type;
    using Out = typename decltype(out_tag)::type;
    const int64_t n = s.out_volume();
    for (int64_t e = 0; e < n; ++e) filter_element<Out, In>(s, e);
  });
}

}  // namespace sluice::kernels::conv
