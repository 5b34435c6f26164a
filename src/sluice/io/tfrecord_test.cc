#include "sluice/io/tfrecord.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "sluice/core/error.h"
#include "sluice/io/detail/io_test_util.h"
#include "sluice/io/tfrecord_example.h"

namespace sluice {
namespace {

using io_detail::expect_error;
using Bytes = std::vector<uint8_t>;

// A minimal protobuf and TFRecord writer for the tests.
void put_varint(Bytes& b, uint64_t v) {
  for (; v >= 0x80; v >>= 7) b.push_back(static_cast<uint8_t>(v | 0x80));
  b.push_back(static_cast<uint8_t>(v));
}
void put_len(Bytes& b, uint32_t field, const Bytes& payload) {
  put_varint(b, (field << 3) | 2);
  put_varint(b, payload.size());
  b.insert(b.end(), payload.begin(), payload.end());
}
Bytes str(const std::string& s) {
  return Bytes(s.begin(), s.end());
}

Bytes int64_feature(const std::vector<int64_t>& v, bool packed = true) {
  Bytes list;
  if (packed) {
    Bytes p;
    for (int64_t x : v) put_varint(p, static_cast<uint64_t>(x));
    put_len(list, 1, p);
  } else {
    for (int64_t x : v) {
      put_varint(list, 1 << 3);
      put_varint(list, static_cast<uint64_t>(x));
    }
  }
  Bytes f;
  put_len(f, 3, list);
  return f;
}
Bytes float_feature(const std::vector<float>& v, bool packed = true) {
  Bytes list;
  if (packed) {
    Bytes p(v.size() * 4);
    std::memcpy(p.data(), v.data(), p.size());
    put_len(list, 1, p);
  } else {
    for (float x : v) {
      put_varint(list, (1 << 3) | 5);
      uint8_t raw[4];
      std::memcpy(raw, &x, 4);
      list.insert(list.end(), raw, raw + 4);
    }
  }
  Bytes f;
  put_len(f, 2, list);
  return f;
}
Bytes bytes_feature(const std::vector<std::string>& v) {
  Bytes list;
  for (const auto& s : v) put_len(list, 1, str(s));
  Bytes f;
  put_len(f, 1, list);
  return f;
}
Bytes entry(const std::string& key, const Bytes& feature) {
  Bytes e, out;
  put_len(e, 1, str(key));
  put_len(e, 2, feature);
  put_len(out, 1, e);
  return out;
}
Bytes example(const std::vector<Bytes>& entries) {
  Bytes features;
  for (const auto& e : entries) features.insert(features.end(), e.begin(), e.end());
  Bytes ex;
  put_len(ex, 1, features);
  return ex;
}
Bytes frame(const Bytes& payload) {
  Bytes r(12);
  uint64_t n = payload.size();
  std::memcpy(r.data(), &n, 8);
  uint32_t c = masked_crc32c(std::span<const uint8_t>(r.data(), 8));
  std::memcpy(r.data() + 8, &c, 4);
  r.insert(r.end(), payload.begin(), payload.end());
  c = masked_crc32c(payload);
  uint8_t raw[4];
  std::memcpy(raw, &c, 4);
  r.insert(r.end(), raw, raw + 4);
  return r;
}

std::vector<FeatureValues> parse(const Bytes& payload, std::vector<std::string> names) {
  std::vector<FeatureValues> out;
  ExampleParser(std::move(names)).parse(payload, out);
  return out;
}

TEST(TFRecord, Crc32cOfTheStandardCheckString) {
  EXPECT_EQ(crc32c(str("123456789")), 0xE3069283u);
  EXPECT_EQ(crc32c({}), 0u);
  Bytes long_input(1000);
  for (size_t i = 0; i < long_input.size(); ++i) long_input[i] = static_cast<uint8_t>(i * 7);
  uint32_t c = 0xFFFFFFFFu;  // bytewise reference
  for (uint8_t b : long_input) {
    c ^= b;
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1u)));
  }
  EXPECT_EQ(crc32c(long_input), ~c);
}

