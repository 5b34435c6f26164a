#include "sluice/io/npy_file.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "sluice/core/error.h"
#include "sluice/io/detail/io_test_util.h"
#include "sluice/io/detail/temp_tree.h"

namespace sluice {
namespace {

using io_detail::expect_error;
using io_detail::TempTree;

// A version 1.0 .npy file of int16 values 0, 1, 2, ... with the given shape.
std::string npy_file(const std::vector<int64_t>& shape, bool fortran, size_t drop_tail = 0) {
  std::string dims;
  int64_t n = 1;
  for (int64_t d : shape) {
    dims += std::to_string(d) + ", ";
    n *= d;
  }
  std::string text =
      "{'descr': '<i2', 'fortran_order': " + std::string(fortran ? "True" : "False") +
      ", 'shape': (" + dims + "), }";
  while ((10 + text.size() + 1) % 64 != 0) text += ' ';
  text += '\n';
  std::string f = "\x93NUMPY";
  f += '\x01';
  f += '\x00';
  f += static_cast<char>(text.size() & 0xFF);
  f += static_cast<char>(text.size() >> 8);
  f += text;
  for (int64_t i = 0; i < n; ++i) {
    f += static_cast<char>(i & 0xFF);
    f += static_cast<char>((i >> 8) & 0xFF);
  }
  return f.substr(0, f.size() - drop_tail);
}

TEST(NpyFile, ReadsTheHeaderAndRefusesTruncatedFiles) {
  TempTree t;
  ReadableFile ok(t.file("a.npy", npy_file({3, 4}, true)));
  NpyHeader h = read_npy_header(ok);
  EXPECT_EQ(h.shape, (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(npy_layout(h).dims, (std::vector<int64_t>{4, 3}));
  ReadableFile cut(t.file("cut.npy", npy_file({3, 4}, false, 3)));
  expect_error<DecodeError>(
      [&] { read_npy_header(cut); },
      {"cut.npy", "truncated", "24 bytes of data after byte 128", "ends at byte 149"});
  ReadableFile tiny(t.file("tiny.npy", "\x93NUM"));
  expect_error<DecodeError>([&] { read_npy_header(tiny); }, {"tiny.npy", "only 4 bytes"});
  ReadableFile text(t.file("text.npy", std::string(100, 'x')));
  expect_error<DecodeError>([&] { read_npy_header(text); }, {"text.npy", "magic"});
}

TEST(NpyFile, BoxesEqualTheirPartOfTheArray) {
  TempTree t;
  const std::vector<int64_t> dims = {5, 6, 7};
  ReadableFile f(t.file("a.npy", npy_file(dims, false)));
  NpyLayout layout = npy_layout(read_npy_header(f));
  std::mt19937 gen(3);
  std::vector<uint8_t> scratch;
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<int64_t> anchor(3), shape(3);
    for (int d = 0; d < 3; ++d) {
      anchor[d] = std::uniform_int_distribution<int64_t>(0, dims[d])(gen);
      shape[d] = std::uniform_int_distribution<int64_t>(0, dims[d] - anchor[d])(gen);
      if (trial % 3 == 0 && d > 0) anchor[d] = 0, shape[d] = dims[d];
    }
    std::vector<int16_t> out(shape[0] * shape[1] * shape[2], -1);
    size_t gap = trial % 2 ? 0 : 64;  // separate reads, or merged ones
    read_npy_box(f, layout, anchor, shape, out.data(), scratch, gap);
    size_t i = 0;
    for (int64_t a = 0; a < shape[0]; ++a)
      for (int64_t b = 0; b < shape[1]; ++b)
        for (int64_t c = 0; c < shape[2]; ++c, ++i) {
          int64_t v = ((anchor[0] + a) * dims[1] + anchor[1] + b) * dims[2] + anchor[2] + c;
          ASSERT_EQ(out[i], v) << "trial " << trial;
        }
  }
  // A 0-D array is one element.
  ReadableFile s(t.file("s.npy", npy_file({}, false)));
  NpyLayout sl = npy_layout(read_npy_header(s));
  int16_t v = -1;
  read_npy_box(s, sl, {}, {}, &v, scratch);
  EXPECT_EQ(v, 0);
  // An empty array may have dimensions whose product overflows: an empty box reads nothing.
  const int64_t huge = int64_t{1} << 40;
  ReadableFile e(t.file("e.npy", npy_file({0, huge, huge}, true)));
  NpyLayout el = npy_layout(read_npy_header(e));
  read_npy_box(e, el, std::vector<int64_t>{0, 0, 0}, std::vector<int64_t>{huge, huge, 0}, &v,
               scratch);
  EXPECT_EQ(v, 0);
}

}  // namespace
}  // namespace sluice
