#include "sluice/io/recordio.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "sluice/core/error.h"
#include "sluice/io/detail/io_test_util.h"

namespace sluice {
namespace {

using io_detail::expect_error;
using Bytes = std::vector<uint8_t>;

void put_u32(Bytes& b, uint32_t v) {
  uint8_t raw[4];
  std::memcpy(raw, &v, 4);
  b.insert(b.end(), raw, raw + 4);
}

void put_part(Bytes& b, uint32_t cflag, const Bytes& part) {
  put_u32(b, kRecordIOMagic);
  put_u32(b, (cflag << 29) | static_cast<uint32_t>(part.size()));
  b.insert(b.end(), part.begin(), part.end());
  while (b.size() % 4 != 0) b.push_back(0);
}

Bytes payload(uint32_t flag, float label, const std::vector<float>& labels, const Bytes& data) {
  Bytes p;
  put_u32(p, flag);
  uint32_t raw;
  std::memcpy(&raw, &label, 4);
  put_u32(p, raw);
  put_u32(p, 42);  // id
  put_u32(p, 0);
  put_u32(p, 0);
  put_u32(p, 0);
  for (float l : labels) {
    std::memcpy(&raw, &l, 4);
    put_u32(p, raw);
  }
  p.insert(p.end(), data.begin(), data.end());
  return p;
}

TEST(RecordIO, WholeRecordWithOneLabel) {
  Bytes rec;
  put_part(rec, 0, payload(0, 3.f, {}, {1, 2, 3, 4, 5}));
  Bytes scratch;
  MXNetRecord r = parse_mxnet_record(rec, scratch, 0);
  EXPECT_EQ(r.labels, std::vector<float>{3.f});
  EXPECT_EQ(Bytes(r.data.begin(), r.data.end()), (Bytes{1, 2, 3, 4, 5}));
  EXPECT_EQ(r.id, 42u);
}

TEST(RecordIO, SeveralLabelsAndMultiPartRecordsJoinedWithTheMagic) {
  // The writer cut the payload where the magic stood, at a 4-byte aligned position.
  Bytes full = payload(2, 0.f, {1.f, 2.f}, {9, 9, 9, 9, 0x0a, 0x23, 0xd7, 0xce, 7, 7, 7});
  size_t cut = full.size() - 7;  // the magic's position in the data
  Bytes rec;
  put_part(rec, 1, Bytes(full.begin(), full.begin() + static_cast<long>(cut)));
  put_part(rec, 3, Bytes(full.begin() + static_cast<long>(cut) + 4, full.end()));
  Bytes scratch;
  MXNetRecord r = parse_mxnet_record(rec, scratch, 0);
  EXPECT_EQ(r.labels, (std::vector<float>{1.f, 2.f}));
  EXPECT_EQ(Bytes(r.data.begin(), r.data.end()),
            (Bytes{9, 9, 9, 9, 0x0a, 0x23, 0xd7, 0xce, 7, 7, 7}));
}

TEST(RecordIO, BadRecordsAreNamedErrors) {
  Bytes good;
  put_part(good, 0, payload(0, 1.f, {}, {1, 2, 3}));
  Bytes scratch;
  for (size_t cut = 0; cut + 4 < good.size(); ++cut) {
    Bytes t(good.begin(), good.begin() + static_cast<long>(cut));
    EXPECT_THROW(parse_mxnet_record(t, scratch, 100), IOError) << cut;
  }
  Bytes bad = good;
  bad[0] ^= 1;
  expect_error<IOError>([&] { parse_mxnet_record(bad, scratch, 100); }, {"offset 100", "magic"});
  Bytes short_payload;
  put_part(short_payload, 0, Bytes(10, 0));
  expect_error<IOError>([&] { parse_mxnet_record(short_payload, scratch, 5); }, {"IRHeader"});
  Bytes many_labels;
  put_part(many_labels, 0, payload(1000, 0.f, {1.f}, {}));
  expect_error<IOError>([&] { parse_mxnet_record(many_labels, scratch, 5); }, {"flag 1000"});
  Bytes out_of_order;
  put_part(out_of_order, 2, payload(0, 0.f, {}, {}));
  expect_error<IOError>([&] { parse_mxnet_record(out_of_order, scratch, 5); }, {"continuation"});
  Bytes unfinished;
  put_part(unfinished, 1, payload(0, 0.f, {}, {}));
  put_part(unfinished, 0, Bytes(4, 1));
  EXPECT_THROW(parse_mxnet_record(unfinished, scratch, 5), IOError);
}

TEST(RecordIO, IndexSortedSizedAcrossFilesAndChecked) {
  // Two files of 100 and 50 bytes, addressed as one concatenation; offsets out of order, one
  // repeated (a record of size 0, dropped as DALI drops it).
  auto spans = parse_recordio_index("2\t60\n0\t0\n1\t60\n3\t100\n4 120\n", {100, 50}, "x.idx");
  ASSERT_EQ(spans.size(), 4u);
  EXPECT_EQ(spans[0].offset, 0);
  EXPECT_EQ(spans[0].size, 60);
  EXPECT_EQ(spans[1].size, 40);
  EXPECT_EQ(spans[2].file, 1u);
  EXPECT_EQ(spans[2].offset, 0);
  EXPECT_EQ(spans[2].size, 20);
  EXPECT_EQ(spans[3].offset, 20);
  EXPECT_EQ(spans[3].size, 30);
  expect_error<IOError>(
      [] {
        parse_recordio_index("0 0\n1 150\n", {100, 50}, "x.idx");
      },
      {"x.idx", "line 2", "past the end"});
  expect_error<IOError>([] { parse_recordio_index("0 0\n1\n", {100}, "x.idx"); }, {"line 2"});
  expect_error<IOError>([] { parse_recordio_index("0 -1\n", {100}, "x.idx"); }, {"line 1"});
}

}  // namespace
}  // namespace sluice
