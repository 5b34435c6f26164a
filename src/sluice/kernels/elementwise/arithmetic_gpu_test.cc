// GPU tests (label gpu): the CUDA arithmetic kernel against arithmetic_cpu on fresh random data,
// every operation, mixed operand types (uint64 with signed ones: compared by value), broadcast
// shapes, constants, several samples of mixed sizes in one launch and poisoned outputs.
// Tolerance: none, except for the transcendental functions and floating pow / atan2 (CUDA's libm
// and the host's differ by a few ulps: 4 ulps allowed, NaN matching NaN).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "sluice/core/dtype.h"
#include "sluice/core/error.h"
#include "sluice/cuda/cuda_api.h"
#include "sluice/kernels/common/gpu_test_util.h"
#include "sluice/kernels/elementwise/elementwise_gpu.h"

namespace sluice::kernels {
namespace {

using gpu_test::DeviceBuffer;

bool inexact(ArithOp op, DType compute) {
  if (!dtype_is_float(compute)) return false;
  return (op >= ArithOp::kCbrt && op <= ArithOp::kAtanh) || op == ArithOp::kPow ||
         op == ArithOp::kFPow || op == ArithOp::kAtan2;
}

// Random values of type t; `nonzero` for divisors.
std::vector<uint8_t> random_bytes(DType t, int64_t n, std::mt19937& gen, bool nonzero) {
  std::vector<uint8_t> out(static_cast<size_t>(n) * dtype_size(t));
  std::uniform_int_distribution<int> ints(-60, 60);
  std::uniform_real_distribution<double> reals(-4, 4);
  dtype_dispatch(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = reinterpret_cast<T*>(out.data());
    for (int64_t i = 0; i < n; ++i) {
      if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
        p[i] = T(static_cast<float>(reals(gen)));
      } else if constexpr (std::is_floating_point_v<T>) {
        p[i] = static_cast<T>(reals(gen));
      } else {
        int v = ints(gen);
        if (nonzero && v == 0) v = 3;
        p[i] = static_cast<T>(v);
      }
    }
  });
  return out;
}

double value_at(const std::vector<uint8_t>& v, DType t, size_t i) {
  return dtype_dispatch(t, [&](auto tag) -> double {
    using T = typename decltype(tag)::type;
    return static_cast<double>(static_cast<float>(reinterpret_cast<const T*>(v.data())[i]));
  });
}

struct Case {
  ArithOp op;
  std::vector<DType> types;
};

