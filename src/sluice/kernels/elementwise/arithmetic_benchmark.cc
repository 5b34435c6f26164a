// The CPU arithmetic kernel on one sample of 1M elements per operation: the operations DataNode
// expressions had before they followed DALI (their types are the same in both), and broadcast
// and math cases. Reports elements/s. Results: bench/RESULTS.md#arithmetic-cpu.

#include <benchmark/benchmark.h>

#include <cstring>
#include <random>
#include <vector>

#include "sluice/kernels/elementwise/elementwise_cpu.h"

namespace sluice::kernels {
namespace {

constexpr int64_t kN = 1 << 20;

std::vector<uint8_t> random_bytes(DType t, int64_t n) {
  std::vector<uint8_t> v(static_cast<size_t>(n) * dtype_size(t));
  std::mt19937 gen(1);
  dtype_dispatch(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = reinterpret_cast<T*>(v.data());
    for (int64_t i = 0; i < n; ++i) {
      if constexpr (std::is_floating_point_v<T>) {
        p[i] = static_cast<T>(gen() % 1000) * T(0.01) + T(0.5);
      } else if constexpr (std::is_integral_v<T>) {
        p[i] = static_cast<T>(gen() % 100 + 1);
      }
    }
  });
  return v;
}

// state.range(0): the case below.
void BM_ArithmeticCpu(benchmark::State& state) {
  struct Case {
    const char* label;
    ArithOp op;
    DType a, b;
    bool b_constant;
    Shape b_shape;
  };
  const Case cases[] = {
      {"u8 + u8", ArithOp::kAdd, DType::kUInt8, DType::kUInt8, false, {kN}},
      {"u8 + i8", ArithOp::kAdd, DType::kUInt8, DType::kInt8, false, {kN}},
      {"f32 * f32", ArithOp::kMul, DType::kFloat32, DType::kFloat32, false, {kN}},
      {"f32 + 0.5", ArithOp::kAdd, DType::kFloat32, DType::kFloat32, true, {}},
      {"f32 / f32", ArithOp::kFDiv, DType::kFloat32, DType::kFloat32, false, {kN}},
      {"i32 // i32", ArithOp::kDiv, DType::kInt32, DType::kInt32, false, {kN}},
      {"u8 * f32", ArithOp::kMul, DType::kUInt8, DType::kFloat32, false, {kN}},
      {"f32 < f32", ArithOp::kLt, DType::kFloat32, DType::kFloat32, false, {kN}},
      {"-f32", ArithOp::kMinus, DType::kFloat32, DType::kFloat32, false, {}},
      {"(1024, 1024) f32 + (1024,) f32",
       ArithOp::kAdd,
       DType::kFloat32,
       DType::kFloat32,
       false,
       {1024}},
      {"sin f32", ArithOp::kSin, DType::kFloat32, DType::kFloat32, false, {}},
  };
  const Case& c = cases[state.range(0)];
  ArithParams p;
  p.op = c.op;
  p.arity = arith_arity(c.op);
  p.operand[0] = c.a;
  p.operand[1] = c.b;
  p.types = arith_types(c.op, {p.operand, static_cast<size_t>(p.arity)});
  const Shape out_shape =
      c.b_shape.size() == 1 && c.b_shape[0] == 1024 ? Shape{1024, 1024} : Shape{kN};
  const auto a = random_bytes(c.a, kN);
  const auto b = random_bytes(c.b, c.b_constant ? 1 : volume(c.b_shape));
  if (c.b_constant) {
    const float half = 0.5f;
    std::memcpy(&p.constant[1], &half, sizeof(half));
    p.constant_mask = 2;
  }
  std::vector<uint8_t> out(static_cast<size_t>(kN) * dtype_size(p.types.result));
  const void* data[] = {a.data(), c.b_constant ? static_cast<const void*>(&p.constant[1])
                                               : static_cast<const void*>(b.data())};
  const Shape* shapes[] = {&out_shape, c.b_constant ? nullptr : &c.b_shape};
  ArithSampleDesc desc;
  describe_arith_sample(desc, out.data(), out_shape, {data, static_cast<size_t>(p.arity)},
                        {shapes, static_cast<size_t>(p.arity)});
  for (auto _ : state) {
    arithmetic_cpu(p, desc);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * kN);
  state.SetLabel(c.label);
}

BENCHMARK(BM_ArithmeticCpu)->DenseRange(0, 10)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace sluice::kernels
