// shapes: the shape of each sample as a 1-D tensor (DataNode.shape()).

#include "sluice/ops/generic/shapes_op.h"

#include "sluice/exec/operator.h"
#include "sluice/graph/schema_registry.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    OpSchema("shapes")
        .doc("Returns the shape of each sample of the input as a 1-D tensor (what "
             "DataNode.shape() gives).")
        .num_inputs(1, 1)
        .input_doc("input", "Data of any shape and type.")
        .devices({OpDevice::kCPU, OpDevice::kGPU})
        .arg("dtype", ArgType::kDType, std::string("INT64"),
             "The type of the output: INT32, UINT32, INT64, FLOAT or FLOAT64.")
        .optional_arg("type", ArgType::kDType, "Legacy name of `dtype`."));

class ShapesCpu : public Operator {
 public:
  using Operator::Operator;
  void setup(const OpContext& ctx) override { dtype_ = shapes_dtype(spec_); }
  void run(Workspace& ws) override {
    const TensorList& in = ws.input(0);
    TensorList& out = ws.output(0);
    out.resize_uniform(in.num_samples(), {in.sample_ndim()}, dtype_);
    out.set_layout("");
    if (out.total_bytes()) write_shapes(in, dtype_, out.raw_data());
  }

 private:
  DType dtype_ = DType::kInt64;
};

SLUICE_REGISTER_OPERATOR("shapes", OpDevice::kCPU, ShapesCpu);

}  // namespace

DType shapes_dtype(const OpSpec& spec) {
  const DType t = parse_dtype(spec.arg<std::string>(spec.has_arg("type") ? "type" : "dtype"));
  SLUICE_CHECK(t == DType::kInt32 || t == DType::kUInt32 || t == DType::kInt64 ||
                   t == DType::kFloat32 || t == DType::kFloat64,
               InvalidArgument,
               "Operator Shapes can return the output as one of the following:\nint32, uint32, "
               "int64, float or double;\nrequested: ",
               dtype_name(t));
  return t;
}

void write_shapes(const TensorList& in, DType dtype, void* out) {
  dtype_dispatch(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_arithmetic_v<T>) {
      T* o = static_cast<T*>(out);
      for (int i = 0; i < in.num_samples(); ++i) {
        for (int64_t e : in.shape(i)) *o++ = static_cast<T>(e);
      }
    }
  });
}

}  // namespace sluice
