#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "sluice/core/error.h"
#include "sluice/io/detail/io_test_util.h"
#include "sluice/io/detail/temp_tree.h"
#include "sluice/io/tar_archive.h"
#include "sluice/io/webdataset_catalog.h"
#include "sluice/io/webdataset_index.h"

namespace sluice {
namespace {

using io_detail::expect_error;
using io_detail::TempTree;

// A ustar header block for `name` with `size` data bytes and typeflag `type`.
std::string header(const std::string& name, size_t size, char type = '0') {
  std::string b(512, '\0');
  std::memcpy(b.data(), name.data(), std::min<size_t>(name.size(), 100));
  std::memcpy(b.data() + 100, "0000644", 7);
  std::snprintf(b.data() + 124, 12, "%011zo", size);
  b[156] = type;
  std::memcpy(b.data() + 257,
              "ustar\0"
              "00",
              8);
  std::memset(b.data() + 148, ' ', 8);
  unsigned sum = 0;
  for (unsigned char c : b) sum += c;
  std::snprintf(b.data() + 148, 8, "%06o", sum);
  return b;
}

std::string member(const std::string& name, const std::string& data, char type = '0') {
  std::string out = header(name, data.size(), type) + data;
  out.resize((out.size() + 511) / 512 * 512, '\0');
  return out;
}

std::string end_blocks() {
  return std::string(1024, '\0');
}

std::vector<TarMember> scan(const std::string& tar) {
  std::vector<TarMember> out;
  scan_tar(
      [&](int64_t off, void* dst, size_t n) {
        size_t k = off >= static_cast<int64_t>(tar.size()) ? 0 : std::min(n, tar.size() - off);
        std::memcpy(dst, tar.data() + off, k);
        return k;
      },
      static_cast<int64_t>(tar.size()), "t.tar", [&](const TarMember& m) { out.push_back(m); });
  return out;
}

TEST(TarArchive, ListsMembersWithDataOffsetsAndLongNames) {
  std::string longname(150, 'x');
  std::string pax_rec = "30 path=dir/pax_named.cls.txt\n";
  std::string tar = member("a.jpg", "JPEGDATA") + member("dir", "", '5') +
                    member("././@LongLink", longname + '\0', 'L') + member("ignored", "12") +
                    member("pax", pax_rec, 'x') + member("short", "abc") + end_blocks() +
                    "garbage after the end";
  auto m = scan(tar);
  ASSERT_EQ(m.size(), 4u);
  EXPECT_EQ(m[0].name, "a.jpg");
  EXPECT_EQ(m[0].data_offset, 512);
  EXPECT_EQ(m[0].size, 8);
  EXPECT_TRUE(m[0].is_file());
  EXPECT_FALSE(m[1].is_file());
  EXPECT_EQ(m[2].name, longname);
  EXPECT_EQ(m[2].size, 2);
  EXPECT_EQ(m[3].name, "dir/pax_named.cls.txt");
  EXPECT_EQ(tar.substr(m[3].data_offset, 3), "abc");
}

TEST(TarArchive, BadInputNamesTheArchiveAndOffset) {
  std::string good = member("a.jpg", "1234");
  std::string bad_sum = good + member("b.jpg", "x");
  bad_sum[512 * 2 + 148] = '7';
  expect_error<IOError>([&] { scan(bad_sum); }, {"t.tar", "offset 1024", "checksum"});
  std::string truncated = good + member("b.jpg", std::string(2000, 'x'));
  truncated.resize(truncated.size() - 1000);
  expect_error<IOError>([&] { scan(truncated); }, {"t.tar", "truncated", "offset 1024"});
  expect_error<IOError>([&] { scan(good + std::string(100, 'x')); },
                        {"truncated tar header at offset 1024"});
  std::string bad_pax = member("pax", "99 path=x\n", 'x') + good;
  expect_error<IOError>([&] { scan(bad_pax); }, {"offset 0", "pax"});
  EXPECT_TRUE(scan("").empty());
}

TEST(WebDatasetIndex, ParsesV12AndV11) {
  auto idx =
      parse_wds_index("v1.2 2\njpg 512 10 a.jpg cls 1536 1 a.cls\npng 2560 5 b.png\n", "i.idx");
  ASSERT_EQ(idx.samples.size(), 2u);
  EXPECT_EQ(idx.samples[0].count, 2u);
  EXPECT_EQ(idx.components[1].ext, "cls");
  EXPECT_EQ(idx.components[1].offset, 1536);
  EXPECT_EQ(idx.components[2].filename, "b.png");
  EXPECT_EQ(idx.samples[1].line, 2);
  auto old = parse_wds_index("v1.1 1\njpg 0 3\n", "i.idx");
  EXPECT_EQ(old.components[0].size, 3);
  EXPECT_EQ(format_wds_index(idx), "v1.2 2\njpg 512 10 a.jpg cls 1536 1 a.cls\npng 2560 5 b.png\n");
}

TEST(WebDatasetIndex, MalformedIndexNamesFileAndLine) {
  using E = InvalidArgument;
  expect_error<E>([] { parse_wds_index("", "i.idx"); }, {"i.idx", "version"});
  expect_error<E>([] { parse_wds_index("v2.0 1\n", "i.idx"); }, {"unsupported"});
  expect_error<E>([] { parse_wds_index("v1.2 0\n", "i.idx"); }, {"positive"});
  expect_error<E>([] { parse_wds_index("v1.2 x\n", "i.idx"); }, {"count"});
  expect_error<E>([] { parse_wds_index("v1.2 2\njpg 0 1 a\n", "i.idx"); }, {"line 2"});
  expect_error<E>([] { parse_wds_index("v1.2 1\njpg 0 1\n", "i.idx"); }, {"line 1"});
  expect_error<E>([] { parse_wds_index("v1.2 1\njpg 100 1 a\n", "i.idx"); }, {"multiple"});
  expect_error<E>([] { parse_wds_index("v1.2 1\njpg -1 1 a\n", "i.idx"); }, {"integers"});
  expect_error<E>([] { parse_wds_index("v1.2 1\n\n", "i.idx"); }, {"line 1", "no components"});
}

TEST(WebDatasetIndex, GroupsTarMembersAsDali) {
  auto m = scan(member("a.jpg", "1") + member("a.cls", "2") + member("d", "", '5') +
                member("b.jpg", "3") + member("dir/.hidden", "4") + member("dir/c.x.y", "5") +
                member("a.txt", "6") + end_blocks());
  auto idx = wds_index_from_tar(m);
  ASSERT_EQ(idx.samples.size(), 5u);
  EXPECT_EQ(idx.samples[0].count, 2u);
  EXPECT_EQ(idx.components[idx.samples[2].first].ext, "hidden");  // "dir/.hidden": base "dir/"
  EXPECT_EQ(idx.components[idx.samples[3].first].ext, "x.y");
  EXPECT_EQ(idx.components[idx.samples[4].first].filename, "a.txt");  // not merged with "a"
  EXPECT_EQ(wds_split_name("noext"), std::make_pair(std::string("noext"), std::string("noext")));
}

TEST(WebDatasetIndex, MatchesExtGroupsAndPolicies) {
  auto raw = parse_wds_index(
      "v1.2 3\nJPG 0 1 a.JPG cls 512 1 a.cls\npng 1024 1 b.png\n"
      "cls 1536 1 c.cls\n",
      "i.idx");
  auto sens = match_wds_samples(raw, make_wds_outputs({"jpg;png", "cls"}, true, WdsMissing::kEmpty),
                                "i.idx");
  ASSERT_EQ(sens.size(), 3);
  EXPECT_EQ(sens.component(0, 0), nullptr);
  EXPECT_EQ(sens.component(1, 0)->ext, "png");
  auto insens = match_wds_samples(
      raw, make_wds_outputs({"jpg;png", "cls"}, false, WdsMissing::kSkip), "i.idx");
  ASSERT_EQ(insens.size(), 1);
  EXPECT_EQ(insens.component(0, 0)->filename, "a.JPG");
  EXPECT_EQ(insens.lines[0], 1);
  auto same =
      match_wds_samples(raw, make_wds_outputs({"png", "png"}, true, WdsMissing::kSkip), "i.idx");
  ASSERT_EQ(same.size(), 1);
  EXPECT_EQ(same.component(0, 0), same.component(0, 1));
  expect_error<InvalidArgument>(
      [&] {
        match_wds_samples(raw, make_wds_outputs({"cls", "png"}, true, WdsMissing::kError), "i.idx");
      },
      {"i.idx", "sample 1", "png"});
  expect_error<InvalidArgument>([] { parse_wds_missing("drop"); }, {"drop"});
}

TEST(WebDatasetCatalog, ReadsHeadersOnlyUntilASampleIsAsked) {
  TempTree t;
  WdsCatalogOptions o;
  for (int s = 0; s < 3; ++s) {
    std::string n = std::to_string(s);
    std::string tar = member(n + "a.jpg", "A" + n) + member(n + "b.jpg", "BB" + n) + end_blocks();
    o.paths.push_back(t.file(n + ".tar", tar));
    auto raw = wds_index_from_tar(scan(tar));
    o.index_paths.push_back(t.file(n + ".idx", format_wds_index(raw)));
  }
  o.outputs = make_wds_outputs({"jpg"}, true, WdsMissing::kEmpty);
  o.max_cached_shards = 1;
  WebDatasetCatalog cat(o);
  EXPECT_EQ(cat.size(), 6);
  EXPECT_EQ(cat.loads(), 0);
  auto s = cat.locate(3);
  EXPECT_EQ(s.shard_index, 1);
  std::string got(static_cast<size_t>(s.component(0)->size), '\0');
  cat.read(s, *s.component(0), got.data());
  EXPECT_EQ(got, "BB1");
  EXPECT_EQ(cat.source(s), o.paths[1] + ":1536:1b.jpg");
  cat.locate(2);
  cat.locate(0);  // evicted by shard 1, loaded again
  EXPECT_EQ(cat.loads(), 2);

  // Without indexes every tar is scanned up front; truncation after that is a named error.
  o.index_paths.clear();
  WebDatasetCatalog scanned(o);
  EXPECT_EQ(scanned.size(), 6);
  auto last = scanned.locate(5);
  ASSERT_EQ(::truncate(o.paths[2].c_str(), 1537), 0);
  expect_error<IOError>([&] { scanned.read(last, *last.component(0), got.data()); },
                        {"2.tar", "offset 1536", "truncated"});
  o.index_paths = {t.file("x.idx", "v1.2 1\njpg 0 2 x\n")};
  expect_error<InvalidArgument>([&] { WebDatasetCatalog bad(o); }, {"index_paths"});
}

}  // namespace
}  // namespace sluice
