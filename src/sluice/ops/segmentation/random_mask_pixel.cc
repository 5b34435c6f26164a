// segmentation.random_mask_pixel: the coordinates of a random pixel of a mask, among its
// foreground pixels or all of them. CPU only, as in DALI.

#include <vector>

#include "sluice/exec/operator.h"
#include "sluice/graph/schema_registry.h"
#include "sluice/kernels/elementwise/convert.h"
#include "sluice/kernels/segmentation/mask_pixel.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    OpSchema("segmentation.random_mask_pixel")
        .doc("Selects the coordinates of a random pixel of a mask, uniformly among the foreground "
             "pixels (equal to `value`, or above `threshold`) or among all.")
        .num_inputs(1, 1)
        .input_doc("input", "The mask: integers, bool or float.")
        .optional_arg("value", ArgType::kInt,
                      "Pixels equal to this value are foreground (not with `threshold`).",
                      /*per_sample=*/true)
        .arg("threshold", ArgType::kFloat, 0.0, "Pixels above this value are foreground.",
             /*per_sample=*/true)
        .arg("foreground", ArgType::kInt, int64_t{0},
             "Non-zero: choose among the foreground pixels (any pixel if there is none); 0: "
             "among all.",
             /*per_sample=*/true));

bool supported(DType t) {
  return t == DType::kFloat32 || dtype_is_integral(t);
}

// Whether `v` is a value of type t (DALI compares only such values, else picks any pixel).
bool representable(int64_t v, DType t) {
  if (t == DType::kFloat32) return true;
  int64_t lo, hi;
  kernels::int_range(t, lo, hi);
  return v >= lo && v <= hi;
}

class RandomMaskPixelCpu : public Operator {
 public:
  using Operator::Operator;
  void run(Workspace& ws) override {
    const TensorList& in = ws.input(0);
    SLUICE_CHECK(supported(in.dtype()), InvalidArgument,
                 "Unexpected data type: ", dtype_name(in.dtype()));
    const bool by_value = spec_.has_arg("value") || ws.arg_input("value");
    SLUICE_CHECK(!by_value || !(spec_.has_arg("threshold") || ws.arg_input("threshold")),
                 InvalidArgument,
                 "Arguments ``value`` and ``threshold`` can not be provided together");
    const int n = ws.batch_size();
    const auto ndim = static_cast<int64_t>(n ? in.shape(0).size() : 0);
    TensorList& out = ws.output(0);
    out.resize(std::vector<Shape>(n, Shape{ndim}), DType::kInt64);
    ws.for_each_sample(
        [&](int i, int) {
          const Shape& s = in.shape(i);
          auto* pos = static_cast<int64_t*>(out.raw_sample(i));
          SampleRng rng = ws.rng(i);
          int64_t flat = -1;
          if (ws.arg<int>("foreground", i) != 0) {
            kernels::MaskForeground fg{by_value, by_value ? ws.arg<int64_t>("value", i) : 0,
                                       ws.arg<float>("threshold", i)};
            if (!by_value || representable(fg.value, in.dtype())) {
              flat = kernels::random_foreground_index(in.raw_sample(i), in.dtype(), volume(s), fg,
                                                      rng);
            }
          }
          if (flat >= 0) {
            for (int64_t d = ndim - 1; d >= 0; --d) {
              pos[d] = flat % s[d];
              flat /= s[d];
            }
            return;
          }
          for (int64_t d = 0; d < ndim; ++d) {
            pos[d] = static_cast<int64_t>(rng.uniform_double() * static_cast<double>(s[d]));
          }
        },
        1);
  }
};

SLUICE_REGISTER_OPERATOR("segmentation.random_mask_pixel", OpDevice::kCPU, RandomMaskPixelCpu);

}  // namespace
}  // namespace sluice
