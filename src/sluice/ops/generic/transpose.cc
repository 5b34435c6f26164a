// transpose: permutes the dimensions of each sample (a strided copy). The GPU class is in
// transpose_gpu.cc.

#include "sluice/ops/generic/transpose.h"

#include <algorithm>
#include <numeric>

#include "sluice/graph/schema_registry.h"
#include "sluice/ops/op_policy.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    OpSchema("transpose")
        .doc("Transposes each sample: output dimension k is input dimension perm[k].")
        .num_inputs(1, 1)
        .input_doc("input", "Data of any type and shape.")
        .devices({OpDevice::kCPU, OpDevice::kGPU})
        .optional_arg("perm", ArgType::kIntList,
                      "The permutation of the dimensions (default: reversed).")
        .arg("transpose_layout", ArgType::kBool, true,
             "Permute the layout too (otherwise the input's layout is kept).")
        .optional_arg("output_layout", ArgType::kString,
                      "The output's layout (overrides `transpose_layout`)."));

class TransposeCpu : public Operator {
 public:
  using Operator::Operator;
  void run(Workspace& ws) override {
    const TensorList& in = ws.input(0);
    TensorList& out = ws.output(0);
    const std::vector<kernels::StridedCopyDesc> descs = plan_transpose(spec_, in, out);
    ws.for_each_sample(
        [&](int i, int) { kernels::strided_copy_cpu(descs[i], dtype_size(in.dtype())); },
        inline_below(in));
  }
};

SLUICE_REGISTER_OPERATOR("transpose", OpDevice::kCPU, TransposeCpu);

}  // namespace

std::vector<int> transpose_perm(const OpSpec& spec, int ndim) {
  std::vector<int> perm(ndim);
  if (!spec.has_arg("perm")) {
    std::iota(perm.rbegin(), perm.rend(), 0);
    return perm;
  }
  const auto p = spec.arg<std::vector<int64_t>>("perm");
  std::vector<int64_t> sorted = p;
  std::sort(sorted.begin(), sorted.end());
  bool ok = true;
  for (size_t k = 0; k < sorted.size(); ++k) ok &= sorted[k] == static_cast<int64_t>(k);
  SLUICE_CHECK(ok, InvalidArgument,
               "Invalid permutation: sorted `perm` is not equal to [0, ..., n-1].");
  SLUICE_CHECK(static_cast<int>(p.size()) == ndim, InvalidArgument,
               "Input has different dimensionality (", ndim,
               ") than the length of the permutation (", p.size(), ")");
  std::copy(p.begin(), p.end(), perm.begin());
  return perm;
}

Layout transpose_layout(const OpSpec& spec, const Layout& in, const std::vector<int>& perm) {
  if (spec.has_arg("output_layout")) {
    Layout l = spec.arg<std::string>("output_layout");
    SLUICE_CHECK(l.size() == perm.size(), InvalidArgument, "output_layout \"", l, "\" has ",
                 l.size(), " dimensions; the output has ", perm.size());
    return l;
  }
  if (!spec.arg<bool>("transpose_layout") || in.empty()) return in;
  Layout l;
  for (int p : perm) l += in[p];
  return l;
}

std::vector<kernels::StridedCopyDesc> plan_transpose(const OpSpec& spec, const TensorList& in,
                                                     TensorList& out) {
  const std::vector<int> perm = transpose_perm(spec, in.sample_ndim());
  std::vector<Shape> shapes(in.num_samples());
  for (int i = 0; i < in.num_samples(); ++i) {
    for (int p : perm) shapes[i].push_back(in.shape(i)[p]);
  }
  out.resize(std::move(shapes), in.dtype());
  out.set_layout(transpose_layout(spec, in.layout(), perm));
  std::vector<kernels::StridedCopyDesc> descs(in.num_samples());
  for (int i = 0; i < in.num_samples(); ++i) {
    SLUICE_CHECK(kernels::describe_permuted_copy(descs[i], out.raw_sample(i), in.raw_sample(i),
                                                 dtype_size(in.dtype()), in.shape(i), perm),
                 InvalidArgument, "transpose of more than ", kernels::kMaxCopyDims,
                 " dimensions that cannot be merged");
  }
  return descs;
}

}  // namespace sluice
