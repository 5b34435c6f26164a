#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "sluice/core/error.h"
#include "sluice/io/detail/io_test_util.h"
#include "sluice/io/detail/temp_tree.h"
#include "sluice/io/lmdb_database.h"
#include "sluice/io/lmdb_records.h"

namespace sluice {
namespace {

using io_detail::expect_error;

std::string varint(uint64_t v) {
  std::string out;
  do {
    uint8_t b = v & 0x7F;
    v >>= 7;
    out.push_back(static_cast<char>(b | (v ? 0x80 : 0)));
  } while (v);
  return out;
}
std::string vint(int field, int64_t v) {
  return varint(static_cast<uint64_t>(field) << 3) + varint(static_cast<uint64_t>(v));
}
std::string blob(int field, const std::string& b) {
  return varint(static_cast<uint64_t>(field) << 3 | 2) + varint(b.size()) + b;
}
std::string fixed32(int field, float f) {
  std::string out = varint(static_cast<uint64_t>(field) << 3 | 5);
  out.append(reinterpret_cast<const char*>(&f), 4);
  return out;
}
std::span<const uint8_t> bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

TEST(LmdbRecords, ParsesDatum) {
  std::string rec = vint(1, 3) + vint(2, 2) + vint(3, 1) + blob(4, "abcdef") + vint(5, -7) +
                    fixed32(6, 1.5f) + blob(6, std::string("\0\0\0\x40", 4)) + vint(7, 0) +
                    vint(99, 5) + blob(98, "unknown");
  CaffeDatum d = parse_caffe_datum(bytes(rec), "db at key 1");
  EXPECT_EQ(d.channels, 3);
  EXPECT_EQ(d.height, 2);
  EXPECT_EQ(d.data, "abcdef");
  EXPECT_TRUE(d.has_label);
  EXPECT_EQ(d.label, -7);
  EXPECT_TRUE(d.has_encoded);
  EXPECT_FALSE(d.encoded);
  EXPECT_EQ(d.float_data, (std::vector<float>{1.5f, 2.0f}));
  CaffeDatum empty = parse_caffe_datum({}, "x");
  EXPECT_FALSE(empty.has_data || empty.has_label || empty.has_encoded);
}

TEST(LmdbRecords, ParsesTensorProtos) {
  std::string image = vint(2, 4) + blob(6, "JPEG");
  std::string label = vint(2, 2) + blob(4, varint(3) + varint(static_cast<uint64_t>(-1)));
  std::string extra = vint(1, 2) + vint(1, 1) + vint(2, 10) + vint(10, 1LL << 40);
  std::string rec = blob(1, image) + blob(1, label) + blob(1, extra);
  auto p = parse_caffe2_protos(bytes(rec), "db at key 1");
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].data_type, Caffe2Tensor::kString);
  EXPECT_EQ(p[0].string_data.at(0), "JPEG");
  EXPECT_EQ(p[1].int32_data, (std::vector<int32_t>{3, -1}));
  EXPECT_EQ(p[2].dims, (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(p[2].int64_data, (std::vector<int64_t>{1LL << 40}));
  EXPECT_EQ(parse_caffe2_protos(bytes(blob(1, "")), "x").at(0).data_type, Caffe2Tensor::kFloat);
}

TEST(LmdbRecords, MalformedRecordsNameSourceAndByte) {
  using E = DecodeError;
  expect_error<E>([] { parse_caffe_datum(bytes(blob(4, "abc").substr(0, 3)), "db at key 7"); },
                  {"db at key 7", "Datum", "byte 2", "exceeds"});
  expect_error<E>([] { parse_caffe_datum(bytes(std::string("\x28\xff", 2)), "k"); },
                  {"truncated varint"});
  expect_error<E>([] { parse_caffe_datum(bytes(std::string("\x0b", 1)), "k"); }, {"wire type 3"});
  expect_error<E>([] { parse_caffe_datum(bytes(std::string("\x00\x01", 2)), "k"); },
                  {"field number"});
  std::string bad_float = blob(1, blob(3, "abc"));  // packed floats of 3 bytes
  expect_error<E>([&] { parse_caffe2_protos(bytes(bad_float), "k"); },
                  {"TensorProto", "byte 4", "truncated"});
  expect_error<E>([] { parse_caffe2_protos(bytes(std::string(11, '\xff')), "k"); }, {"varint"});
}

TEST(LmdbDatabase, ReadsRecordsInKeyOrderAcrossDatabases) {
  if (!lmdb_available()) GTEST_SKIP() << "built without liblmdb";
  io_detail::TempTree t;
  write_lmdb(t.path("a"), {{"2", "two"}, {"1", "one"}, {"10", "ten"}});
  write_lmdb(t.path("b"), {{"x", std::string("\0bin", 4)}});
  LmdbDatabases dbs({t.path("a"), t.path("b")});
  ASSERT_EQ(dbs.size(), 4);
  std::vector<uint8_t> v;
  std::vector<std::string> got;
  for (int64_t i = 0; i < 4; ++i) {
    dbs.read(i, v);
    got.emplace_back(v.begin(), v.end());
  }
  EXPECT_EQ(got, (std::vector<std::string>{"one", "ten", "two", std::string("\0bin", 4)}));
  EXPECT_EQ(dbs.source(1), t.path("a") + " at key 10");
  expect_error<IOError>([&] { LmdbDatabases bad({t.path("missing")}); },
                        {"missing", "not a database folder"});
  expect_error<InvalidArgument>([&] { dbs.read(4, v); }, {"out of range"});
}

}  // namespace
}  // namespace sluice
