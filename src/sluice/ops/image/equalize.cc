// equalize: per-channel histogram equalization of UINT8 images and videos. The GPU class is in
// equalize_gpu.cc.

#include "sluice/ops/image/equalize.h"

#include <algorithm>

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/image/color_ops.h"
#include "sluice/ops/op_policy.h"

namespace sluice {

EqualizePlan plan_equalize(const TensorList& in, TensorList& out) {
  check_input_layout(in, {"HW", "HWC", "CHW", "FHW", "FHWC", "FCHW"});
  SLUICE_CHECK(in.dtype() == DType::kUInt8, InvalidArgument,
               "Unsupported input type for equalize operator: ", dtype_name(in.dtype()),
               ". Expected input type: `uint8_t`.");
  out.resize(in.shapes(), DType::kUInt8);
  out.set_layout(in.layout());
  // Without a layout the number of dimensions picks HW, HWC or FHWC, as DALI reads it.
  const Layout layout = !in.layout().empty()    ? in.layout()
                        : in.sample_ndim() == 2 ? "HW"
                        : in.sample_ndim() == 3 ? "HWC"
                                                : "FHWC";
  const bool interleaved = layout.back() == 'C';
  EqualizePlan plan;
  for (int i = 0; i < in.num_samples(); ++i) {
    plan.first.push_back(static_cast<int>(plan.channels.size()));
    const Shape& s = in.shape(i);
    const int ndim = static_cast<int>(s.size());
    const int h = static_cast<int>(layout.find('H'));
    const int64_t pixels = s[h] * s[h + 1];
    const int64_t channels = interleaved ? s[ndim - 1] : 1;
    SLUICE_CHECK(!interleaved || (channels >= 1 && channels <= 512), InvalidArgument,
                 "The CPU equalize operator supports images with number of channels in [1, 512] "
                 "channels. However, the sample at index ",
                 i, " has ", channels, " channels.");
    const int64_t planes = volume(s) / std::max<int64_t>(1, pixels * channels);
    const auto* src = static_cast<const uint8_t*>(in.raw_sample(i));
    auto* dst = static_cast<uint8_t*>(out.raw_sample(i));
    for (int64_t p = 0; p < planes && pixels > 0; ++p) {
      for (int64_t c = 0; c < channels; ++c) {
        const int64_t at = p * pixels * channels + c;
        plan.channels.push_back({src + at, dst + at, pixels, static_cast<int>(channels)});
      }
    }
    plan.max_pixels = std::max(plan.max_pixels, pixels);
  }
  plan.first.push_back(static_cast<int>(plan.channels.size()));
  return plan;
}

namespace {

SLUICE_REGISTER_SCHEMA(
    OpSchema("equalize")
        .doc("Equalizes the histogram of each channel of UINT8 images and videos (OpenCV's "
             "equalizeHist per channel).")
        .alias("experimental.equalize")
        .num_inputs(1, 1)
        .input_doc("input", "UINT8 images or videos: HW, HWC, CHW, FHW, FHWC or FCHW.")
        .devices({OpDevice::kCPU, OpDevice::kGPU}));

class EqualizeCpu : public Operator {
 public:
  using Operator::Operator;
  void run(Workspace& ws) override {
    const EqualizePlan plan = plan_equalize(ws.input(0), ws.output(0));
    ws.for_each_sample(
        [&](int i, int) {
          for (int k = plan.first[i]; k < plan.first[i + 1]; ++k) {
            kernels::equalize_cpu(plan.channels[k]);
          }
        },
        inline_below(ws.input(0)));
  }
};

SLUICE_REGISTER_OPERATOR("equalize", OpDevice::kCPU, EqualizeCpu);

}  // namespace
}  // namespace sluice
