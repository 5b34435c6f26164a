// The arithmetic kernel's types (DALI's promotion table, result types, refusals), its element
// operations (C semantics with the undefined cases defined), and the CPU kernel against
// element-by-element index arithmetic on random broadcast operands.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "sluice/core/error.h"
#include "sluice/kernels/elementwise/arithmetic_impl.h"
#include "sluice/kernels/elementwise/elementwise_cpu.h"

namespace sluice::kernels {
namespace {

constexpr DType kB = DType::kBool, kU8 = DType::kUInt8, kI8 = DType::kInt8, kU16 = DType::kUInt16,
                kI16 = DType::kInt16, kU32 = DType::kUInt32, kI32 = DType::kInt32,
                kI64 = DType::kInt64, kU64 = DType::kUInt64, kF16 = DType::kFloat16,
                kBF16 = DType::kBFloat16, kF32 = DType::kFloat32, kF64 = DType::kFloat64;

TEST(ArithmeticTypes, PromotionIsDalisTable) {
  // Rows and columns: bool, uint8, int8, uint16, int16, uint32, int32, int64, uint64, float32,
  // float64, as NVIDIA DALI 2.4 gives them for `a & b` (integers) and `a + b` (floats).
  const DType order[] = {kB, kU8, kI8, kU16, kI16, kU32, kI32, kI64, kU64, kF32, kF64};
  const DType table[11][11] = {
      {kB, kU8, kI8, kU16, kI16, kU32, kI32, kI64, kU64, kF32, kF64},
      {kU8, kU8, kI16, kU16, kI16, kU32, kI32, kI64, kU64, kF32, kF64},
      {kI8, kI16, kI8, kI32, kI16, kI64, kI32, kI64, kI64, kF32, kF64},
      {kU16, kU16, kI32, kU16, kI32, kU32, kI32, kI64, kU64, kF32, kF64},
      {kI16, kI16, kI16, kI32, kI16, kI64, kI32, kI64, kI64, kF32, kF64},
      {kU32, kU32, kI64, kU32, kI64, kU32, kI64, kI64, kU64, kF32, kF64},
      {kI32, kI32, kI32, kI32, kI32, kI64, kI32, kI64, kI64, kF32, kF64},
      {kI64, kI64, kI64, kI64, kI64, kI64, kI64, kI64, kI64, kF32, kF64},
      {kU64, kU64, kI64, kU64, kI64, kU64, kI64, kI64, kU64, kF32, kF64},
      {kF32, kF32, kF32, kF32, kF32, kF32, kF32, kF32, kF32, kF32, kF64},
      {kF64, kF64, kF64, kF64, kF64, kF64, kF64, kF64, kF64, kF64, kF64},
  };
  for (int i = 0; i < 11; ++i) {
    for (int j = 0; j < 11; ++j) {
      EXPECT_EQ(promote_types(order[i], order[j]), table[i][j])
          << dtype_name(order[i]) << " with " << dtype_name(order[j]);
    }
  }
  // DALI's GPU table for float16 (its CPU has no float16 arithmetic); bfloat16 alike.
  EXPECT_EQ(promote_types(kI64, kF16), kF16);
  EXPECT_EQ(promote_types(kF16, kF32), kF32);
  EXPECT_EQ(promote_types(kF16, kF64), kF64);
  EXPECT_EQ(promote_types(kF16, kBF16), kF32);
  EXPECT_EQ(promote_types(kU8, kBF16), kBF16);
}

TEST(ArithmeticTypes, ResultAndComputeTypes) {
  auto types = [](ArithOp op, std::vector<DType> t) { return arith_types(op, t); };
  EXPECT_EQ(types(ArithOp::kFDiv, {kU8, kI8}).result, kF32);
  EXPECT_EQ(types(ArithOp::kFDiv, {kF64, kI8}).result, kF64);
  EXPECT_EQ(types(ArithOp::kDiv, {kU8, kI8}).result, kI16);
  EXPECT_EQ(types(ArithOp::kSqrt, {kI64}).result, kF32);
  EXPECT_EQ(types(ArithOp::kAbs, {kI8}).result, kI8);
  EXPECT_EQ(types(ArithOp::kFabs, {kI8}).result, kF32);
  EXPECT_EQ(types(ArithOp::kClamp, {kU8, kI8, kF32}).result, kF32);
  EXPECT_EQ(types(ArithOp::kAtan2, {kI32, kI32}).result, kF32);
  EXPECT_EQ(types(ArithOp::kMul, {kB, kB}).result, kB);
  EXPECT_EQ(types(ArithOp::kBitXor, {kB, kB}).result, kB);
  const ArithTypes lt = types(ArithOp::kLt, {kI8, kU8});
  EXPECT_EQ(lt.result, kB);
  EXPECT_EQ(lt.compute, kI16);
  const ArithTypes half = types(ArithOp::kAdd, {kI32, kF16});
  EXPECT_EQ(half.result, kF16);
  EXPECT_EQ(half.compute, kF32);
  EXPECT_EQ(half.operand_rounding, kF16);
  const ArithTypes mod = types(ArithOp::kMod, {kI32, kF32});
  EXPECT_EQ(mod.result, kF32);
  EXPECT_EQ(mod.compute, kF64);
  EXPECT_EQ(types(ArithOp::kDiv, {kU64, kI32}).result, kI64);
  EXPECT_EQ(types(ArithOp::kSqrt, {kU64}).result, kF32);
  EXPECT_EQ(types(ArithOp::kMinus, {kU64}).result, kU64);
  EXPECT_EQ(types(ArithOp::kClamp, {kU64, kU8, kB}).result, kU64);
  // uint64 compared with a signed type: by value; with anything else in the promoted type.
  EXPECT_TRUE(types(ArithOp::kEq, {kI8, kU64}).by_value);
  EXPECT_TRUE(types(ArithOp::kGeq, {kU64, kI64}).by_value);
  EXPECT_FALSE(types(ArithOp::kEq, {kU64, kU8}).by_value);
  EXPECT_FALSE(types(ArithOp::kLt, {kU64, kF32}).by_value);
  EXPECT_FALSE(types(ArithOp::kLt, {kU32, kI32}).by_value);
  EXPECT_FALSE(types(ArithOp::kAdd, {kU64, kI8}).by_value);
}

TEST(ArithmeticTypes, RefusesWhatDaliRefuses) {
  const std::vector<DType> two_bools = {kB, kB}, one_bool = {kB};
  for (ArithOp op : {ArithOp::kAdd, ArithOp::kSub, ArithOp::kDiv, ArithOp::kFDiv, ArithOp::kMod,
                     ArithOp::kPow, ArithOp::kMin, ArithOp::kAtan2}) {
    EXPECT_THROW(arith_types(op, two_bools), InvalidArgument) << arith_op_name(op);
  }
  for (ArithOp op : {ArithOp::kMinus, ArithOp::kAbs, ArithOp::kSqrt, ArithOp::kFloor}) {
    EXPECT_THROW(arith_types(op, one_bool), InvalidArgument) << arith_op_name(op);
  }
  EXPECT_NO_THROW(arith_types(ArithOp::kBitNot, one_bool));
  EXPECT_NO_THROW(arith_types(ArithOp::kEq, two_bools));
  const std::vector<DType> int_float = {kI32, kF32};
  for (ArithOp op : {ArithOp::kBitAnd, ArithOp::kBitOr, ArithOp::kLShift}) {
    EXPECT_THROW(arith_types(op, int_float), InvalidArgument) << arith_op_name(op);
  }
  EXPECT_THROW(parse_arith_op("floordiv"), InvalidArgument);
  for (int i = 0; i < kNumArithOps; ++i) {
    const auto op = static_cast<ArithOp>(i);
    EXPECT_EQ(parse_arith_op(arith_op_name(op)), op);
  }
}

TEST(ArithmeticElements, CSemanticsWithDefinedEdges) {
  using namespace arith;  // NOLINT(google-build-using-namespace)
  EXPECT_EQ(binary<ArithOp::kDiv>(int32_t{-7}, int32_t{2}), -3);  // truncation
  EXPECT_EQ(binary<ArithOp::kMod>(int32_t{-7}, int32_t{2}), -1);  // sign of the dividend
  EXPECT_EQ(binary<ArithOp::kDiv>(std::numeric_limits<int32_t>::min(), int32_t{-1}),
            std::numeric_limits<int32_t>::min());
  EXPECT_EQ(binary<ArithOp::kMod>(std::numeric_limits<int64_t>::min(), int64_t{-1}), 0);
  EXPECT_EQ(binary<ArithOp::kDiv>(int32_t{5}, int32_t{0}), 0);
  EXPECT_EQ(binary<ArithOp::kDiv>(-5.5, 2.0), -2.75);                    // // of floats divides
  EXPECT_EQ(binary<ArithOp::kMod>(-5.5, 2.0), -1.5);                     // fmod
  EXPECT_EQ(binary<ArithOp::kPow>(int32_t{3}, int32_t{40}), 689956897);  // wraps
  EXPECT_EQ(binary<ArithOp::kPow>(int32_t{1}, int32_t{-1}), 0);
  EXPECT_EQ(binary<ArithOp::kPow>(uint8_t{3}, uint8_t{5}), 243);
  EXPECT_EQ(binary<ArithOp::kAdd>(uint8_t{250}, uint8_t{10}), 4);
  EXPECT_EQ(binary<ArithOp::kMul>(int32_t{1 << 30}, int32_t{4}), 0);
  EXPECT_EQ(binary<ArithOp::kLShift>(int32_t{1}, int32_t{40}), 256);  // count mod 32
  EXPECT_EQ(binary<ArithOp::kLShift>(uint8_t{1}, uint8_t{9}), 0);     // in int, then uint8
  EXPECT_EQ(binary<ArithOp::kLShift>(int64_t{1}, int64_t{70}), 64);
  EXPECT_EQ(binary<ArithOp::kRShift>(int32_t{-8}, int32_t{33}), -4);
  EXPECT_EQ(binary<ArithOp::kLShift>(int32_t{255}, int32_t{-1}), std::numeric_limits<int>::min());
  EXPECT_EQ(unary<ArithOp::kMinus>(uint8_t{3}), 253);
  EXPECT_EQ(unary<ArithOp::kAbs>(int8_t{-128}), -128);
  EXPECT_TRUE(std::signbit(unary<ArithOp::kAbs>(-0.0f)));  // DALI's abs keeps -0.0
  EXPECT_FALSE(std::signbit(unary<ArithOp::kFabs>(-0.0f)));
  EXPECT_EQ(unary<ArithOp::kBitNot>(true), false);
  EXPECT_EQ(unary<ArithOp::kBitNot>(uint8_t{5}), 250);
  EXPECT_EQ(binary<ArithOp::kMin>(NAN, 1.0f), 1.0f);
  EXPECT_TRUE(std::isnan(binary<ArithOp::kMin>(1.0f, NAN)));
  EXPECT_EQ(clamp(5, 0, 3), 3);
  EXPECT_EQ(unary<ArithOp::kRsqrt>(4.0f), 0.5f);
  constexpr uint64_t kMaxU = std::numeric_limits<uint64_t>::max();
  EXPECT_EQ(unary<ArithOp::kMinus>(uint64_t{1}), kMaxU);
  EXPECT_EQ(binary<ArithOp::kAdd>(kMaxU, uint64_t{2}), 1u);
  EXPECT_EQ(binary<ArithOp::kDiv>(kMaxU, uint64_t{2}), kMaxU / 2);  // unsigned division
  EXPECT_EQ(binary<ArithOp::kRShift>(kMaxU, uint64_t{65}), kMaxU / 2);
  EXPECT_EQ(binary<ArithOp::kPow>(kMaxU, kMaxU), kMaxU);  // (-1) ** odd, wrapping
  EXPECT_EQ(binary<ArithOp::kPow>(uint64_t{3}, uint64_t{41}), 18026252303461234787u);
}

TEST(ArithmeticElements, Int65ComparesInt64AndUint64ByValue) {
  using arith::compare;
  using arith::Int65;
  constexpr uint64_t kMaxU = std::numeric_limits<uint64_t>::max();
  constexpr int64_t kMinI = std::numeric_limits<int64_t>::min();
  EXPECT_FALSE(compare<ArithOp::kEq>(Int65(kMaxU), Int65(int64_t{-1})));  // same bits
  EXPECT_TRUE(compare<ArithOp::kLt>(Int65(int8_t{-1}), Int65(uint64_t{0})));
  EXPECT_TRUE(compare<ArithOp::kGt>(Int65(uint64_t{1} << 63), Int65(int32_t{5})));
  EXPECT_TRUE(compare<ArithOp::kLt>(Int65(kMinI), Int65(int64_t{-1})));
  EXPECT_TRUE(compare<ArithOp::kLeq>(Int65(int64_t{7}), Int65(uint64_t{7})));
  EXPECT_TRUE(compare<ArithOp::kEq>(Int65(int16_t{7}), Int65(uint64_t{7})));
  EXPECT_TRUE(compare<ArithOp::kNeq>(Int65(kMinI), Int65(uint64_t{1} << 63)));
  EXPECT_TRUE(compare<ArithOp::kGeq>(Int65(true), Int65(int8_t{1})));
}

// Reference: element by element, by multi-index, with the element operations in double for
// floats (rounded to float32) and in int64 for integers.
double reference(ArithOp op, double a, double b) {
  switch (op) {
    case ArithOp::kAdd:
      return a + b;
    case ArithOp::kSub:
      return a - b;
    case ArithOp::kMul:
      return a * b;
    case ArithOp::kFDiv:
      return a / b;
    case ArithOp::kMax:
      return a > b ? a : b;
    case ArithOp::kLt:
      return a < b;
    default:
      return NAN;
  }
}

template <typename T>
std::vector<T> random_values(const Shape& s, std::mt19937& gen) {
  std::vector<T> v(static_cast<size_t>(volume(s)));
  std::uniform_int_distribution<int> d(-100, 100);
  for (auto& x : v) x = static_cast<T>(d(gen));
  return v;
}

// Element of `v` (shape `s`, aligned at the right with the output index `idx`).
template <typename T>
double at(const std::vector<T>& v, const Shape& s, const Shape& idx) {
  int64_t off = 0;
  const size_t lead = idx.size() - s.size();
  for (size_t d = 0; d < s.size(); ++d) off = off * s[d] + (s[d] == 1 ? 0 : idx[lead + d]);
  return static_cast<double>(v[static_cast<size_t>(off)]);
}

TEST(ArithmeticCpu, BroadcastMixedTypesMatchIndexArithmetic) {
  std::mt19937 gen(7);
  const std::vector<std::pair<Shape, Shape>> cases = {
      {{2000}, {2000}}, {{3, 1500}, {1500}},       {{7, 1, 5}, {4, 1}},
      {{1}, {6, 5}},    {{2, 3, 4, 5}, {}},        {{5, 1, 3, 1, 2}, {1, 4, 1, 6, 1}},
      {{0, 3}, {1, 3}}, {{1, 1, 3000}, {2, 1, 1}},
  };
  for (ArithOp op :
       {ArithOp::kAdd, ArithOp::kSub, ArithOp::kMul, ArithOp::kFDiv, ArithOp::kMax, ArithOp::kLt}) {
    for (const auto& [sa, sb] : cases) {
      const auto a = random_values<uint8_t>(sa, gen);
      const auto b = random_values<float>(sb, gen);
      const Shape* shapes[] = {&sa, &sb};
      const Shape out_shape = broadcast_shape(shapes, 0);
      ArithParams p;
      p.op = op;
      p.arity = 2;
      p.operand[0] = DType::kUInt8;
      p.operand[1] = DType::kFloat32;
      p.types = arith_types(op, {p.operand, 2});
      const bool cmp = is_comparison(op);
      std::vector<float> out(static_cast<size_t>(volume(out_shape)), -7.f);
      std::vector<uint8_t> out_bool(out.size(), 9);
      void* out_ptr = cmp ? static_cast<void*>(out_bool.data()) : out.data();
      const void* data[] = {a.data(), b.data()};
      ArithSampleDesc desc;
      describe_arith_sample(desc, out_ptr, out_shape, data, shapes);
      arithmetic_cpu(p, desc);
      Shape idx(out_shape.size(), 0);
      for (size_t i = 0; i < out.size(); ++i) {
        const double want = reference(op, at(a, sa, idx), at(b, sb, idx));
        const double got = cmp ? out_bool[i] : out[i];
        ASSERT_EQ(got, static_cast<float>(want))
            << arith_op_name(op) << " element " << i << " of " << shape_to_string(out_shape);
        for (int d = static_cast<int>(idx.size()) - 1; d >= 0; --d) {
          if (++idx[d] < out_shape[d]) break;
          idx[d] = 0;
        }
      }
    }
  }
}

TEST(ArithmeticCpu, ConstantsHalfRoundingAndDivisionByZero) {
  // int32 + float16 constant: the int is rounded to float16 first, as DALI casts it.
  const std::vector<int32_t> a = {2049, 1, -3};
  ArithParams p;
  p.op = ArithOp::kAdd;
  p.arity = 2;
  p.operand[0] = kI32;
  p.operand[1] = kF16;
  p.types = arith_types(p.op, {p.operand, 2});
  const float16 one(1.0f);
  std::memcpy(&p.constant[1], &one, sizeof(one));
  p.constant_mask = 2;
  const Shape s{3};
  const Shape* shapes[] = {&s, nullptr};
  const void* data[] = {a.data(), &p.constant[1]};
  std::vector<float16> out(3);
  ArithSampleDesc desc;
  describe_arith_sample(desc, out.data(), s, data, shapes);
  arithmetic_cpu(p, desc);
  EXPECT_EQ(static_cast<float>(out[0]), 2048.0f);  // half(2049) = 2048, + 1 = 2049 -> 2048
  EXPECT_EQ(static_cast<float>(out[1]), 2.0f);
  EXPECT_EQ(static_cast<float>(out[2]), -2.0f);

  const std::vector<int16_t> x = {7, 8}, y = {1, 0};
  ArithParams q;
  q.op = ArithOp::kDiv;
  q.arity = 2;
  q.operand[0] = q.operand[1] = kI16;
  q.types = arith_types(q.op, {q.operand, 2});
  const Shape s2{2};
  const Shape* shapes2[] = {&s2, &s2};
  const void* data2[] = {x.data(), y.data()};
  std::vector<int16_t> out2(2);
  describe_arith_sample(desc, out2.data(), s2, data2, shapes2);
  try {
    arithmetic_cpu(q, desc);
    FAIL() << "no error";
  } catch (const InvalidArgument& e) {
    EXPECT_STREQ(e.what(), "Integer division by zero.");
  }
}

// op(a, b) of two 4-element operands through arithmetic_cpu; the result's raw values as uint64.
template <typename A, typename B>
std::vector<uint64_t> run4(ArithOp op, const std::vector<A>& a, const std::vector<B>& b) {
  ArithParams p;
  p.op = op;
  p.arity = 2;
  p.operand[0] = dtype_of<A>;
  p.operand[1] = dtype_of<B>;
  p.types = arith_types(op, {p.operand, 2});
  const Shape s{4};
  const Shape* shapes[] = {&s, &s};
  const void* data[] = {a.data(), b.data()};
  std::vector<uint64_t> out(4);
  std::vector<uint8_t> raw(4 * dtype_size(p.types.result));
  ArithSampleDesc desc;
  describe_arith_sample(desc, raw.data(), s, data, shapes);
  arithmetic_cpu(p, desc);
  dtype_dispatch(p.types.result, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>) {
      for (int i = 0; i < 4; ++i)
        out[i] = static_cast<uint64_t>(reinterpret_cast<T*>(raw.data())[i]);
    }
  });
  return out;
}

