// permute_batch: a batch made of the input's samples in the order `indices` gives (repetitions
// and omissions allowed).

#include "sluice/ops/generic/permute_batch.h"

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/op_policy.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    OpSchema("permute_batch")
        .doc("Returns a batch of the input's samples picked by `indices`: out[i] = "
             "in[indices[i]].")
        .num_inputs(1, 1)
        .input_doc("input", "Data of any shape and type.")
        .devices({OpDevice::kCPU, OpDevice::kGPU})
        .required_arg("indices", ArgType::kIntList,
                      "One index per sample of the batch, in [0, batch size), or a batch of int32 "
                      "scalars. Repetitions and omissions are allowed.",
                      /*per_sample=*/true));

class PermuteBatchCpu : public Operator {
 public:
  using Operator::Operator;
  void run(Workspace& ws) override {
    const auto copies = plan_permute_batch(ws);
    ws.for_each_sample([&](int i, int) { kernels::copy_sample_cpu(copies[i]); },
                       inline_below(ws.output(0)));
  }
};

SLUICE_REGISTER_OPERATOR("permute_batch", OpDevice::kCPU, PermuteBatchCpu);

}  // namespace

std::vector<kernels::SampleCopy> plan_permute_batch(Workspace& ws) {
  const TensorList& in = ws.input(0);
  const int n = ws.batch_size();
  std::vector<int64_t> indices(n);
  if (const TensorList* t = ws.arg_input("indices")) {
    SLUICE_CHECK(t->dtype() == DType::kInt32, InvalidArgument,
                 "Argument `indices` expected int32 scalars, got ", dtype_name(t->dtype()));
    for (int i = 0; i < n; ++i) {
      SLUICE_CHECK(t->shape(i).empty(), InvalidArgument,
                   "Argument `indices` expected a batch of scalars; sample ", i, " has shape ",
                   shape_to_string(t->shape(i)));
      indices[i] = tensor_scalar<int64_t>(*t, i);
    }
  } else {
    indices = ws.spec().arg<std::vector<int64_t>>("indices");
    SLUICE_CHECK(static_cast<int>(indices.size()) == n, InvalidArgument,
                 "The number of sample indices ", indices.size(),
                 " does not match the current batch size, which is ", n);
  }
  std::vector<Shape> shapes(n);
  for (int i = 0; i < n; ++i) {
    SLUICE_CHECK(indices[i] >= 0 && indices[i] < in.num_samples(), InvalidArgument,
                 "Sample index out of range. indices[", i, "] = ", indices[i],
                 " is not a valid index for an input batch of ", in.num_samples(), " tensors.");
    shapes[i] = in.shape(indices[i]);
  }
  TensorList& out = ws.output(0);
  out.resize(shapes, in.dtype());
  out.set_layout(in.layout());
  std::vector<kernels::SampleCopy> copies(n);
  for (int i = 0; i < n; ++i) {
    copies[i] = {out.raw_sample(i), in.raw_sample(static_cast<int>(indices[i])),
                 static_cast<int64_t>(in.sample_bytes(static_cast<int>(indices[i])))};
  }
  return copies;
}

}  // namespace sluice
