#include <type_traits>

#include "sluice/cuda/cuda_check.h"
#include "sluice/kernels/common/launch_grid.cuh"
#include "sluice/kernels/elementwise/arithmetic_impl.h"
#include "sluice/kernels/elementwise/convert.h"
#include "sluice/kernels/elementwise/elementwise_gpu.h"

namespace sluice::kernels {
namespace {

constexpr int kThreads = 256;
constexpr int kItems = 4;  // elements per thread
constexpr int64_t kPerBlock = int64_t{kThreads} * kItems;

__global__ void cast_kernel(const ElementwiseSample* samples, DType to, DType from) {
  const ElementwiseSample s = samples[blockIdx.y];
  int64_t base = (int64_t{blockIdx.x} * kThreads * kItems) + threadIdx.x;
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    int64_t i = base + int64_t{k} * kThreads;
    if (i < s.n) convert_element(s.out, to, s.a, from, i);
  }
}

// Element i of `p` (type t) converted to C the way the CPU kernel converts it: C's static_cast,
// 16-bit floats through float, then rounded through `rounding` when that is a 16-bit float.
template <typename C>
__device__ C load_compute(const void* p, DType t, int64_t i, DType rounding) {
  C v = load_visit<C>(p, t, i, [](auto x) { return static_cast<C>(x); });
  if constexpr (std::is_same_v<C, float>) {
    if (rounding == DType::kFloat16) v = half_bits_to_float(float_to_half_bits(v));
    if (rounding == DType::kBFloat16) v = bfloat16_bits_to_float(float_to_bfloat16_bits(v));
  }
  return v;
}

template <typename C>
__device__ void store_result(void* out, DType t, int64_t i, C v) {
  switch (t) {
    case DType::kFloat16:
      static_cast<uint16_t*>(out)[i] = float_to_half_bits(static_cast<float>(v));
      return;
    case DType::kBFloat16:
      static_cast<uint16_t*>(out)[i] = float_to_bfloat16_bits(static_cast<float>(v));
      return;
    case DType::kFloat32:
      static_cast<float*>(out)[i] = static_cast<float>(v);
      return;
    default:
      static_cast<C*>(out)[i] = v;  // the result type is the compute type
  }
}

// op(a, b, c) in C; comparisons give 0 or 1 in `flag` instead.
template <typename C>
__device__ C apply_op(ArithOp op, C a, C b, C c, bool& flag) {
  using namespace arith;  // NOLINT(google-build-using-namespace): the element operations
  switch (op) {
#define SLUICE_ARITH_UNARY(E)                                             \
  case ArithOp::E:                                                        \
    if constexpr (supports<ArithOp::E, C>()) return unary<ArithOp::E>(a); \
    break;
#define SLUICE_ARITH_BINARY(E)                                                \
  case ArithOp::E:                                                            \
    if constexpr (supports<ArithOp::E, C>()) return binary<ArithOp::E>(a, b); \
    break;
#define SLUICE_ARITH_COMPARE(E)       \
  case ArithOp::E:                    \
    flag = compare<ArithOp::E>(a, b); \
    return C{};
    // clang-format off
    SLUICE_ARITH_UNARY_OPS(SLUICE_ARITH_UNARY)
    SLUICE_ARITH_BINARY_OPS(SLUICE_ARITH_BINARY)
    SLUICE_ARITH_COMPARISON_OPS(SLUICE_ARITH_COMPARE)
    // clang-format on
#undef SLUICE_ARITH_UNARY
#undef SLUICE_ARITH_BINARY
#undef SLUICE_ARITH_COMPARE
    case ArithOp::kClamp:
      if constexpr (supports<ArithOp::kClamp, C>()) return clamp(a, b, c);
      break;
  }
  return C{};
}

template <typename C>
__global__ void arith_kernel(ArithParams p, const ArithSampleDesc* samples) {
  const ArithSampleDesc& s = samples[blockIdx.y];
  int64_t n = 1;
  for (int d = 0; d < s.ndim; ++d) n *= s.shape[d];
  const void* base[kMaxArity];
  for (int k = 0; k < p.arity; ++k) {
    base[k] = (p.constant_mask >> k) & 1 ? static_cast<const void*>(&p.constant[k]) : s.in[k].data;
  }
  const bool cmp = is_comparison(p.op);
  const int64_t first = (int64_t{blockIdx.x} * kThreads * kItems) + threadIdx.x;
#pragma unroll
  for (int it = 0; it < kItems; ++it) {
    const int64_t i = first + int64_t{it} * kThreads;
    if (i >= n) break;
    int64_t off[kMaxArity] = {};
    int64_t rest = i;
    for (int d = s.ndim - 1; d >= 0; --d) {
      const int64_t x = d > 0 ? rest % s.shape[d] : rest;
      rest = d > 0 ? rest / s.shape[d] : 0;
      for (int k = 0; k < p.arity; ++k) off[k] += x * s.in[k].stride[d];
    }
    C v[kMaxArity] = {};
    for (int k = 0; k < p.arity; ++k) {
      v[k] = load_compute<C>(base[k], p.operand[k], off[k], p.types.operand_rounding);
    }
    bool flag = false;
    const C r = apply_op<C>(p.op, v[0], v[1], v[2], flag);
    if (cmp) {
      static_cast<bool*>(s.out)[i] = flag;
    } else if constexpr (!std::is_same_v<C, arith::Int65>) {  // Int65 only compares
      store_result<C>(s.out, p.types.result, i, r);
    }
  }
}

template <typename C>
void launch(const ArithParams& p, const ArithSampleDesc* samples, int num_samples, int64_t max_n,
            void* stream) {
  const dim3 grid = batch_grid(num_samples, max_n, kPerBlock);
  arith_kernel<C><<<grid, kThreads, 0, static_cast<cudaStream_t>(stream)>>>(p, samples);
  SLUICE_CUDA_CHECK_LAUNCH();
}

}  // namespace

