#include "sluice/ops/conditional/conditional_args.h"

#include <cctype>

namespace sluice {

std::string dali_type_name(DType t) {
  if (t == DType::kFloat32) return "float";
  if (t == DType::kFloat64) return "double";
  std::string s(dtype_name(t));
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

void check_scalar_samples(const TensorList& t, const std::string& what_if_not) {
  for (int i = 0; i < t.num_samples(); ++i) {
    if (!t.shape(i).empty()) {
      throw InvalidArgument(make_string(what_if_not, kLogicalRestriction));
    }
  }
}

std::vector<bool> read_predicate(const Workspace& ws) {
  const TensorList* p = ws.arg_input("predicate");
  SLUICE_CHECK(p != nullptr, InvalidArgument,
               "The 'predicate' argument is required to be present as argument input.");
  SLUICE_CHECK(p->kind() != MemoryKind::kDevice, InvalidArgument, "the predicate must be CPU data");
  for (int i = 0; i < p->num_samples(); ++i) {
    if (!p->shape(i).empty()) {
      throw InvalidArgument(make_string(
          "Conditions inside `if` statements are restricted to scalar (0-d tensors) inputs, that "
          "are placed on CPU. Got a ",
          p->shape(i).size(), "-d input as a condition of the `if` statement.",
          kLogicalRestriction));
    }
  }
  std::vector<bool> pred(p->num_samples());
  for (int i = 0; i < p->num_samples(); ++i) pred[i] = tensor_scalar<double>(*p, i) != 0;
  return pred;
}

std::vector<Shape> shapes_where(const TensorList& in, const std::vector<bool>& pred, bool side) {
  std::vector<Shape> shapes;
  for (size_t i = 0; i < pred.size(); ++i) {
    if (pred[i] == side) shapes.push_back(in.shape(static_cast<int>(i)));
  }
  return shapes;
}

std::vector<kernels::SampleCopy> branch_copies(const std::vector<bool>& pred,
                                               const TensorList& whole, const TensorList* branch[2],
                                               bool merge) {
  std::vector<kernels::SampleCopy> copies(pred.size());
  int next[2] = {0, 0};
  for (size_t i = 0; i < pred.size(); ++i) {
    const int b = pred[i] ? 0 : 1;
    const int k = next[b]++;
    void* w = whole.raw_sample(static_cast<int>(i));
    void* part = branch[b]->raw_sample(k);
    const auto bytes = static_cast<int64_t>(whole.sample_bytes(static_cast<int>(i)));
    copies[i] = merge ? kernels::SampleCopy{w, part, bytes} : kernels::SampleCopy{part, w, bytes};
  }
  return copies;
}

std::vector<kernels::SampleCopy> prepare_split(Workspace& ws) {
  const TensorList& in = ws.input(0);
  const std::vector<bool> pred = read_predicate(ws);
  const TensorList* parts[2] = {&ws.output(0), &ws.output(1)};
  for (int b = 0; b < 2; ++b) {
    ws.output(b).resize(shapes_where(in, pred, b == 0), in.dtype());
    ws.output(b).set_layout(in.layout());
  }
  return branch_copies(pred, in, parts, false);
}

}  // namespace sluice
