#include <cstring>

#include "sluice/kernels/gather/sample_gather.h"

namespace sluice::kernels {

void copy_sample_cpu(const SampleCopy& c) {
  if (c.bytes > 0) std::memcpy(c.dst, c.src, static_cast<size_t>(c.bytes));
}

}  // namespace sluice::kernels