void cast_gpu(const ElementwiseSample* samples, int num_samples, int64_t max_n, DType to,
              DType from, void* stream) {
  if (num_samples == 0 || max_n == 0) return;
  const dim3 grid = batch_grid(num_samples, max_n, kPerBlock);
  cast_kernel<<<grid, kThreads, 0, static_cast<cudaStream_t>(stream)>>>(samples, to, from);
  SLUICE_CUDA_CHECK_LAUNCH();
}

void arithmetic_gpu(const ArithParams& p, const ArithSampleDesc* samples, int num_samples,
                    int64_t max_n, void* stream) {
  if (num_samples == 0 || max_n == 0) return;
  if (p.types.by_value) return launch<arith::Int65>(p, samples, num_samples, max_n, stream);
  switch (p.types.compute) {
    case DType::kBool:
      return launch<bool>(p, samples, num_samples, max_n, stream);
    case DType::kUInt8:
      return launch<uint8_t>(p, samples, num_samples, max_n, stream);
    case DType::kInt8:
      return launch<int8_t>(p, samples, num_samples, max_n, stream);
    case DType::kUInt16:
      return launch<uint16_t>(p, samples, num_samples, max_n, stream);
    case DType::kInt16:
      return launch<int16_t>(p, samples, num_samples, max_n, stream);
    case DType::kUInt32:
      return launch<uint32_t>(p, samples, num_samples, max_n, stream);
    case DType::kInt32:
      return launch<int32_t>(p, samples, num_samples, max_n, stream);
    case DType::kInt64:
      return launch<int64_t>(p, samples, num_samples, max_n, stream);
    case DType::kUInt64:
      return launch<uint64_t>(p, samples, num_samples, max_n, stream);
    case DType::kFloat32:
      return launch<float>(p, samples, num_samples, max_n, stream);
    case DType::kFloat64:
      return launch<double>(p, samples, num_samples, max_n, stream);
    default:
      return;
  }
}

}  // namespace sluice::kernels
