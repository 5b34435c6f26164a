// constant: the same tensor in every sample (DALI's Constant; types.Constant builds it).

#include "sluice/ops/generic/constant_op.h"

#include <cstring>

#include "sluice/exec/operator.h"
#include "sluice/graph/schema_registry.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    OpSchema("constant")
        .doc("Produces a batch of constant tensors, from `fdata` (floating values) or `idata` "
             "(integers), reshaped to `shape` (one value fills the whole shape).")
        .num_inputs(0, 0)
        .devices({OpDevice::kCPU, OpDevice::kGPU})
        .optional_arg("fdata", ArgType::kFloatList, "Floating-point values (as float32).")
        .optional_arg("idata", ArgType::kIntList, "Integer values.")
        .optional_arg("shape", ArgType::kIntList,
                      "The shape of the output; default: the number of values.")
        .optional_arg("dtype", ArgType::kDType,
                      "Output type; default FLOAT for fdata, INT32 "
                      "for idata.")
        .arg("layout", ArgType::kString, std::string(), "Output layout."));

class ConstantCpu : public Operator {
 public:
  using Operator::Operator;
  void setup(const OpContext& ctx) override { sample_ = constant_sample(spec_); }
  void run(Workspace& ws) override {
    TensorList& out = ws.output(0);
    out.resize_uniform(ws.batch_size(), sample_.shape, sample_.dtype);
    out.set_layout(sample_.layout);
    for (int i = 0; i < out.num_samples(); ++i) {
      if (!sample_.bytes.empty()) {
        std::memcpy(out.raw_sample(i), sample_.bytes.data(), sample_.bytes.size());
      }
    }
  }

 private:
  ConstantSample sample_;
};

SLUICE_REGISTER_OPERATOR("constant", OpDevice::kCPU, ConstantCpu);

}  // namespace

ConstantSample constant_sample(const OpSpec& spec) {
  const bool has_f = spec.has_arg("fdata"), has_i = spec.has_arg("idata");
  SLUICE_CHECK(!(has_f && has_i), InvalidArgument,
               "Constant node: `fdata` and `idata` arguments are mutually exclusive");
  SLUICE_CHECK(has_f || has_i, InvalidArgument,
               "Constant node: either `fdata` or `idata` must be present.");
  std::vector<double> f;
  std::vector<int64_t> iv;
  size_t count;
  if (has_f) {
    for (double x : spec.arg<std::vector<double>>("fdata")) f.push_back(static_cast<float>(x));
    count = f.size();
  } else {
    iv = spec.arg<std::vector<int64_t>>("idata");
    count = iv.size();
  }
  ConstantSample s;
  if (spec.has_arg("shape")) {
    s.shape = spec.arg<std::vector<int64_t>>("shape");
    SLUICE_CHECK(count == static_cast<size_t>(volume(s.shape)) || count == 1, InvalidArgument,
                 "The number of values does not match the shape specified");
  } else {
    s.shape = {static_cast<int64_t>(count)};
  }
  s.dtype = spec.has_arg("dtype") ? parse_dtype(spec.arg<std::string>("dtype"))
                                  : (has_f ? DType::kFloat32 : DType::kInt32);
  s.layout = spec.arg<std::string>("layout");
  SLUICE_CHECK(s.layout.empty() || s.layout.size() == s.shape.size(), InvalidArgument,
               "Constant node: The requested layout \"", s.layout,
               "\" has dimensionality which is incompatible with the requested output shape.");
  const int64_t n = volume(s.shape);
  s.bytes.resize(static_cast<size_t>(n) * dtype_size(s.dtype));
  dtype_dispatch(s.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* out = reinterpret_cast<T*>(s.bytes.data());
    for (int64_t k = 0; k < n; ++k) {
      const size_t src = count == 1 ? 0 : static_cast<size_t>(k);
      out[k] = has_f ? convert_sat<T>(f[src]) : convert_sat<T>(iv[src]);
    }
  });
  return s;
}

}  // namespace sluice