TEST(TFRecord, PayloadOfAFramedRecordAndItsChecks) {
  Bytes payload = str("hello example");
  Bytes r = frame(payload);
  auto p = tfrecord_payload(r, true, 0);
  EXPECT_EQ(Bytes(p.begin(), p.end()), payload);
  Bytes bad = r;
  bad[14] ^= 1;  // a payload byte
  EXPECT_NO_THROW(tfrecord_payload(bad, false, 40));
  expect_error<IOError>([&] { tfrecord_payload(bad, true, 40); }, {"offset 40", "data's CRC"});
  bad = r;
  bad[9] ^= 1;  // the length's CRC
  expect_error<IOError>([&] { tfrecord_payload(bad, true, 7); }, {"offset 7", "length's CRC"});
  bad = r;
  bad[0] = 200;  // a length past the record
  expect_error<IOError>([&] { tfrecord_payload(bad, false, 3); }, {"offset 3", "length 200"});
  bad.resize(10);
  expect_error<IOError>([&] { tfrecord_payload(bad, false, 3); }, {"16-byte framing"});
}

TEST(TFRecord, IndexLinesAndTheirErrors) {
  auto idx = parse_tfrecord_index("0 20\n20 30\r\n\n50 16", 66, "a.idx");
  ASSERT_EQ(idx.size(), 3u);
  EXPECT_EQ(idx[1].offset, 20);
  EXPECT_EQ(idx[2].size, 16);
  EXPECT_TRUE(parse_tfrecord_index("", 10, "e.idx").empty());
  expect_error<IOError>([] { parse_tfrecord_index("0 20\n20 x\n", 66, "a.idx"); },
                        {"a.idx", "line 2"});
  expect_error<IOError>([] { parse_tfrecord_index("0 20\n20 50\n", 66, "a.idx"); },
                        {"line 2", "offset 20", "66-byte"});
  expect_error<IOError>([] { parse_tfrecord_index("0 20\n20", 66, "a.idx"); }, {"line 2"});
  expect_error<IOError>([] { parse_tfrecord_index("0 3\n", 66, "a.idx"); }, {"line 1"});
  expect_error<IOError>([] { parse_tfrecord_index("99999999999999999999 20", 66, "a.idx"); },
                        {"too large"});
}

TEST(TFExample, ReadsTheThreeKindsPackedOrNot) {
  Bytes ex =
      example({entry("label", int64_feature({3, -1, 1LL << 40})),
               entry("floats", float_feature({1.5f, -2.f}, false)),
               entry("ints", int64_feature({7, 8}, false)),
               entry("image", bytes_feature({"abc", "de"})), entry("other", float_feature({9.f}))});
  auto v = parse(ex, {"image", "label", "floats", "ints", "missing"});
  EXPECT_EQ(v[0].kind, FeatureKind::kBytes);
  ASSERT_EQ(v[0].bytes.size(), 2u);
  EXPECT_EQ(std::string(v[0].bytes[1].begin(), v[0].bytes[1].end()), "de");
  EXPECT_EQ(v[1].ints, (std::vector<int64_t>{3, -1, 1LL << 40}));
  EXPECT_EQ(v[2].floats, (std::vector<float>{1.5f, -2.f}));
  EXPECT_EQ(v[3].ints, (std::vector<int64_t>{7, 8}));
  EXPECT_FALSE(v[4].present);
}

TEST(TFExample, ProtobufMergeRules) {
  // A later entry of a key replaces the earlier; a later oneof member replaces the earlier; two
  // lists of one kind concatenate; unknown fields (here a fixed64 and a group) are skipped.
  Bytes f = int64_feature({1});
  Bytes more = int64_feature({2, 3});
  f.insert(f.end(), more.begin(), more.end());
  put_varint(f, (9 << 3) | 1);
  for (int i = 0; i < 8; ++i) f.push_back(0xEE);
  put_varint(f, (10 << 3) | 3);
  put_varint(f, (11 << 3) | 0);
  put_varint(f, 5);
  put_varint(f, (10 << 3) | 4);
  Bytes replaced = float_feature({1.f});
  Bytes bytes_then_int = bytes_feature({"x"});
  Bytes i9 = int64_feature({9});
  bytes_then_int.insert(bytes_then_int.end(), i9.begin(), i9.end());
  Bytes ex = example({entry("a", replaced), entry("a", f), entry("b", bytes_then_int)});
  auto v = parse(ex, {"a", "b"});
  EXPECT_EQ(v[0].kind, FeatureKind::kInt64);
  EXPECT_EQ(v[0].ints, (std::vector<int64_t>{1, 2, 3}));
  EXPECT_TRUE(v[0].floats.empty());
  EXPECT_EQ(v[1].kind, FeatureKind::kInt64);
  EXPECT_EQ(v[1].ints, (std::vector<int64_t>{9}));
  EXPECT_TRUE(v[1].bytes.empty());
}

