// lookup_table on the GPU: the table goes up with the descriptors, then one launch per batch.

#include <algorithm>

#include "sluice/ops/generic/lookup_args.h"
#include "sluice/ops/gpu_operator.h"

namespace sluice {
namespace {

class LookupTableGpu : public GpuOperator {
 public:
  using GpuOperator::GpuOperator;
  void run(Workspace& ws) override {
    const TensorList& in = ws.input(0);
    LookupPlan p = plan_lookup(spec_, in.dtype());
    TensorList& out = ws.output(0);
    out.resize(in.shapes(), p.out_type);
    out.set_layout(in.layout());
    std::vector<kernels::LookupSample> desc(in.num_samples());
    int64_t max_n = 0;
    for (int i = 0; i < in.num_samples(); ++i) {
      desc[i] = {in.raw_sample(i), out.raw_sample(i), volume(in.shape(i))};
      max_n = std::max(max_n, desc[i].n);
    }
    if (max_n == 0) return;
    // Both uploads stay valid until the launch below (ParamUpload keeps the last two).
    const void* table = p.table.empty() ? nullptr : upload_->upload(p.table, ws.stream());
    const kernels::LookupParams params{in.dtype(), p.word_size, table, p.table_size,
                                       p.default_bits};
    kernels::lookup_gpu(upload_->upload(desc, ws.stream()), in.num_samples(), max_n, params,
                        ws.stream());
  }
};

SLUICE_REGISTER_OPERATOR("lookup_table", OpDevice::kGPU, LookupTableGpu);

}  // namespace
}  // namespace sluice
