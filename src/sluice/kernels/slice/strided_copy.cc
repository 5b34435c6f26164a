#include <cstring>

#include "sluice/core/error.h"
#include "sluice/kernels/slice/strided_copy.h"

namespace sluice::kernels {
namespace {

template <typename T>
void copy_run(T* out, const T* in, int64_t n, int64_t stride) {
  for (int64_t i = 0; i < n; ++i) out[i] = in[i * stride];
}

}  // namespace

bool describe_strided_copy(StridedCopyDesc& d, void* out, const void* in, size_t elem_size,
                           const Shape& in_shape, const Shape& start, const Shape& step,
                           const Shape& extent) {
  const int nd = static_cast<int>(in_shape.size());
  int64_t offset = 0, s = 1;
  int64_t shape[64], stride[64];
  SLUICE_CHECK(nd <= 64, InvalidArgument, "strided copy of ", nd, " dimensions");
  int n = 0;
  // From the innermost dimension out; reversed below.
  for (int k = nd - 1; k >= 0; --k) {
    offset += start[k] * s;
    const int64_t st = step[k] * s;
    s *= in_shape[k];
    if (extent[k] == 1) continue;  // adds nothing to any index
    if (n > 0 && stride[n - 1] * shape[n - 1] == st) {
      shape[n - 1] *= extent[k];  // continues the inner run
    } else {
      shape[n] = extent[k];
      stride[n++] = st;
    }
  }
  if (n > kMaxCopyDims) return false;
  d = StridedCopyDesc{};
  d.out = out;
  d.in = static_cast<const char*>(in) + offset * static_cast<int64_t>(elem_size);
  d.ndim = n > 0 ? n : 1;
  for (int k = 0; k < n; ++k) {
    d.shape[k] = shape[n - 1 - k];
    d.stride[k] = stride[n - 1 - k];
  }
  return true;
}

bool describe_permuted_copy(StridedCopyDesc& d, void* out, const void* in, size_t elem_size,
                            const Shape& in_shape, const std::vector<int>& perm) {
  const int nd = static_cast<int>(in_shape.size());
  std::vector<int64_t> in_stride(nd, 1);
  for (int k = nd - 2; k >= 0; --k) in_stride[k] = in_stride[k + 1] * in_shape[k + 1];
  int64_t shape[64], stride[64];
  SLUICE_CHECK(nd <= 64, InvalidArgument, "transpose of ", nd, " dimensions");
  int n = 0;
  // From the innermost output dimension out; reversed below.
  for (int k = nd - 1; k >= 0; --k) {
    const int64_t ext = in_shape[perm[k]], st = in_stride[perm[k]];
    if (ext == 1) continue;
    if (n > 0 && stride[n - 1] * shape[n - 1] == st) {
      shape[n - 1] *= ext;
    } else {
      shape[n] = ext;
      stride[n++] = st;
    }
  }
  if (n > kMaxCopyDims) return false;
  d = StridedCopyDesc{};
  d.out = out;
  d.in = in;
  d.ndim = n > 0 ? n : 1;
  for (int k = 0; k < n; ++k) {
    d.shape[k] = shape[n - 1 - k];
    d.stride[k] = stride[n - 1 - k];
  }
  return true;
}

int64_t strided_copy_volume(const StridedCopyDesc& d) {
  int64_t v = 1;
  for (int k = 0; k < d.ndim; ++k) v *= d.shape[k];
  return v;
}

void strided_copy_cpu(const StridedCopyDesc& d, size_t elem_size) {
  const int inner_d = d.ndim - 1;
  const int64_t inner = d.shape[inner_d], inner_stride = d.stride[inner_d];
  int64_t outer = 1;
  for (int k = 0; k < inner_d; ++k) outer *= d.shape[k];
  if (inner == 0 || outer == 0) return;
  const auto es = static_cast<int64_t>(elem_size);
  int64_t idx[kMaxCopyDims] = {};
  char* out = static_cast<char*>(d.out);
  for (int64_t o = 0; o < outer; ++o, out += inner * es) {
    int64_t off = 0;
    for (int k = 0; k < inner_d; ++k) off += idx[k] * d.stride[k];
    const char* in = static_cast<const char*>(d.in) + off * es;
    if (inner_stride == 1) {
      std::memcpy(out, in, static_cast<size_t>(inner * es));
    } else {
      switch (elem_size) {
        case 1:
          copy_run(reinterpret_cast<uint8_t*>(out), reinterpret_cast<const uint8_t*>(in), inner,
                   inner_stride);
          break;
        case 2:
          copy_run(reinterpret_cast<uint16_t*>(out), reinterpret_cast<const uint16_t*>(in), inner,
                   inner_stride);
          break;
        case 4:
          copy_run(reinterpret_cast<uint32_t*>(out), reinterpret_cast<const uint32_t*>(in), inner,
                   inner_stride);
          break;
        case 8:
          copy_run(reinterpret_cast<uint64_t*>(out), reinterpret_cast<const uint64_t*>(in), inner,
                   inner_stride);
          break;
        default:
          throw InvalidArgument(make_string("strided copy of ", elem_size, "-byte elements"));
      }
    }
    for (int k = inner_d - 1; k >= 0; --k) {
      if (++idx[k] < d.shape[k]) break;
      idx[k] = 0;
    }
  }
}

}  // namespace sluice::kernels
