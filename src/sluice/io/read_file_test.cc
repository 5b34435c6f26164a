#include "sluice/io/read_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "sluice/core/error.h"
#include "sluice/io/detail/io_test_util.h"
#include "sluice/io/detail/temp_tree.h"
#include "sluice/memory/buffer.h"

namespace sluice {
namespace {

using io_detail::expect_error;
using io_detail::open_fd_count;
using io_detail::TempTree;

std::string random_bytes(size_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(gen() & 0xFF);
  return s;
}

TEST(ReadFile, ReadsWholeFileIntoVector) {
  TempTree t;
  const std::string content = random_bytes(300001, 1);
  std::string p = t.file("a.bin", content);
  std::vector<uint8_t> out = {1, 2, 3};
  EXPECT_EQ(read_file(p, out), content.size());
  ASSERT_EQ(out.size(), content.size());
  EXPECT_EQ(std::string(out.begin(), out.end()), content);

  // A smaller file into the same vector: size follows the file.
  std::string small = t.file("b.bin", "xyz");
  EXPECT_EQ(read_file(small, out), 3u);
  EXPECT_EQ(std::string(out.begin(), out.end()), "xyz");
}

TEST(ReadFile, ReadsEmptyFile) {
  TempTree t;
  std::vector<uint8_t> out = {7};
  EXPECT_EQ(read_file(t.file("empty.jpg"), out), 0u);
  EXPECT_TRUE(out.empty());
}

TEST(ReadFile, ReadsIntoHostBuffer) {
  TempTree t;
  const std::string content = random_bytes(65537, 2);
  std::string p = t.file("c.bin", content);
  Buffer buf(MemoryKind::kHost);
  EXPECT_EQ(read_file(p, buf), content.size());
  ASSERT_EQ(buf.size(), content.size());
  EXPECT_EQ(std::string(static_cast<const char*>(buf.data()), buf.size()), content);
}

TEST(ReadFile, DeviceBufferIsRejected) {
  TempTree t;
  std::string p = t.file("d.bin", "abc");
  Buffer buf(MemoryKind::kDevice, 0);
  EXPECT_THROW(read_file(p, buf), InvalidArgument);
}

TEST(ReadFile, MissingFileNamesTheFile) {
  TempTree t;
  std::vector<uint8_t> out;
  std::string p = t.path("nope/missing.jpg");
  expect_error<IOError>([&] { read_file(p, out); }, {p, "does not exist"});
}

TEST(ReadFile, DirectoryIsRejected) {
  TempTree t;
  std::string d = t.dir("cls");
  std::vector<uint8_t> out;
  expect_error<IOError>([&] { read_file(d, out); }, {d, "is a directory"});
}

TEST(ReadFile, FifoIsRejectedWithoutBlocking) {
  TempTree t;
  std::string p = t.path("pipe.jpg");
  ASSERT_EQ(::mkfifo(p.c_str(), 0600), 0);
  std::vector<uint8_t> out;
  // Without O_NONBLOCK, opening a FIFO that has no writer would hang here.
  expect_error<IOError>([&] { read_file(p, out); }, {p, "FIFO"});
}

TEST(ReadFile, PermissionDeniedNamesTheFile) {
  TempTree t;
  std::string p = t.file("secret.jpg", "data");
  ASSERT_EQ(::chmod(p.c_str(), 0), 0);
  ASSERT_EQ(::chmod(t.root().c_str(), 0755), 0);  // only the file itself is locked
  // Root bypasses permission bits: check in a child process that drops to an unprivileged uid.
  EXPECT_EXIT(
      {
        if (::geteuid() == 0 && ::setresuid(65534, 65534, 65534) != 0) std::_Exit(3);
        std::vector<uint8_t> out;
        try {
          read_file(p, out);
        } catch (const IOError& e) {
          std::string m = e.what();
          bool ok =
              m.find(p) != std::string::npos && m.find("permission denied") != std::string::npos;
          std::_Exit(ok ? 0 : 2);
        }
        std::_Exit(1);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(ReadFile, SizeLimitNamesTheFile) {
  TempTree t;
  std::string p = t.file("big.bin", std::string(1000, 'x'));
  std::vector<uint8_t> out;
  expect_error<IOError>([&] { read_file(p, out, 999); }, {p, "1000 bytes", "limit of 999"});
  EXPECT_EQ(read_file(p, out, 1000), 1000u);
}

TEST(ReadFile, FileTruncatedAfterOpenIsAnError) {
  TempTree t;
  std::string p = t.file("shrinks.jpg", random_bytes(10000, 3));
  ReadableFile f(p);
  ASSERT_EQ(f.size(), 10000u);
  ASSERT_EQ(::truncate(p.c_str(), 4000), 0);  // another process truncates it
  std::vector<uint8_t> out(f.size());
  expect_error<IOError>([&] { f.read_all(out.data()); },
                        {p, "changed while it was being read", "10000"});
}

TEST(ReadFile, FileGrownAfterOpenIsAnError) {
  TempTree t;
  std::string p = t.file("grows.jpg", random_bytes(5000, 4));
  ReadableFile f(p);
  ASSERT_EQ(::truncate(p.c_str(), 6000), 0);  // still being written
  std::vector<uint8_t> out(f.size());
  expect_error<IOError>([&] { f.read_all(out.data()); }, {p, "longer"});
}

TEST(ReadFile, ErrorsDoNotLeakFileDescriptors) {
  TempTree t;
  std::string ok = t.file("ok.jpg", "abc");
  std::string big = t.file("big.jpg", std::string(100, 'x'));
  std::string dir = t.dir("folder");
  std::string fifo = t.path("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::vector<uint8_t> out;
  const int before = open_fd_count();
  for (int i = 0; i < 100; ++i) {
    EXPECT_EQ(read_file(ok, out), 3u);
    EXPECT_THROW(read_file(t.path("missing"), out), IOError);
    EXPECT_THROW(read_file(dir, out), IOError);
    EXPECT_THROW(read_file(fifo, out), IOError);
    EXPECT_THROW(read_file(big, out, 10), IOError);
    read_ahead(ok);
  }
  EXPECT_EQ(open_fd_count(), before);
}

TEST(ReadFile, ReadAheadThenRead) {
  TempTree t;
  const std::string content = random_bytes(20000, 5);
  std::vector<std::string> paths = {t.file("x.jpg", content), t.path("missing.jpg"),
                                    t.dir("folder")};
  read_ahead(paths);  // errors (missing file, folder) are ignored
  std::vector<uint8_t> out;
  EXPECT_EQ(read_file(paths[0], out), content.size());
  EXPECT_EQ(std::string(out.begin(), out.end()), content);
}

}  // namespace
}  // namespace sluice
