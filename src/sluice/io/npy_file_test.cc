#include "sluice/io/npy_file.h"

#include <gtest/gtest.h>

#include <cstring>
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

TEST(NpyFile, RangesAreTheReadsOfTheBoxAndServeAnyReader) {
  TempTree t;
  const std::vector<int64_t> dims = {6, 5, 40};
  const std::string bytes = npy_file(dims, false);
  ReadableFile f(t.file("a.npy", bytes));
  NpyLayout layout = npy_layout(read_npy_header(f));
  std::mt19937 gen(5);
  std::vector<uint8_t> scratch;
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<int64_t> anchor(3), shape(3);
    for (int d = 0; d < 3; ++d) {
      anchor[d] = std::uniform_int_distribution<int64_t>(0, dims[d])(gen);
      shape[d] = std::uniform_int_distribution<int64_t>(0, dims[d] - anchor[d])(gen);
    }
    const size_t gap = std::uniform_int_distribution<size_t>(0, 200)(gen);
    const std::vector<NpyByteRange> ranges = npy_box_ranges(layout, anchor, shape, gap);
    // Reading from memory through the ranges gives what pread gives, with the same reads.
    std::vector<NpyByteRange> made;
    auto from_memory = [&](uint64_t offset, void* dst, size_t n) {
      made.push_back({offset, n});
      ASSERT_LE(offset + n, bytes.size());
      std::memcpy(dst, bytes.data() + offset, n);
    };
    const size_t n = static_cast<size_t>(shape[0] * shape[1] * shape[2]);
    std::vector<int16_t> want(n, -1), got(n, -2);
    read_npy_box(f, layout, anchor, shape, want.data(), scratch, gap);
    read_npy_box(from_memory, layout, anchor, shape, got.data(), scratch, gap);
    ASSERT_EQ(got, want) << "trial " << trial;
    ASSERT_EQ(made.size(), ranges.size()) << "trial " << trial;
    size_t total = 0;
    for (size_t i = 0; i < ranges.size(); ++i) {
      ASSERT_EQ(made[i].offset, ranges[i].offset);
      ASSERT_EQ(made[i].length, ranges[i].length);
      // In file order, not overlapping, each apart from the next by more than the gap.
      if (i > 0) ASSERT_GT(ranges[i].offset, ranges[i - 1].offset + ranges[i - 1].length + gap);
      total += ranges[i].length;
    }
    ASSERT_GE(total, n * sizeof(int16_t));
  }
  // A box of whole rows is one range; an empty box none.
  std::vector<int64_t> a = {1, 0, 0}, s = {3, 5, 40};
  auto whole = npy_box_ranges(layout, a, s);
  ASSERT_EQ(whole.size(), 1u);
  EXPECT_EQ(whole[0].offset, 128u + 200 * 2);
  EXPECT_EQ(whole[0].length, 3u * 200 * 2);
  EXPECT_TRUE(npy_box_ranges(layout, std::vector<int64_t>{0, 0, 0}, std::vector<int64_t>{6, 0, 40})
                  .empty());
}

TEST(NpyFile, HeadersFromBytesNameTheirSource) {
  const std::string f = npy_file({3, 4}, false);
  std::span<const uint8_t> b(reinterpret_cast<const uint8_t*>(f.data()), f.size());
  EXPECT_EQ(npy_header_bytes(b.first(12), f.size(), "s3://b/k"), 128u);
  EXPECT_EQ(parse_npy_file_header(b.first(128), f.size(), "s3://b/k").shape,
            (std::vector<int64_t>{3, 4}));
  expect_error<DecodeError>([&] { npy_header_bytes(b.first(12), 100, "s3://b/k"); },
                            {"'s3://b/k'", "needs 128 bytes but the file has 100"});
  expect_error<DecodeError>([&] { parse_npy_file_header(b.first(128), 140, "s3://b/k"); },
                            {"'s3://b/k'", "truncated", "ends at byte 140"});
  expect_error<DecodeError>([&] { npy_header_bytes(b.first(0), 0, "s3://b/e"); },
                            {"'s3://b/e'", "only 0 bytes"});
}

}  // namespace
}  // namespace sluice
