// random.normal on the GPU: the shared GPU class (random_op_gpu.cc).

#include "sluice/ops/random/random_op.h"

namespace sluice {

SLUICE_REGISTER_OPERATOR("random.normal", OpDevice::kGPU, RandomGpu);

}  // namespace sluice
