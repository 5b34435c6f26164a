// get_property on the GPU: the properties are known on the host; they go up in one upload and
// one copy.

#include "sluice/ops/generic/get_property.h"
#include "sluice/ops/gpu_operator.h"

namespace sluice {
namespace {

class GetPropertyGpu : public GpuOperator {
 public:
  using GpuOperator::GpuOperator;
  void setup(const OpContext& ctx) override {
    GpuOperator::setup(ctx);
    property_ = parse_property(spec_);
  }
  void run(Workspace& ws) override {
    const std::vector<uint8_t> bytes = plan_property(ws, property_);
    if (bytes.empty()) return;
    void* src = upload_->upload(bytes.data(), bytes.size(), ws.stream());
    cuda::memcpy_async(ws.output(0).raw_data(), src, bytes.size(), ws.stream());
  }

 private:
  Property property_ = Property::kLayout;
};

SLUICE_REGISTER_OPERATOR("get_property", OpDevice::kGPU, GetPropertyGpu);

}  // namespace
}  // namespace sluice
