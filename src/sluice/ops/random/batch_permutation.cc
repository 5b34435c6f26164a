// batch_permutation: random indices into the batch (one int32 scalar per sample), to feed
// permute_batch. CPU only, as in DALI.

#include "sluice/exec/operator.h"
#include "sluice/graph/schema_registry.h"
#include "sluice/kernels/random/permutation.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    OpSchema("batch_permutation")
        .doc("Produces a random permutation of the batch's sample indices, one int32 scalar per "
             "sample, to feed permute_batch's `indices`.")
        .num_inputs(0, 0)
        .arg("allow_repetitions", ArgType::kBool, false,
             "If true, the output can contain repetitions and omissions.")
        .arg("no_fixed_points", ArgType::kBool, false,
             "If true, out[i] != i for every i; ignored for a batch of 1."));

class BatchPermutationCpu : public Operator {
 public:
  using Operator::Operator;
  void run(Workspace& ws) override {
    const int n = ws.batch_size();
    TensorList& out = ws.output(0);
    out.resize_uniform(n, {}, DType::kInt32);
    out.set_layout("");
    if (n == 0) return;
    // The whole batch is one draw: sample 0's stream keys it by (seed, operator, epoch, sample).
    std::vector<int32_t> indices(n);
    kernels::batch_permutation_cpu(indices.data(), n, spec_.arg<bool>("allow_repetitions"),
                                   spec_.arg<bool>("no_fixed_points"), ws.rng(0));
    for (int i = 0; i < n; ++i) out.sample<int32_t>(i)[0] = indices[i];
  }
};

SLUICE_REGISTER_OPERATOR("batch_permutation", OpDevice::kCPU, BatchPermutationCpu);

}  // namespace
}  // namespace sluice
