// warp_affine: each HWC image through an affine map, given as an argument, an argument input or
// a second input (2 x 3 per sample); output-to-input unless inverse_map is false. The GPU class
// is in warp_affine_gpu.cc.

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/image/warp_args.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(warp_args(
    OpSchema("warp_affine")
        .doc("Applies an affine transformation to HWC images: out(x, y) = in(M * (x, y, 1)) with "
             "pixel centres at +0.5, nearest or linear sampling.")
        .num_inputs(1, 2)
        .input_doc("input", "HWC images (UINT8, INT16, INT32 or FLOAT).")
        .input_doc("matrix", "Optional: the 2 x 3 FLOAT matrices, one per sample.")
        .devices({OpDevice::kCPU, OpDevice::kGPU})
        .arg("matrix", ArgType::kFloatList, std::vector<double>{},
             "The 2 x 3 matrix (M11, M12, M13, M21, M22, M23), unless given as an input.", true)
        .arg("inverse_map", ArgType::kBool, true,
             "The matrix maps output to input coordinates (else input to output: it is "
             "inverted).")));

}  // namespace

void plan_warp_affine(const Workspace& ws, std::vector<kernels::WarpSample>& plans) {
  const bool invert = !ws.spec().arg<bool>("inverse_map");
  const int n = static_cast<int>(plans.size());
  const TensorList* mats = ws.num_inputs() > 1 ? &ws.input(1) : nullptr;
  if (mats) {
    SLUICE_CHECK(mats->dtype() == DType::kFloat32, InvalidArgument,
                 "the transform matrices must be FLOAT, got ", dtype_name(mats->dtype()));
    SLUICE_CHECK(mats->num_samples() == n, InvalidArgument,
                 "Affine mapping parameters must be a "
                 "list of ",
                 n, " 2 x 3 tensors");
  }
  for (int i = 0; i < n; ++i) {
    auto& p = plans[i];
    p.invert = invert;
    if (mats) {
      SLUICE_CHECK(mats->shape(i) == (Shape{2, 3}), InvalidArgument,
                   "Affine mapping parameters must be a list of ", n, " 2 x 3 tensors; sample ", i,
                   " has shape ", shape_to_string(mats->shape(i)));
      p.m_ptr = static_cast<const float*>(mats->raw_sample(i));
    } else {
      auto m = ws.arg_list<float>("matrix", i);
      SLUICE_CHECK(!m.empty(), InvalidArgument,
                   "`matrix` argument must be provided when transforms are not passed as a "
                   "regular input.");
      SLUICE_CHECK(m.size() == 6, InvalidArgument, "`matrix` parameter must have 6 elements");
      std::copy(m.begin(), m.end(), p.m);
    }
    auto size = warp_explicit_size(ws, i);
    p.out_h = size ? (*size)[0] : p.in_h;
    p.out_w = size ? (*size)[1] : p.in_w;
  }
}

namespace {

class WarpAffineCpu : public WarpOpCpu {
 public:
  using WarpOpCpu::WarpOpCpu;

 protected:
  void plan(const Workspace& ws, std::vector<kernels::WarpSample>& plans) override {
    plan_warp_affine(ws, plans);
  }
};

SLUICE_REGISTER_OPERATOR("warp_affine", OpDevice::kCPU, WarpAffineCpu);

}  // namespace
}  // namespace sluice