TEST(TFExample, MalformedBytesAreNamedErrors) {
  Bytes ex = example({entry("a", int64_feature({1, 2}))});
  for (size_t cut = 1; cut < ex.size(); ++cut) {
    Bytes t(ex.begin(), ex.begin() + static_cast<long>(cut));
    EXPECT_THROW(parse(t, {"a"}), IOError) << "cut at " << cut;
  }
  expect_error<IOError>([] { parse(Bytes{0x00, 0x01}, {"a"}); }, {"byte 1", "field number"});
  Bytes long_varint{0x08};
  for (int i = 0; i < 11; ++i) long_varint.push_back(0xFF);
  expect_error<IOError>([&] { parse(long_varint, {"a"}); }, {"varint"});
  expect_error<IOError>([] { parse(Bytes{0x0F}, {"a"}); }, {"wire type"});
  expect_error<IOError>([] { parse(Bytes{0x0B}, {"a"}); }, {"group"});
  Bytes deep;
  for (int i = 0; i < 100; ++i) deep.push_back(0x13);  // field 2, group start
  expect_error<IOError>([&] { parse(deep, {"a"}); }, {"nested"});
  // A feature not asked for is checked too, as a protobuf parser would.
  Bytes bad_other = example({entry("z", Bytes{0x1A, 0x02, 0x0A, 0x05})});
  EXPECT_THROW(parse(bad_other, {"a"}), IOError);
}

FeatureSpec spec(FeatureKind kind, bool fixed, Shape shape = {}) {
  FeatureSpec s;
  s.name = "f";
  s.kind = kind;
  s.fixed = fixed;
  (fixed ? s.shape : s.partial_shape) = std::move(shape);
  return s;
}

TEST(TFExample, ShapesDefaultsAndDeclarationMismatches) {
  FeatureValues v;
  v.present = true;
  v.kind = FeatureKind::kInt64;
  v.ints = {4, 5};
  FeatureSpec fixed = spec(FeatureKind::kInt64, true, {2, 2});
  fixed.default_int = -1;
  Shape s = feature_shape(fixed, v);
  EXPECT_EQ(s, (Shape{2, 2}));
  std::vector<int64_t> out(4);
  write_feature(fixed, v, s, out.data());
  EXPECT_EQ(out, (std::vector<int64_t>{4, 5, -1, -1}));
  EXPECT_EQ(feature_shape(spec(FeatureKind::kInt64, true, {}), FeatureValues{}), Shape{1});
  expect_error<InvalidArgument>([&] { feature_shape(spec(FeatureKind::kInt64, true, {1}), v); },
                                {"feature 'f'", "2 values"});
  EXPECT_EQ(feature_shape(spec(FeatureKind::kInt64, false), v), Shape{2});
  EXPECT_EQ(feature_shape(spec(FeatureKind::kInt64, false, {2}), v), (Shape{1, 2}));
  EXPECT_EQ(feature_shape(spec(FeatureKind::kInt64, false, {2}), FeatureValues{}), (Shape{0, 2}));
  expect_error<InvalidArgument>([&] { feature_shape(spec(FeatureKind::kInt64, false, {3}), v); },
                                {"multiple"});
  expect_error<InvalidArgument>([&] { feature_shape(spec(FeatureKind::kFloat, false), v); },
                                {"int64_list", "float_list"});
  FeatureSpec text = spec(FeatureKind::kBytes, true);
  text.default_bytes = "none";
  EXPECT_EQ(feature_shape(text, FeatureValues{}), Shape{4});
  expect_error<InvalidArgument>([] { validate_feature_spec(spec(FeatureKind::kBytes, false)); },
                                {"strings"});
  expect_error<InvalidArgument>([] { validate_feature_spec(spec(FeatureKind::kBytes, true, {2})); },
                                {"strings"});
  EXPECT_NO_THROW(validate_feature_spec(spec(FeatureKind::kBytes, true, {1})));
}

}  // namespace
}  // namespace sluice