void check_case(const Case& c, std::mt19937& gen) {
  const int arity = arith_arity(c.op);
  ArithParams p;
  p.op = c.op;
  p.arity = arity;
  for (int k = 0; k < arity; ++k) p.operand[k] = c.types[k];
  p.types = arith_types(c.op, {p.operand, static_cast<size_t>(arity)});
  const bool int_div =
      (c.op == ArithOp::kDiv || c.op == ArithOp::kMod) && !dtype_is_float(p.types.compute);
  // The last operand of binary operations is a constant in every other case.
  const bool with_constant = arity == 2 && std::uniform_int_distribution<int>(0, 1)(gen);
  if (with_constant) {
    const auto v = random_bytes(c.types[1], 1, gen, int_div);
    std::memcpy(&p.constant[1], v.data(), v.size());
    p.constant_mask = 2;
  }
  const std::vector<std::vector<Shape>> shapes = {
      {{3, 700}, {700}, {3, 1}}, {{1}, {5, 4}, {1}},       {{2, 3, 4}, {2, 1, 4}, {4}},
      {{0, 3}, {1, 3}, {3}},     {{64, 65}, {64, 65}, {}},
  };
  const int n = static_cast<int>(shapes.size());
  std::vector<std::vector<std::vector<uint8_t>>> in(n);
  std::vector<DeviceBuffer> dev_in, dev_out;
  std::vector<ArithSampleDesc> cpu(n), gpu(n);
  std::vector<std::vector<uint8_t>> cpu_out(n);
  int64_t max_n = 0;
  const size_t out_size = dtype_size(p.types.result);
  for (int i = 0; i < n; ++i) {
    const void* host[kMaxArity] = {};
    const void* device[kMaxArity] = {};
    const Shape* sh[kMaxArity] = {};
    for (int k = 0; k < arity; ++k) {
      if (k == 1 && with_constant) {
        host[k] = device[k] = &p.constant[1];
        continue;
      }
      sh[k] = &shapes[i][k];
      in[i].push_back(random_bytes(c.types[k], volume(shapes[i][k]), gen, int_div && k == 1));
      host[k] = in[i].back().data();
      dev_in.emplace_back(in[i].back().size());
      cuda::memcpy_async(dev_in.back().get(), host[k], in[i].back().size(), nullptr);
      device[k] = dev_in.back().get();
    }
    const auto span = [&](auto* a) { return std::span(a, static_cast<size_t>(arity)); };
    const Shape out_shape = broadcast_shape(span(sh), i);
    const int64_t vol = volume(out_shape);
    max_n = std::max(max_n, vol);
    cpu_out[i].assign(static_cast<size_t>(vol) * out_size, 0xAB);
    dev_out.emplace_back(cpu_out[i].size());
    cuda::memset_async(dev_out.back().get(), 0xAB, cpu_out[i].size(), nullptr);
    describe_arith_sample(cpu[i], cpu_out[i].data(), out_shape, span(host), span(sh));
    describe_arith_sample(gpu[i], dev_out.back().get(), out_shape, span(device), span(sh));
    arithmetic_cpu(p, cpu[i]);
  }
  DeviceBuffer descs(sizeof(ArithSampleDesc) * n);
  cuda::memcpy_async(descs.get(), gpu.data(), descs.size(), nullptr);
  arithmetic_gpu(p, static_cast<const ArithSampleDesc*>(descs.get()), n, max_n, nullptr);
  cuda::stream_synchronize(nullptr);
  const std::string what = make_string(arith_op_name(c.op), " of ", dtype_name(c.types[0]),
                                       arity > 1 ? make_string(", ", dtype_name(c.types[1])) : "",
                                       with_constant ? " (constant)" : "");
  for (int i = 0; i < n; ++i) {
    const auto got = gpu_test::download(dev_out[i].get(), cpu_out[i].size());
    const bool exact = !inexact(c.op, p.types.compute);
    if (exact && !dtype_is_float(p.types.result)) {
      ASSERT_EQ(got, cpu_out[i]) << what << ", sample " << i;
      continue;
    }
    // Floating results: any NaN equals any NaN (x86 and CUDA make NaNs of different bits), and
    // infinities must be the same infinity.
    for (size_t e = 0; e < got.size() / out_size; ++e) {
      const double a = value_at(cpu_out[i], p.types.result, e);
      const double b = value_at(got, p.types.result, e);
      if (a == b || (std::isnan(a) && std::isnan(b))) continue;
      ASSERT_FALSE(exact || std::isinf(a))
          << what << ": " << a << " vs " << b << ", sample " << i << " element " << e;
      // Within 4 float ulps; a FLOAT16 result also within one of its own ulps, since a float
      // that differs in the last bit can round to the other neighbouring half (2^-10 relative).
      double ulp = std::abs(std::nextafter(static_cast<float>(a), INFINITY) - a);
      if (p.types.result == DType::kFloat16)
        ulp = std::max(ulp, std::ldexp(1.0, std::ilogb(std::max(std::abs(a), 6.1e-5)) - 10) / 4);
      ASSERT_LE(std::abs(a - b), 4 * ulp) << what << ", sample " << i << " element " << e;
    }
  }
}

TEST(ArithmeticGpu, EveryOperationMatchesCpu) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const uint32_t seed = gpu_test::test_seed();
  SCOPED_TRACE(make_string("SLUICE_TEST_SEED=", seed));
  std::mt19937 gen(seed);
  const DType ints[] = {DType::kUInt8,  DType::kInt8,  DType::kUInt16, DType::kInt16,
                        DType::kUInt32, DType::kInt32, DType::kInt64,  DType::kUInt64};
  const DType floats[] = {DType::kFloat16, DType::kBFloat16, DType::kFloat32, DType::kFloat64};
  std::vector<DType> all(std::begin(ints), std::end(ints));
  all.insert(all.end(), std::begin(floats), std::end(floats));
  all.push_back(DType::kBool);
  auto pick = [&](const auto& list) {
    return list[std::uniform_int_distribution<size_t>(0, std::size(list) - 1)(gen)];
  };
  for (int i = 0; i < kNumArithOps; ++i) {
    const auto op = static_cast<ArithOp>(i);
    for (int rep = 0; rep < 6; ++rep) {
      Case c{op, {}};
      for (int k = 0; k < arith_arity(op); ++k) {
        c.types.push_back(is_bitwise(op) ? pick(ints) : pick(all));
      }
      if (c.types[0] == DType::kBool) c.types[0] = pick(ints);  // never booleans only
      check_case(c, gen);
    }
  }
  // uint64 with itself and with signed types (compared by value), both ways round.
  for (int i = 0; i < kNumArithOps; ++i) {
    const auto op = static_cast<ArithOp>(i);
    if (arith_arity(op) == 1) {
      check_case({op, {DType::kUInt64}}, gen);
      continue;
    }
    check_case({op, std::vector<DType>(arith_arity(op), DType::kUInt64)}, gen);
    for (DType other : {DType::kInt8, DType::kInt64}) {
      for (int k = 0; k < 2; ++k) {
        std::vector<DType> t(arith_arity(op), other);
        t[k] = DType::kUInt64;
        check_case({op, t}, gen);
      }
    }
  }
}

}  // namespace
}  // namespace sluice::kernels
