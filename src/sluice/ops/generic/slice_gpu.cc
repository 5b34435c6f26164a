// slice on the GPU: the windows are planned on the host (slice.h); windows inside the input go
// to one strided-copy launch, the others to one slice-kernel launch, their descriptors and fill
// values in one upload. Anchor and shape inputs on the GPU are copied to the host first (a
// synchronisation, as in DALI): CPU inputs are the fast way.

#include <cstring>

#include "sluice/ops/generic/slice.h"
#include "sluice/ops/gpu_operator.h"

namespace sluice {
namespace {

// `t` as host data: itself, or its copy in `host` when it lives on the device.
const TensorList* on_host(const TensorList& t, TensorList& host, cuda::StreamHandle stream) {
  if (t.kind() != MemoryKind::kDevice) return &t;
  host.copy_from(t, stream);
  cuda::stream_synchronize(stream);
  return &host;
}

class SliceGpu : public GpuOperator {
 public:
  using GpuOperator::GpuOperator;
  void setup(const OpContext& ctx) override {
    GpuOperator::setup(ctx);
    args_ = parse_slice_args(spec_);
  }
  void run(Workspace& ws) override {
    const TensorList& in = ws.input(0);
    const bool positional = ws.num_inputs() == 3;
    const TensorList* anchor = positional ? on_host(ws.input(1), anchor_, ws.stream()) : nullptr;
    const TensorList* shape = positional ? on_host(ws.input(2), shape_, ws.stream()) : nullptr;
    plan_slice(args_, spec_, ws, anchor, shape, plan_);
    const SlicePlan& plan = plan_;
    TensorList& out = ws.output(0);
    out.resize(plan.out_shapes, plan.out_type);
    out.set_layout(in.layout());
    const int n = out.num_samples();
    copies_.clear();
    slices_.clear();
    int64_t max_copy = 0, max_slice = 0;
    for (int i = 0; i < n; ++i) {
      if (slice_is_copy(plan, in, i)) {
        copies_.push_back(slice_copy_desc(plan, in, out, i));
        max_copy = std::max(max_copy, kernels::strided_copy_volume(copies_.back()));
      } else {
        slices_.push_back(slice_desc(plan, in, out, i, nullptr));
        max_slice = std::max(max_slice, volume(plan.out_shapes[i]));
      }
    }
    if (max_copy == 0 && max_slice == 0) return;
    const size_t copy_bytes = copies_.size() * sizeof(copies_[0]);
    const size_t slice_bytes = slices_.size() * sizeof(slices_[0]);
    auto pages = upload_->begin(copy_bytes + slice_bytes + plan.fill.size(), ws.stream());
    auto* pinned = static_cast<char*>(pages.pinned);
    auto* device = static_cast<char*>(pages.device);
    const void* fill = device + copy_bytes + slice_bytes;
    for (auto& d : slices_) d.fill = fill;
    std::memcpy(pinned, copies_.data(), copy_bytes);
    std::memcpy(pinned + copy_bytes, slices_.data(), slice_bytes);
    std::memcpy(pinned + copy_bytes + slice_bytes, plan.fill.data(), plan.fill.size());
    cuda::memcpy_async(device, pinned, copy_bytes + slice_bytes + plan.fill.size(), ws.stream());
    upload_->end(ws.stream());
    kernels::strided_copy_gpu(reinterpret_cast<const kernels::StridedCopyDesc*>(device),
                              static_cast<int>(copies_.size()), max_copy, dtype_size(in.dtype()),
                              ws.stream());
    kernels::slice_gpu(reinterpret_cast<const kernels::SliceDesc*>(device + copy_bytes),
                       static_cast<int>(slices_.size()), max_slice, in.dtype(), plan.out_type,
                       args_.border, ws.stream());
  }

 private:
  SliceArgs args_;
  SlicePlan plan_;
  TensorList anchor_, shape_;  // GPU anchor and shape inputs, copied to the host
  std::vector<kernels::StridedCopyDesc> copies_;
  std::vector<kernels::SliceDesc> slices_;
};

SLUICE_REGISTER_OPERATOR("slice", OpDevice::kGPU, SliceGpu);

}  // namespace
}  // namespace sluice
