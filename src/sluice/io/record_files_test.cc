#include "sluice/io/record_files.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <thread>
#include <vector>

#include "sluice/core/error.h"
#include "sluice/io/detail/io_test_util.h"
#include "sluice/io/detail/temp_tree.h"

namespace sluice {
namespace {

using io_detail::expect_error;
using io_detail::open_fd_count;
using io_detail::TempTree;

TEST(RecordFiles, ReadsAtOffsetsKeepingAtMostMaxOpenFilesOpen) {
  TempTree t;
  std::vector<std::string> paths;
  for (int f = 0; f < 6; ++f) {
    paths.push_back(
        t.file(std::string("f") + std::to_string(f), std::string(100, static_cast<char>('a' + f))));
  }
  const int before = open_fd_count();
  RecordFiles files;
  files.open(paths, 2);
  EXPECT_EQ(files.count(), 6u);
  EXPECT_EQ(files.size(3), 100);
  EXPECT_LE(open_fd_count(), before + 2);
  std::vector<std::thread> threads;
  for (int k = 0; k < 4; ++k) {
    threads.emplace_back([&, k] {
      for (int i = 0; i < 200; ++i) {
        size_t f = static_cast<size_t>((i * 7 + k) % 6);
        char buf[10];
        files.read(f, 90, 10, buf);
        ASSERT_EQ(std::string(buf, 10), std::string(10, static_cast<char>('a' + f)));
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_LE(open_fd_count(), before + 2);
}

TEST(RecordFiles, MissingShortAndIrregularFilesAreNamed) {
  TempTree t;
  std::string a = t.file("a", "0123456789");
  RecordFiles files;
  expect_error<IOError>([&] { files.open({a, t.path("missing")}); }, {"missing"});
  RecordFiles dir;
  expect_error<IOError>([&] { dir.open({t.root()}); }, {"not a regular file"});
  RecordFiles ok;
  ok.open({a});
  ASSERT_EQ(truncate(a.c_str(), 4), 0);
  char buf[8];
  expect_error<IOError>([&] { ok.read(0, 2, 8, buf); }, {"'" + a + "'", "offset 4", "truncated"});
}

}  // namespace
}  // namespace sluice
