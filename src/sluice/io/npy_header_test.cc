#include "sluice/io/npy_header.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sluice/core/error.h"
#include "sluice/io/detail/io_test_util.h"

namespace sluice {
namespace {

using io_detail::expect_error;

// A .npy prelude + header as numpy writes it (version 1.0 or 2.0), padded to 64 bytes.
std::vector<uint8_t> npy(const std::string& dict, int major = 1) {
  const size_t pre = major == 1 ? 10 : 12;
  std::string text = dict;
  while ((pre + text.size() + 1) % 64 != 0) text += ' ';
  text += '\n';
  std::vector<uint8_t> b = {0x93, 'N', 'U', 'M', 'P', 'Y', static_cast<uint8_t>(major), 0};
  for (size_t i = 0; i < pre - 8; ++i) b.push_back(static_cast<uint8_t>(text.size() >> (8 * i)));
  b.insert(b.end(), text.begin(), text.end());
  return b;
}

TEST(NpyHeader, ParsesWhatNumpyWrites) {
  auto b = npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }");
  NpyHeader h = parse_npy_header(b);
  EXPECT_EQ(h.dtype, DType::kFloat32);
  EXPECT_FALSE(h.fortran_order);
  EXPECT_EQ(h.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(h.data_offset, 128);
  EXPECT_EQ(h.num_elements, 6);
  EXPECT_EQ(h.data_bytes, 24);
  EXPECT_EQ(npy_header_size(std::span(b).first(kNpyPreludeSize)), 128u);
}

TEST(NpyHeader, EveryDtypeOrderAndVersion) {
  const std::pair<const char*, DType> types[] = {
      {"|b1", DType::kBool},    {"|i1", DType::kInt8},    {"<i2", DType::kInt16},
      {"<i4", DType::kInt32},   {"<i8", DType::kInt64},   {"|u1", DType::kUInt8},
      {"<u2", DType::kUInt16},  {"=u4", DType::kUInt32},  {"<u8", DType::kUInt64},
      {"<f2", DType::kFloat16}, {"<f4", DType::kFloat32}, {"<f8", DType::kFloat64}};
  for (auto [descr, type] : types) {
    for (int major : {1, 2, 3}) {
      auto b =
          npy(std::string("{\"shape\": (4L,), 'fortran_order': True, 'descr': '") + descr + "'}",
              major);
      NpyHeader h = parse_npy_header(b);
      EXPECT_EQ(h.dtype, type) << descr;
      EXPECT_TRUE(h.fortran_order);
      EXPECT_EQ(h.shape, std::vector<int64_t>{4});
      EXPECT_EQ(h.data_offset, 128);
    }
  }
  NpyHeader scalar = parse_npy_header(npy("{'descr': '<i8', 'fortran_order': False, 'shape': ()}"));
  EXPECT_TRUE(scalar.shape.empty());
  EXPECT_EQ(scalar.num_elements, 1);
}

TEST(NpyHeader, BadInputSaysWhatIsWrong) {
  auto parse = [](std::vector<uint8_t> b) { return [b] { parse_npy_header(b); }; };
  expect_error<DecodeError>(parse({1, 2, 3}), {"only 3 bytes"});
  auto b = npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }");
  auto nomagic = b;
  nomagic[1] = 'X';
  expect_error<DecodeError>(parse(nomagic), {"magic"});
  auto v9 = b;
  v9[6] = 9;
  expect_error<DecodeError>(parse(v9), {"version 9.0"});
  expect_error<DecodeError>(parse(std::vector<uint8_t>(b.begin(), b.begin() + 40)),
                            {"needs 128 bytes", "has 40"});
  expect_error<DecodeError>(parse(npy("{'descr': '>f4', 'fortran_order': False, 'shape': (2,)}")),
                            {"big-endian"});
  expect_error<DecodeError>(parse(npy("{'descr': '<c8', 'fortran_order': False, 'shape': (2,)}")),
                            {"unsupported data type '<c8'"});
  expect_error<DecodeError>(
      parse(npy("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,)}")),
      {"structured"});
  expect_error<DecodeError>(parse(npy("{'descr': '<f4', 'shape': (2,)}")), {"no 'fortran_order'"});
  expect_error<DecodeError>(parse(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,)}")),
                            {"negative dimension"});
  expect_error<DecodeError>(parse(npy("{'descr': '<f4', 'fortran_order': 0, 'shape': (2,)}")),
                            {"True or False", "at byte"});
  expect_error<DecodeError>(
      parse(npy("{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296)}")),
      {"overflows"});
  expect_error<DecodeError>(parse(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,")),
                            {"at byte 64: expected a number"});
  std::vector<uint8_t> huge = {0x93, 'N', 'U', 'M', 'P', 'Y', 2, 0, 0, 0, 0, 1};
  expect_error<DecodeError>(parse(huge), {"more than the limit"});
}

}  // namespace
}  // namespace sluice
