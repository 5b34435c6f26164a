// The reductions on the GPU, all registered here: one launch per batch over per-sample
// descriptors.

#include "sluice/cuda/cuda_api.h"
#include "sluice/kernels/reduce/reduce_gpu.h"
#include "sluice/ops/reductions/reduce_op.h"

namespace sluice {

using kernels::ReduceOp;

template <ReduceOp Op>
void ReduceGpu<Op>::run(Workspace& ws) {
  const TensorList& in = ws.input(0);
  ReducePlan p = plan_reduce(Op, spec_, ws);
  TensorList& out = ws.output(0);
  out.resize(p.out_shapes, p.out_type);
  out.set_layout(p.layout);
  if (p.zero_fill) {
    if (out.total_bytes() > 0)
      cuda::memset_async(out.raw_data(), 0, out.total_bytes(), ws.stream());
    return;
  }
  const TensorList* mean = ws.num_inputs() > 1 ? &ws.input(1) : nullptr;
  std::vector<kernels::ReduceSampleGpu> desc(in.num_samples());
  int64_t max_out = 0, max_reduced = 0;
  for (int i = 0; i < in.num_samples(); ++i) {
    desc[i] = {in.raw_sample(i), out.raw_sample(i), mean ? mean->sample<float>(i) : nullptr,
               p.geometry[i]};
    max_out = std::max(max_out, p.geometry[i].out_volume);
    max_reduced = std::max(max_reduced, p.geometry[i].reduced_volume);
  }
  if (max_out == 0) return;
  kernels::reduce_gpu(Op, upload_->upload(desc, ws.stream()), in.num_samples(), max_out,
                      max_reduced, p.out_type, in.dtype(), p.ddof, ws.stream());
}

SLUICE_REGISTER_OPERATOR("reductions.sum", OpDevice::kGPU, ReduceGpu<ReduceOp::kSum>);
SLUICE_REGISTER_OPERATOR("reductions.min", OpDevice::kGPU, ReduceGpu<ReduceOp::kMin>);
SLUICE_REGISTER_OPERATOR("reductions.max", OpDevice::kGPU, ReduceGpu<ReduceOp::kMax>);
SLUICE_REGISTER_OPERATOR("reductions.mean", OpDevice::kGPU, ReduceGpu<ReduceOp::kMean>);
SLUICE_REGISTER_OPERATOR("reductions.mean_square", OpDevice::kGPU,
                         ReduceGpu<ReduceOp::kMeanSquare>);
SLUICE_REGISTER_OPERATOR("reductions.rms", OpDevice::kGPU, ReduceGpu<ReduceOp::kRms>);
SLUICE_REGISTER_OPERATOR("reductions.variance", OpDevice::kGPU, ReduceGpu<ReduceOp::kVariance>);
SLUICE_REGISTER_OPERATOR("reductions.std_dev", OpDevice::kGPU, ReduceGpu<ReduceOp::kStdDev>);

}  // namespace sluice
