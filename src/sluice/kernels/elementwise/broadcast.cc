#include "sluice/kernels/elementwise/broadcast.h"

#include <algorithm>
#include <sstream>
#include <vector>

#include "sluice/core/error.h"

namespace sluice::kernels {
namespace {

// DALI's shape print: "2 x 3".
std::string dali_shape(const Shape* s) {
  std::ostringstream os;
  if (s) {
    for (size_t i = 0; i < s->size(); ++i) os << (i ? " x " : "") << (*s)[i];
  }
  return os.str();
}

}  // namespace

Shape broadcast_shape(std::span<const Shape* const> shapes, int sample) {
  size_t ndim = 0;
  for (const Shape* s : shapes) ndim = std::max(ndim, s ? s->size() : 0);
  Shape out(ndim, 1);
  std::vector<int> owner(ndim, -1);  // the operand that set each extent
  for (size_t r = 1; r <= ndim; ++r) {
    int64_t& e = out[ndim - r];
    for (size_t k = 0; k < shapes.size(); ++k) {
      const Shape* s = shapes[k];
      if (!s || s->size() < r) continue;
      const int64_t x = (*s)[s->size() - r];
      if (x == 1) continue;
      if (owner[ndim - r] < 0) {
        e = x;
        owner[ndim - r] = static_cast<int>(k);
      } else if (x != e) {
        const Shape* o = shapes[owner[ndim - r]];
        throw InvalidArgument(
            make_string("Can't broadcast shapes: \n", dali_shape(o), " (d=", o->size() - r,
                        ", belonging to sample_idx=", sample, ")\n", dali_shape(s),
                        " (d=", s->size() - r, ", belonging to sample_idx=", sample, ")\n"));
      }
    }
  }
  return out;
}

void describe_arith_sample(ArithSampleDesc& desc, void* out, const Shape& out_shape,
                           std::span<const void* const> data,
                           std::span<const Shape* const> shapes) {
  const int nd = static_cast<int>(out_shape.size());
  const int n = static_cast<int>(data.size());
  // Per operand: its extent and row-major stride in each output dimension.
  int64_t ext[kMaxArity][64], own[kMaxArity][64];
  SLUICE_CHECK(nd <= 64 && n <= kMaxArity && shapes.size() == data.size(), InvalidArgument,
               "arithmetic of ", n, " operands of ", nd, " dimensions");
  for (int k = 0; k < n; ++k) {
    const Shape* s = shapes[k];
    const int off = nd - (s ? static_cast<int>(s->size()) : 0);
    int64_t stride = 1;
    for (int d = nd - 1; d >= 0; --d) {
      ext[k][d] = d >= off ? (*s)[d - off] : 1;
      own[k][d] = stride;
      stride *= ext[k][d];
    }
  }
  // Merge adjacent dimensions that every operand broadcasts alike; drop those of extent 1.
  int64_t shape[64], stride[kMaxArity][64];
  bool prev[kMaxArity] = {};
  int groups = 0;
  for (int d = 0; d < nd; ++d) {
    if (out_shape[d] == 1) continue;  // contributes nothing to any index
    bool same = groups > 0;
    for (int k = 0; k < n; ++k) same = same && (ext[k][d] == 1) == prev[k];
    if (same) {
      shape[groups - 1] *= out_shape[d];
    } else {
      shape[groups++] = out_shape[d];
    }
    for (int k = 0; k < n; ++k) {
      prev[k] = ext[k][d] == 1;
      stride[k][groups - 1] = prev[k] ? 0 : own[k][d];
    }
  }
  SLUICE_CHECK(groups <= kMaxArithDims, InvalidArgument,
               "Broadcasting pattern too complex. Can't operate with simplified shapes with more "
               "than ",
               kMaxArithDims, " groups of dimensions. Got ", groups, " groups.");
  desc = ArithSampleDesc{};
  desc.out = out;
  desc.ndim = std::max(groups, 1);
  desc.shape[0] = 1;
  for (int g = 0; g < groups; ++g) desc.shape[g] = shape[g];
  for (int k = 0; k < n; ++k) {
    desc.in[k].data = data[k];
    for (int g = 0; g < groups; ++g) desc.in[k].stride[g] = stride[k][g];
  }
}

}  // namespace sluice::kernels
