// random.choice: elements drawn from a set, uniformly or with probabilities `p`: indices below a
// scalar integer input, or items (along the first axis) of a tensor input. CPU only, as in DALI.

#include <cmath>
#include <vector>

#include "sluice/exec/operator.h"
#include "sluice/graph/schema_registry.h"
#include "sluice/kernels/elementwise/convert.h"
#include "sluice/kernels/random/choice.h"
#include "sluice/ops/op_policy.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    OpSchema("random.choice")
        .doc("Draws random elements from a set: an integer `n` gives values in [0, n), a tensor "
             "gives its items along the first axis; uniformly or with probabilities `p`.")
        .num_inputs(1, 2)
        .input_doc("a", "A scalar integer n, or a tensor whose items (first axis) are drawn.")
        .input_doc("shape_like", "Optional: the output takes the shape of this input.")
        .optional_arg("p", ArgType::kFloatList,
                      "Probability of each element (as many as there are to choose from, "
                      "summing to 1; default: uniform).",
                      /*per_sample=*/true)
        .optional_arg("shape", ArgType::kIntList, "Shape of each output sample (default: scalar).",
                      /*per_sample=*/true));

bool is_integer_type(DType t) {
  return dtype_is_integral(t) && t != DType::kBool;
}

class ChoiceCpu : public Operator {
 public:
  using Operator::Operator;
  void run(Workspace& ws) override {
    const TensorList& a = ws.input(0);
    const int n = ws.batch_size();
    const bool scalar = !a.shapes().empty() && a.shape(0).empty();
    SLUICE_CHECK(!scalar || is_integer_type(a.dtype()), InvalidArgument, "Data type ",
                 dtype_name(a.dtype()),
                 " is not supported for 0D inputs. Supported types are: uint8, uint16, uint32, "
                 "uint64, int8, int16, int32, int64.");
    std::vector<Shape> shapes(n);
    std::vector<int64_t> choices(n);
    std::vector<std::vector<double>> cdf(n);
    const bool has_p = spec_.has_arg("p") || ws.arg_input("p");
    const bool has_shape = spec_.has_arg("shape") || ws.arg_input("shape");
    SLUICE_CHECK(!(has_shape && ws.num_inputs() == 2), InvalidArgument,
                 "Providing argument \"shape\" is incompatible with providing a shape-like input");
    for (int i = 0; i < n; ++i) {
      const Shape& s = a.shape(i);
      choices[i] = scalar ? kernels::load_i64(a.raw_sample(i), a.dtype(), 0) : s[0];
      SLUICE_CHECK(choices[i] > 0, InvalidArgument,
                   "Expected positive number of elements for sampling, got: ", choices[i],
                   " for sample: ", i, ".");
      if (ws.num_inputs() == 2) {
        shapes[i] = ws.input(1).shape(i);
      } else if (has_shape) {
        shapes[i] = ws.arg_list<int64_t>("shape", i);
        for (auto d : shapes[i]) {
          SLUICE_CHECK(d >= 0, InvalidArgument, "negative extent in shape ",
                       shape_to_string(shapes[i]), " of sample ", i);
        }
      }
      if (!scalar) shapes[i].insert(shapes[i].end(), s.begin() + 1, s.end());
      if (has_p) cdf[i] = cumulative(ws.arg_list<float>("p", i), choices[i], i);
    }
    for (int i = 1; i < n; ++i) {
      SLUICE_CHECK(shapes[i].size() == shapes[0].size(), InvalidArgument,
                   "every sample's shape must have as many extents as the first's (",
                   shapes[0].size(), "), sample ", i, " has ", shapes[i].size());
    }
    TensorList& out = ws.output(0);
    out.resize(shapes, a.dtype());
    ws.for_each_sample(
        [&](int i, int) {
          const Shape& s = a.shape(i);
          const int64_t row = scalar ? 0 : volume(Shape(s.begin() + 1, s.end()));
          const int64_t num_out = row ? volume(shapes[i]) / row : volume(shapes[i]);
          kernels::choice_cpu({out.raw_sample(i), num_out, choices[i],
                               scalar ? nullptr : a.raw_sample(i),
                               row * static_cast<int64_t>(dtype_size(a.dtype())), a.dtype(),
                               has_p ? cdf[i].data() : nullptr, ws.rng(i)});
        },
        inline_below(out));
  }

 private:
  static std::vector<double> cumulative(const std::vector<float>& p, int64_t count, int sample) {
    SLUICE_CHECK(static_cast<int64_t>(p.size()) == count, InvalidArgument,
                 "Argument \"p\" expected shape ", count, " but got ", p.size(), " values");
    std::vector<double> cdf(p.size());
    double sum = 0;
    for (size_t k = 0; k < p.size(); ++k) {
      SLUICE_CHECK(p[k] >= 0 && p[k] <= 1, InvalidArgument,
                   "Probabilities must be in range [0, 1], but got: ", p[k],
                   " for sample: ", sample, " at index ", k);
      sum += p[k];
      cdf[k] = sum;
    }
    SLUICE_CHECK(std::fabs(sum - 1.0) < 1e-4, InvalidArgument,
                 "Sum of probabilities must be 1.0, but got ", sum, " for sample: ", sample, ".");
    return cdf;
  }
};

SLUICE_REGISTER_OPERATOR("random.choice", OpDevice::kCPU, ChoiceCpu);

}  // namespace
}  // namespace sluice
