// normalize on the GPU: the statistics through the reduction kernels, folded per sample or over
// the batch, then one normalizing launch.

#include <algorithm>

#include "sluice/cuda/cuda_api.h"
#include "sluice/kernels/reduce/reduce_gpu.h"
#include "sluice/ops/generic/normalize_op.h"

namespace sluice {

void NormalizeGpu::setup(const OpContext& ctx) {
  GpuOperator::setup(ctx);
  scratch_ = std::make_unique<TensorList>(MemoryKind::kDevice, ctx.device_id);
}

void NormalizeGpu::run(Workspace& ws) {
  using Source = NormalizePlan::Source;
  using kernels::NormalizeFoldKind;
  const TensorList& in = ws.input(0);
  NormalizePlan p = plan_normalize(spec_, ws);
  const int n = in.num_samples();
  TensorList& out = ws.output(0);
  out.resize(in.shapes(), p.out_type);
  out.set_layout(in.layout());
  const cuda::StreamHandle stream = ws.stream();

  // Scratch: per-sample parts of a statistic, then the mean and the inverse stddev (at each
  // sample's parameter offset; computed over the batch, at offset 0 for all).
  std::vector<int64_t> offset(n);
  int64_t total = 0, max_param = 0, max_volume = 0, max_reduced = 0;
  for (int i = 0; i < n; ++i) {
    offset[i] = total;
    total += p.param_volume[i];
    max_param = std::max(max_param, p.param_volume[i]);
    max_volume = std::max(max_volume, p.geometry[i].volume);
    max_reduced = std::max(max_reduced, p.count[i]);
  }
  if (max_volume == 0) return;
  scratch_->set_stream(stream);
  scratch_->resize_uniform(1, {3 * total}, DType::kFloat32);
  float* part = scratch_->sample<float>(0);
  float* mean = part + total;
  float* inv = mean + total;

  auto put = [&](const std::vector<std::vector<float>>& values, float* dst) {
    std::vector<float> flat;
    flat.reserve(static_cast<size_t>(total));
    for (const auto& v : values) flat.insert(flat.end(), v.begin(), v.end());
    cuda::memcpy_async(dst, upload_->upload(flat, stream), flat.size() * sizeof(float), stream);
  };
  if (p.mean != Source::kComputed) put(p.mean_values, mean);
  if (p.stddev != Source::kComputed) put(p.inv_values, inv);

  const bool batch_mean = p.batch && p.mean == Source::kComputed;
  const bool batch_inv = p.batch && p.stddev == Source::kComputed;
  auto statistic = [&](kernels::ReduceOp op, bool around, NormalizeFoldKind kind, float* into) {
    std::vector<kernels::ReduceSampleGpu> desc(n);
    std::vector<kernels::NormalizePart> parts(n);
    for (int i = 0; i < n; ++i) {
      const float* m = around ? mean + (batch_mean ? 0 : offset[i]) : nullptr;
      desc[i] = {in.raw_sample(i), part + offset[i], m,
                 kernels::reduce_geometry(in.shape(i), p.axis_mask)};
      parts[i] = {part + offset[i], p.count[i]};
    }
    kernels::reduce_gpu(op, upload_->upload(desc, stream), n, max_param, max_reduced,
                        DType::kFloat32, in.dtype(), 0, stream);
    const kernels::NormalizePart* d_parts = upload_->upload(parts, stream);
    std::vector<kernels::NormalizeFold> folds;
    if (p.batch) {
      folds.push_back({d_parts, n, into, p.param_volume[0]});
    } else {
      for (int i = 0; i < n; ++i)
        folds.push_back({d_parts + i, 1, into + offset[i], p.param_volume[i]});
    }
    kernels::normalize_fold_gpu(upload_->upload(folds, stream), static_cast<int>(folds.size()),
                                max_param, p.fold(kind), stream);
  };
  if (p.mean == Source::kComputed) {
    statistic(kernels::ReduceOp::kMean, false, NormalizeFoldKind::kMean, mean);
  }
  if (p.stddev == Source::kComputed) {
    statistic(kernels::ReduceOp::kVariance, true, NormalizeFoldKind::kInvStdDev, inv);
  }

  std::vector<kernels::NormalizeSampleGpu> desc(n);
  for (int i = 0; i < n; ++i) {
    desc[i] = {in.raw_sample(i), out.raw_sample(i), mean + (batch_mean ? 0 : offset[i]),
               inv + (batch_inv ? 0 : offset[i]), p.geometry[i]};
  }
  kernels::normalize_gpu(upload_->upload(desc, stream), n, max_volume, p.out_type, in.dtype(),
                         p.shift, stream);
}

namespace {
SLUICE_REGISTER_OPERATOR("normalize", OpDevice::kGPU, NormalizeGpu);
}  // namespace

}  // namespace sluice
