#include "sluice/io/npy_dataset.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "sluice/core/error.h"
#include "sluice/io/detail/io_test_util.h"
#include "sluice/io/detail/temp_tree.h"

namespace sluice {
namespace {

using io_detail::expect_error;
using io_detail::TempTree;

std::vector<std::string> relative(const FileDataset& ds, const std::string& root) {
  std::vector<std::string> out;
  for (const FileEntry& e : ds.entries) out.push_back(e.path.substr(root.size() + 1));
  return out;
}

TEST(NpyDataset, ListsTheRootThenEachSubFolderAsDali) {
  TempTree t;
  for (const char* f : {"z.npy", ".dot.npy", "A.NPY", "b/1.npy", "b/0.npy", "a/x.npy", ".h/h.npy",
                        "a/skip.txt", "a/deep/d.npy"}) {
    t.file(f, "x");
  }
  NpyDatasetOptions o;
  o.file_root = t.root() + "/";
  EXPECT_EQ(
      relative(list_npy_dataset(o), t.root()),
      (std::vector<std::string>{".dot.npy", "z.npy", ".h/h.npy", "a/x.npy", "b/0.npy", "b/1.npy"}));
  o.file_filter = "*.NPY";
  EXPECT_EQ(relative(list_npy_dataset(o), t.root()), std::vector<std::string>{"A.NPY"});
  o.file_filter = "*.none";
  expect_error<InvalidArgument>([&] { list_npy_dataset(o); }, {"no files matching '*.none'"});
}

TEST(NpyDataset, FileListAndFiles) {
  TempTree t;
  t.file("d/a.npy", "x");
  t.file("d/b.npy", "x");
  std::string list = t.file("d/list.txt", "\xEF\xBB\xBF  b.npy \r\n\n\ta.npy\n");
  NpyDatasetOptions o;
  o.file_list = list;
  FileDataset ds = list_npy_dataset(o);
  ASSERT_EQ(ds.size(), 2);
  EXPECT_EQ(ds.entries[0].path, t.root() + "/d/b.npy");
  EXPECT_EQ(ds.entries[1].path, t.root() + "/d/a.npy");
  o.file_root = t.root() + "/d";
  EXPECT_EQ(list_npy_dataset(o).entries[0].path, t.root() + "/d/b.npy");
  o.files = {"a.npy"};
  expect_error<InvalidArgument>([&] { list_npy_dataset(o); }, {"not both"});
  o.file_list.clear();
  EXPECT_EQ(list_npy_dataset(o).entries[0].path, t.root() + "/d/a.npy");
  o.files = {"../outside.npy"};
  expect_error<InvalidArgument>([&] { list_npy_dataset(o); }, {"../outside.npy"});
  NpyDatasetOptions empty;
  empty.file_list = t.file("empty.txt", "\n  \n");
  expect_error<InvalidArgument>([&] { list_npy_dataset(empty); }, {"names no files"});
  expect_error<InvalidArgument>([] { list_npy_dataset({}); }, {"no dataset given"});
}

}  // namespace
}  // namespace sluice
