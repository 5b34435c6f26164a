// list_file_dataset with `files` (file_dataset.h mode (c)), and where file_root contains entries:
// only a given file_root does; other paths are read as given, as DALI reads them.

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <utility>
#include <vector>

#include "sluice/core/error.h"
#include "sluice/io/detail/io_test_util.h"
#include "sluice/io/detail/temp_tree.h"
#include "sluice/io/file_dataset.h"
#include "sluice/io/read_file.h"

namespace sluice {
namespace {

using io_detail::expect_error;
using io_detail::TempTree;

std::string read_text(const std::string& path) {
  std::vector<uint8_t> bytes;
  read_file(path, bytes);
  return std::string(bytes.begin(), bytes.end());
}

// Runs `fn` with the working directory set to `dir`, restoring it afterwards.
template <typename Fn>
void in_directory(const std::string& dir, Fn&& fn) {
  char old_cwd[4096];
  ASSERT_NE(::getcwd(old_cwd, sizeof(old_cwd)), nullptr);
  ASSERT_EQ(::chdir(dir.c_str()), 0);
  try {
    fn();
  } catch (...) {
    ASSERT_EQ(::chdir(old_cwd), 0);
    throw;
  }
  ASSERT_EQ(::chdir(old_cwd), 0);
}

TEST(FilesArgument, LabelsDefaultToIndices) {
  TempTree t;
  FileDatasetOptions o;
  o.file_root = t.root();
  o.files = {"z.jpg", "a/b.jpg", "m.png"};
  FileDataset ds = list_file_dataset(o);
  const std::string r = t.root() + "/";
  auto labels = [](const FileDataset& d) {
    std::vector<std::pair<std::string, int32_t>> out;
    for (const FileEntry& e : d.entries) out.emplace_back(e.path, e.label);
    return out;
  };
  using Listing = std::vector<std::pair<std::string, int32_t>>;
  EXPECT_EQ(labels(ds), (Listing{{r + "z.jpg", 0}, {r + "a/b.jpg", 1}, {r + "m.png", 2}}));
  o.labels = std::vector<int32_t>{7, 7, 3};
  EXPECT_EQ(labels(list_file_dataset(o)),
            (Listing{{r + "z.jpg", 7}, {r + "a/b.jpg", 7}, {r + "m.png", 3}}));
  o.labels = std::vector<int32_t>{1};
  expect_error<InvalidArgument>([&] { list_file_dataset(o); }, {"labels has 1", "files has 3"});
}

TEST(FilesArgument, WithoutRootPathsAreReadAsGiven) {
  // DALI reads `files` as given: relative to the working directory, `..` and absolute paths
  // included, symlinks followed wherever they lead.
  TempTree t, elsewhere;
  t.file("w/x.jpg", "hello");
  elsewhere.file("far.jpg", "far");
  t.file("up.jpg", "up");
  t.symlink(elsewhere.path("far.jpg"), "w/link.jpg");
  in_directory(t.path("w"), [&] {
    FileDatasetOptions o;
    o.files = {"x.jpg", "../up.jpg", elsewhere.path("far.jpg"), "link.jpg"};
    FileDataset ds = list_file_dataset(o);
    EXPECT_EQ(ds.root, "");
    ASSERT_EQ(ds.size(), 4);
    EXPECT_EQ(ds.entries[1].path, "../up.jpg");
    EXPECT_EQ(ds.entries[2].path, elsewhere.path("far.jpg"));
    const char* want[] = {"hello", "up", "far", "far"};
    for (int i = 0; i < 4; ++i) EXPECT_EQ(read_text(ds.entries[i].path), want[i]) << i;
  });
}

TEST(FilesArgument, AbsolutePathsAreReadAsGivenEvenWithARoot) {
  TempTree t;
  std::string abs = t.file("a.jpg", "abs");
  FileDatasetOptions o;
  o.file_root = t.dir("root");
  o.files = {"ok.jpg", abs};
  FileDataset ds = list_file_dataset(o);
  EXPECT_EQ(ds.entries[0].path, o.file_root + "/ok.jpg");
  EXPECT_EQ(ds.entries[1].path, abs);
  EXPECT_EQ(read_text(ds.entries[1].path), "abs");
}

TEST(FilesArgument, RelativePathsStayInsideTheRoot) {
  TempTree t, outside;
  std::string root = t.dir("root");
  t.file("root/a/b.jpg");
  t.file("escape.jpg");
  outside.file("secret.jpg", "s");
  t.symlink(outside.path("secret.jpg"), "root/leak.jpg");
  FileDatasetOptions o;
  o.file_root = root;
  o.files = {"a/../a/b.jpg", "../escape.jpg"};
  expect_error<InvalidArgument>([&] { list_file_dataset(o); },
                                {"files[1]", "climb above the root", "allow_paths_outside_root"});
  o.files = {"a/b.jpg", "leak.jpg"};
  expect_error<InvalidArgument>([&] { list_file_dataset(o); }, {"files[1]", "leak.jpg", "symlink"});
  o.allow_paths_outside_root = true;
  EXPECT_EQ(read_text(list_file_dataset(o).entries[1].path), "s");
  o.files = {"a/../a/b.jpg", "../escape.jpg"};
  EXPECT_EQ(list_file_dataset(o).entries[1].path, root + "/../escape.jpg");
}

TEST(FilesArgument, BadCharactersNeverPass) {
  TempTree t;
  for (bool with_root : {false, true}) {
    FileDatasetOptions o;
    if (with_root) o.file_root = t.root();
    o.allow_paths_outside_root = true;
    for (std::string bad :
         {std::string("new\nline.jpg"), std::string("nul\0.jpg", 8), std::string("")}) {
      o.files = {"ok.jpg", bad};
      expect_error<InvalidArgument>([&] { list_file_dataset(o); }, {"files[1]"});
    }
  }
}

TEST(FilesArgument, ConflictingArgumentsAreRejected) {
  FileDatasetOptions o;
  expect_error<InvalidArgument>([&] { list_file_dataset(o); }, {"no dataset given"});
  o.files = {"a.jpg"};
  o.file_list = "list.txt";
  expect_error<InvalidArgument>([&] { list_file_dataset(o); }, {"mutually exclusive"});
  o.files.clear();
  o.labels = std::vector<int32_t>{1};
  expect_error<InvalidArgument>([&] { list_file_dataset(o); }, {"labels"});
}

TEST(FileListWithoutRoot, EntriesAreReadAsGivenRelativeToTheList) {
  // Without file_root a list names files relative to its own folder; like DALI, entries that
  // leave that folder (absolute, `..`, symlinks) are read as given.
  TempTree t, elsewhere;
  t.file("data/up.jpg", "up");
  elsewhere.file("far.jpg", "far");
  t.file("lists/here.jpg", "here");
  t.symlink(elsewhere.path("far.jpg"), "lists/link.jpg");
  FileDatasetOptions o;
  o.file_list = t.file("lists/l.txt", "here.jpg 0\n../data/up.jpg 1\n" + elsewhere.path("far.jpg") +
                                          " 2\nlink.jpg 3\n");
  FileDataset ds = list_file_dataset(o);
  ASSERT_EQ(ds.size(), 4);
  EXPECT_EQ(ds.root, t.path("lists"));
  EXPECT_EQ(ds.entries[1].path, t.path("lists") + "/../data/up.jpg");
  EXPECT_EQ(ds.entries[2].path, elsewhere.path("far.jpg"));
  const char* want[] = {"here", "up", "far", "far"};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(read_text(ds.entries[i].path), want[i]) << i;
    EXPECT_EQ(ds.entries[i].label, i);
  }
  // Bad characters are still refused.
  o.file_list = t.file("lists/bad.txt", std::string("nul\0.jpg 0\n", 11));
  expect_error<InvalidArgument>([&] { list_file_dataset(o); }, {"line 1", "entry 'nul"});
}

}  // namespace
}  // namespace sluice