TEST(ArithmeticCpu, Uint64WrapsAndComparesWithSignedByValue) {
  constexpr uint64_t kMaxU = std::numeric_limits<uint64_t>::max(), kHalf = uint64_t{1} << 63;
  const std::vector<uint64_t> u = {0, 1, kHalf, kMaxU};
  const std::vector<int8_t> s = {-1, 0, 5, -1};
  const std::vector<int64_t> l = {-1, 1, std::numeric_limits<int64_t>::min(), -1};
  using V = std::vector<uint64_t>;
  EXPECT_EQ(run4(ArithOp::kAdd, u, u), (V{0, 2, 0, kMaxU - 1}));
  EXPECT_EQ(run4(ArithOp::kDiv, u, std::vector<uint64_t>{1, 1, 3, 2}),
            (V{0, 1, kHalf / 3, kMaxU / 2}));
  EXPECT_EQ(run4(ArithOp::kAdd, u, s), (V{kMaxU, 1, kHalf + 5, kMaxU - 1}));  // int64, wrapping
  EXPECT_EQ(run4(ArithOp::kEq, u, s), (V{0, 0, 0, 0}));
  EXPECT_EQ(run4(ArithOp::kLt, s, u), (V{1, 1, 1, 1}));
  EXPECT_EQ(run4(ArithOp::kEq, l, u), (V{0, 1, 0, 0}));
  EXPECT_EQ(run4(ArithOp::kGeq, u, l), (V{1, 1, 1, 1}));
  EXPECT_EQ(run4(ArithOp::kLt, u, std::vector<uint64_t>{1, 1, kMaxU, kHalf}), (V{1, 0, 1, 0}));
}

}  // namespace
}  // namespace sluice::kernels
