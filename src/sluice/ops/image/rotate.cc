// rotate: each HWC image rotated counter-clockwise by `angle` degrees about its centre, into a
// canvas that fits it (DALI's size rule), the input's size (keep_size) or `size`. The GPU class
// is in rotate_gpu.cc.

#include <cmath>

#include "sluice/graph/schema_registry.h"
#include "sluice/kernels/geometry/affine.h"
#include "sluice/ops/image/warp_args.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(warp_args(
    OpSchema("rotate")
        .doc("Rotates HWC images counter-clockwise by `angle` degrees about their centre; the "
             "output fits the rotated image unless keep_size or size is given.")
        .num_inputs(1, 1)
        .input_doc("input", "HWC images (UINT8, INT16, INT32 or FLOAT).")
        .devices({OpDevice::kCPU, OpDevice::kGPU})
        .required_arg("angle", ArgType::kFloat, "Angle, in degrees (counter-clockwise).", true)
        .optional_arg("axis", ArgType::kFloatList,
                      "Axis of a volumetric rotation; volumes are not supported yet.", true)
        .arg("keep_size", ArgType::kBool, false,
             "Keep the input's size (corners may be cut off) instead of fitting the rotated "
             "image.")));

// DALI's canvas: the rotated image's bounding box less 0.01, rounded up, then made odd or even
// like the input extent it mostly comes from (less blur in the centre).
std::array<int64_t, 2> rotated_canvas(int64_t h, int64_t w, float radians) {
  const double eps = 1e-2;
  const double c = std::abs(std::cos(static_cast<double>(radians)));
  const double s = std::abs(std::sin(static_cast<double>(radians)));
  int64_t out_w = static_cast<int64_t>(std::ceil(c * w + s * h - eps));
  int64_t out_h = static_cast<int64_t>(std::ceil(c * h + s * w - eps));
  const int64_t parity_w = s <= c ? w % 2 : h % 2;
  const int64_t parity_h = s <= c ? h % 2 : w % 2;
  out_w += (out_w % 2) ^ parity_w;
  out_h += (out_h % 2) ^ parity_h;
  return {out_h, out_w};
}

}  // namespace

void plan_rotate(const Workspace& ws, std::vector<kernels::WarpSample>& plans) {
  SLUICE_CHECK(!ws.spec().has_arg("axis") && !ws.arg_input("axis"), NotImplemented,
               "rotate: volumetric rotation (axis) is not supported; rotate takes HWC images");
  const bool keep = ws.spec().arg<bool>("keep_size");
  for (int i = 0; i < static_cast<int>(plans.size()); ++i) {
    auto& p = plans[i];
    const float radians = kernels::deg2rad(ws.arg<float>("angle", i));
    if (auto size = warp_explicit_size(ws, i)) {
      p.out_h = (*size)[0], p.out_w = (*size)[1];
    } else if (keep) {
      p.out_h = p.in_h, p.out_w = p.in_w;
    } else {
      auto [h, w] = rotated_canvas(p.in_h, p.in_w, radians);
      p.out_h = h, p.out_w = w;
    }
    // Output to input: move the output's centre to the origin, rotate, move to the input's.
    auto to_input = kernels::AffineMatrix::identity(2);
    to_input.at(0, 2) = static_cast<float>(p.in_w) * 0.5f;
    to_input.at(1, 2) = static_cast<float>(p.in_h) * 0.5f;
    auto from_output = kernels::AffineMatrix::identity(2);
    from_output.at(0, 2) = -(static_cast<float>(p.out_w) * 0.5f);
    from_output.at(1, 2) = -(static_cast<float>(p.out_h) * 0.5f);
    (to_input * kernels::rotation_2d(radians) * from_output).to_rows(p.m);
  }
}

namespace {

class RotateCpu : public WarpOpCpu {
 public:
  using WarpOpCpu::WarpOpCpu;

 protected:
  void plan(const Workspace& ws, std::vector<kernels::WarpSample>& plans) override {
    plan_rotate(ws, plans);
  }
};

SLUICE_REGISTER_OPERATOR("rotate", OpDevice::kCPU, RotateCpu);

}  // namespace
}  // namespace sluice
