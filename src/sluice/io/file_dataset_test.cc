#include "sluice/io/file_dataset.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "sluice/core/error.h"
#include "sluice/io/detail/io_test_util.h"
#include "sluice/io/detail/temp_tree.h"
#include "sluice/io/read_file.h"
#include "sluice/parallel/thread_pool.h"

namespace sluice {
namespace {

using io_detail::expect_error;
using io_detail::open_fd_count;
using io_detail::TempTree;
using Listing = std::vector<std::pair<std::string, int32_t>>;

// Entries as (path relative to `root`, label), to compare against expectations.
Listing relative(const FileDataset& ds, const std::string& root) {
  Listing out;
  for (const FileEntry& e : ds.entries) {
    std::string p = e.path;
    if (p.compare(0, root.size() + 1, root + "/") == 0) p = p.substr(root.size() + 1);
    out.emplace_back(p, e.label);
  }
  return out;
}

FileDataset list_root(const std::string& root, bool allow_outside = false) {
  FileDatasetOptions o;
  o.file_root = root;
  o.allow_paths_outside_root = allow_outside;
  return list_file_dataset(o);
}

// ---- (a) file_root with one folder per class ----

TEST(FileRootListing, LabelsFollowByteWiseSortedClassFolders) {
  TempTree t;
  for (const char* cls : {"b", "a", "C", "_x"}) t.file(std::string(cls) + "/img.jpg");
  FileDataset ds = list_root(t.root());
  // Byte order: 'C' (0x43) < '_' (0x5F) < 'a' < 'b'.
  EXPECT_EQ(ds.class_names, (std::vector<std::string>{"C", "_x", "a", "b"}));
  EXPECT_EQ(relative(ds, t.root()),
            (Listing{{"C/img.jpg", 0}, {"_x/img.jpg", 1}, {"a/img.jpg", 2}, {"b/img.jpg", 3}}));
  EXPECT_EQ(ds.root, t.root());
}

TEST(FileRootListing, FilesSortedByteWiseByRelativePathIncludingNested) {
  TempTree t;
  for (const char* f : {"b.jpg", "a0.jpg", "B.jpg", "a/z.jpg", "a.jpg", "a/b/c/deep.png"}) {
    t.file(std::string("cls/") + f);
  }
  FileDataset ds = list_root(t.root() + "/");  // trailing slash is ignored
  // '.' (0x2E) < '/' (0x2F) < '0' (0x30): "a.jpg" < "a/..." < "a0.jpg".
  EXPECT_EQ(relative(ds, t.root()), (Listing{{"cls/B.jpg", 0},
                                             {"cls/a.jpg", 0},
                                             {"cls/a/b/c/deep.png", 0},
                                             {"cls/a/z.jpg", 0},
                                             {"cls/a0.jpg", 0},
                                             {"cls/b.jpg", 0}}));
}

TEST(FileRootListing, DefaultFiltersAreCaseInsensitive) {
  TempTree t;
  for (const char* f : {"x.JPEG", "y.Png", "z.txt", "w.jpg", "v.webp", "u.tiff", "t.gif",
                        "s.jpg.bak", "r.PBM", ".hidden.jpg"}) {
    t.file(std::string("k/") + f);
  }
  FileDataset ds = list_root(t.root());
  EXPECT_EQ(relative(ds, t.root()), (Listing{{"k/.hidden.jpg", 0},
                                             {"k/r.PBM", 0},
                                             {"k/u.tiff", 0},
                                             {"k/v.webp", 0},
                                             {"k/w.jpg", 0},
                                             {"k/x.JPEG", 0},
                                             {"k/y.Png", 0}}));
}

TEST(FileRootListing, CaseSensitiveFilter) {
  TempTree t;
  for (const char* f : {"x.JPEG", "y.jpeg", "z.Jpg"}) t.file(std::string("k/") + f);
  FileDatasetOptions o;
  o.file_root = t.root();
  o.case_sensitive_filter = true;
  EXPECT_EQ(relative(list_file_dataset(o), t.root()), (Listing{{"k/y.jpeg", 0}}));
}

TEST(FileRootListing, CustomGlobFilters) {
  TempTree t;
  for (const char* f : {"img_01.jpg", "IMG_02.JPG", "img_3.jpg", "scan.raw", "other.jpg"}) {
    t.file(std::string("k/") + f);
  }
  FileDatasetOptions o;
  o.file_root = t.root();
  o.file_filters = {"img_??.jpg", "*.raw"};
  EXPECT_EQ(relative(list_file_dataset(o), t.root()),
            (Listing{{"k/IMG_02.JPG", 0}, {"k/img_01.jpg", 0}, {"k/scan.raw", 0}}));
  o.case_sensitive_filter = true;
  EXPECT_EQ(relative(list_file_dataset(o), t.root()),
            (Listing{{"k/img_01.jpg", 0}, {"k/scan.raw", 0}}));
  o.file_filters.clear();
  EXPECT_THROW(list_file_dataset(o), InvalidArgument);
}

TEST(FileRootListing, EmptyClassFolderKeepsItsLabel) {
  TempTree t;
  t.dir("a_empty");
  t.file("b/1.jpg");
  t.file("c/only.txt");  // a class whose files are all filtered out
  t.file("d/2.png");
  t.file("top_level.jpg");  // files directly in the root are not samples
  FileDataset ds = list_root(t.root());
  EXPECT_EQ(ds.class_names, (std::vector<std::string>{"a_empty", "b", "c", "d"}));
  EXPECT_EQ(relative(ds, t.root()), (Listing{{"b/1.jpg", 1}, {"d/2.png", 3}}));
}

TEST(FileRootListing, SymlinksInsideRootAreFollowed) {
  TempTree t;
  t.file("a/real.jpg");
  t.file("b/other.png");
  t.file("b/sub/nested.jpg");
  t.symlink("../b/other.png", "a/link.jpg");   // file link inside
  t.symlink("../b/sub", "a/linked_dir");       // folder link inside
  t.symlink("b", "c");                         // class folder link inside
  t.symlink("nowhere.jpg", "a/dangling.jpg");  // dangling: skipped
  t.symlink(".", "a/self");                    // cycle: listed once
  FileDataset ds = list_root(t.root());
  EXPECT_EQ(ds.class_names, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(relative(ds, t.root()), (Listing{{"a/link.jpg", 0},
                                             {"a/linked_dir/nested.jpg", 0},
                                             {"a/real.jpg", 0},
                                             {"b/other.png", 1},
                                             {"b/sub/nested.jpg", 1},
                                             {"c/other.png", 2},
                                             {"c/sub/nested.jpg", 2}}));
}

TEST(FileRootListing, SymlinksOutsideRootAreSkippedUnlessAllowed) {
  TempTree t, outside;
  t.file("a/in.jpg");
  outside.file("out.jpg");
  outside.file("dir/deep.jpg");
  t.symlink(outside.path("out.jpg"), "a/out.jpg");
  t.symlink(outside.path("dir"), "a/outdir");
  t.symlink(outside.path("dir"), "z_outside_class");
  EXPECT_EQ(relative(list_root(t.root()), t.root()), (Listing{{"a/in.jpg", 0}}));

  FileDataset ds = list_root(t.root(), /*allow_outside=*/true);
  EXPECT_EQ(ds.class_names, (std::vector<std::string>{"a", "z_outside_class"}));
  EXPECT_EQ(relative(ds, t.root()), (Listing{{"a/in.jpg", 0},
                                             {"a/out.jpg", 0},
                                             {"a/outdir/deep.jpg", 0},
                                             {"z_outside_class/deep.jpg", 1}}));
  // The listed path reads through the link.
  std::vector<uint8_t> bytes;
  EXPECT_EQ(read_file(ds.entries[1].path, bytes), 0u);
}

TEST(FileRootListing, RootReachedThroughSymlinkWorks) {
  TempTree t, other;
  t.file("data/cls/x.jpg");
  std::string link = other.symlink(t.path("data"), "data_link");
  EXPECT_EQ(relative(list_root(link), link), (Listing{{"cls/x.jpg", 0}}));
}

TEST(FileRootListing, EmptyOrMissingRootNamesTheRoot) {
  TempTree t;
  std::string empty = t.dir("empty");
  expect_error<InvalidArgument>([&] { list_root(empty); }, {empty, "no class sub-folders"});
  t.file("no_match/cls/a.txt");
  expect_error<InvalidArgument>([&] { list_root(t.path("no_match")); },
                                {t.path("no_match"), "1 class folder", "'*.jpg'"});
  expect_error<IOError>([&] { list_root(t.path("missing")); }, {t.path("missing")});
  std::string file = t.file("plain.jpg");
  expect_error<InvalidArgument>([&] { list_root(file); }, {file, "not a directory"});
}

TEST(FileRootListing, UnreadableFolderIsAnIOErrorAndLeaksNothing) {
  TempTree t;
  t.file("a/x.jpg");
  t.file("b/y.jpg");
  std::string locked = t.dir("b/sub");
  t.file("b/sub/z.jpg");
  ASSERT_EQ(::chmod(locked.c_str(), 0), 0);
  ASSERT_EQ(::chmod(t.root().c_str(), 0755), 0);
  // Root ignores permission bits: list from a child that drops to an unprivileged uid.
  EXPECT_EXIT(
      {
        if (::geteuid() == 0 && ::setresuid(65534, 65534, 65534) != 0) std::_Exit(3);
        const int before = open_fd_count();
        try {
          list_root(t.root());
        } catch (const IOError& e) {
          if (std::string(e.what()).find(locked) == std::string::npos) std::_Exit(2);
          std::_Exit(open_fd_count() == before ? 0 : 4);
        }
        std::_Exit(1);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(FileRootListing, SameResultWithAnyThreadCount) {
  TempTree t;
  for (int c = 0; c < 37; ++c) {
    for (int f = 0; f < (c * 7) % 11; ++f) {
      t.file("class" + std::to_string(c) + "/sub" + std::to_string(f % 3) + "/f" +
             std::to_string(f) + ".jpg");
    }
  }
  FileDatasetOptions o;
  o.file_root = t.root();
  o.num_threads = 1;
  Listing one = relative(list_file_dataset(o), t.root());
  ASSERT_FALSE(one.empty());
  o.num_threads = 5;
  EXPECT_EQ(relative(list_file_dataset(o), t.root()), one);
  ThreadPool pool(3);
  o.pool = &pool;
  EXPECT_EQ(relative(list_file_dataset(o), t.root()), one);
}

TEST(FileRootListing, ListingDoesNotLeakFileDescriptors) {
  TempTree t;
  t.file("a/x.jpg");
  t.file("b/sub/y.jpg");
  t.symlink(".", "a/cycle");
  const int before = open_fd_count();
  for (int i = 0; i < 50; ++i) {
    EXPECT_EQ(list_root(t.root()).size(), 2);
    EXPECT_THROW(list_root(t.path("a/x.jpg")), InvalidArgument);
  }
  EXPECT_EQ(open_fd_count(), before);
}

// ---- (b) file_list ----

TEST(FileListParsing, SpacesCommentsBlankLinesAndCrlf) {
  TempTree t;
  std::string list = t.file("lists/train.txt",
                            "\xEF\xBB\xBF# a comment after a byte-order mark\n"
                            "dog.jpg 0\n"
                            "\n"
                            "cute kitten.jpg 1\r\n"
                            "  indented  name.png   2  \n"
                            "sub/dir/x.jpg\t3\n"
                            "   # indented comment\n"
                            "back\\slash.jpg 4\n"
                            "-5 odd.jpg -5");  // no final newline
  FileDatasetOptions o;
  o.file_list = list;
  FileDataset ds = list_file_dataset(o);
  // Without file_root, paths are relative to the list's folder.
  EXPECT_EQ(ds.root, t.path("lists"));
  EXPECT_EQ(relative(ds, t.path("lists")), (Listing{{"dog.jpg", 0},
                                                    {"cute kitten.jpg", 1},
                                                    {"indented  name.png", 2},
                                                    {"sub/dir/x.jpg", 3},
                                                    {"back\\slash.jpg", 4},
                                                    {"-5 odd.jpg", -5}}));
  o.file_root = t.dir("images");
  EXPECT_EQ(relative(list_file_dataset(o), o.file_root).front(),
            (std::pair<std::string, int32_t>{"dog.jpg", 0}));
}

TEST(FileListParsing, MalformedLinesNameListAndLine) {
  TempTree t;
  struct Case {
    const char* text;
    const char* expected;
  };
  for (const Case& c :
       {Case{"a.jpg 1\n\nlonely_token\n", "line 3"}, Case{"a.jpg one\n", "not a decimal integer"},
        Case{"# c\na.jpg 1.5\n", "line 2"}, Case{"a.jpg 99999999999\n", "int32"},
        Case{"a.jpg +1\n", "not a decimal integer"}}) {
    std::string list = t.file("bad.txt", c.text);
    FileDatasetOptions o;
    o.file_list = list;
    expect_error<InvalidArgument>([&] { list_file_dataset(o); }, {list, c.expected});
  }
}

TEST(FileListParsing, EmptyOrMissingListNamesTheList) {
  TempTree t;
  FileDatasetOptions o;
  o.file_list = t.file("empty.txt", "# nothing\n\n   \n");
  expect_error<InvalidArgument>([&] { list_file_dataset(o); }, {o.file_list, "lists no files"});
  o.file_list = t.path("missing.txt");
  expect_error<IOError>([&] { list_file_dataset(o); }, {o.file_list, "does not exist"});
}

TEST(FileListParsing, EntriesEscapingTheRootAreRejected) {
  TempTree t;
  std::string root = t.dir("root");
  t.file("root/a/b.jpg");
  struct Case {
    const char* line;
    const char* reason;
  };
  for (const Case& c :
       {Case{"../outside.jpg 1", "climb above the root"},
        Case{"a/../../x.jpg 1", "climb above the root"}, Case{"/etc/passwd 0", "absolute"}}) {
    std::string list = t.file("list.txt", std::string("a/b.jpg 0\n") + c.line + "\n");
    FileDatasetOptions o;
    o.file_list = list;
    o.file_root = root;
    expect_error<InvalidArgument>([&] { list_file_dataset(o); },
                                  {list, "line 2", c.reason, "allow_paths_outside_root"});
    o.allow_paths_outside_root = true;
    FileDataset ds = list_file_dataset(o);
    ASSERT_EQ(ds.size(), 2);
    std::string expected = c.line[0] == '/' ? "/etc/passwd" : root + "/" + c.line;
    expected = expected.substr(0, expected.rfind(' '));
    EXPECT_EQ(ds.entries[1].path, expected);
  }
  // `..` that stays inside is fine, and so is a missing file (reading it will fail).
  FileDatasetOptions o;
  o.file_root = root;
  o.file_list = t.file("ok.txt", "a/../a/b.jpg 0\nmissing.jpg 1\n");
  EXPECT_EQ(list_file_dataset(o).size(), 2);
}

TEST(FileListParsing, SymlinksResolvingOutsideAreRejected) {
  TempTree t, outside;
  std::string root = t.dir("root");
  outside.file("secret.jpg", "s");
  outside.file("dir/x.jpg", "x");
  t.file("root/real.jpg");
  t.symlink(outside.path("secret.jpg"), "root/leak.jpg");
  t.symlink(outside.path("dir"), "root/leakdir");
  t.symlink("real.jpg", "root/fine_link.jpg");
  FileDatasetOptions o;
  o.file_root = root;
  o.file_list = t.file("l1.txt", "fine_link.jpg 0\nleak.jpg 1\n");
  expect_error<InvalidArgument>([&] { list_file_dataset(o); },
                                {"line 2", "leak.jpg", "symlink", outside.root()});
  o.file_list = t.file("l2.txt", "real.jpg 0\nleakdir/x.jpg 1\n");
  expect_error<InvalidArgument>([&] { list_file_dataset(o); },
                                {"line 2", "leakdir/x.jpg", "folder resolves outside"});
  o.file_list = t.file("l3.txt", "leakdir/not_there/y.jpg 1\n");  // missing below an escape
  expect_error<InvalidArgument>([&] { list_file_dataset(o); }, {"line 1", "outside"});
  o.allow_paths_outside_root = true;
  o.file_list = t.path("l2.txt");
  FileDataset ds = list_file_dataset(o);
  std::vector<uint8_t> bytes;
  read_file(ds.entries[1].path, bytes);
  EXPECT_EQ(std::string(bytes.begin(), bytes.end()), "x");
}

TEST(FileListParsing, LongRunsOfOneFolderAreCheckedToo) {
  // Many consecutive entries of one folder are checked with one readdir instead of an lstat
  // each: the same symlinks must be caught.
  TempTree t, outside;
  std::string root = t.dir("root");
  outside.file("o.jpg");
  outside.dir("dir");
  std::string text;
  for (int i = 0; i < 50; ++i) {
    t.file("root/cls/f" + std::to_string(i) + ".jpg");
    text += "cls/f" + std::to_string(i) + ".jpg 0\n";
  }
  t.symlink("f0.jpg", "root/cls/inside_link.jpg");
  text += "cls/inside_link.jpg 1\n";
  FileDatasetOptions o;
  o.file_root = root;
  o.file_list = t.file("ok.txt", text);
  EXPECT_EQ(list_file_dataset(o).size(), 51);

  t.symlink(outside.path("o.jpg"), "root/cls/z_leak.jpg");
  o.file_list = t.file("leak.txt", text + "cls/z_leak.jpg 2\n");
  expect_error<InvalidArgument>([&] { list_file_dataset(o); },
                                {"line 52", "z_leak.jpg", "symlink"});

  t.symlink(outside.path("dir"), "root/leakdir");
  std::string escaping;
  for (int i = 0; i < 20; ++i) escaping += "leakdir/x" + std::to_string(i) + ".jpg 0\n";
  o.file_list = t.file("leakdir.txt", escaping);
  expect_error<InvalidArgument>([&] { list_file_dataset(o); },
                                {"line 1", "folder resolves outside"});
}

TEST(FileListParsing, FirstBadEntryIsReportedWhateverTheThreads) {
  TempTree t, outside;
  std::string root = t.dir("root");
  outside.file("o.jpg");
  std::string text;
  for (int i = 0; i < 12000; ++i)
    text += "f" + std::to_string(i) + ".jpg " + std::to_string(i % 10) + "\n";
  t.symlink(outside.path("o.jpg"), "root/f5000.jpg");
  t.symlink(outside.path("o.jpg"), "root/f9000.jpg");
  FileDatasetOptions o;
  o.file_root = root;
  o.file_list = t.file("big.txt", text);
  for (int threads : {1, 4}) {
    o.num_threads = threads;
    expect_error<InvalidArgument>([&] { list_file_dataset(o); }, {"line 5001", "f5000.jpg"});
  }
}

TEST(FileDatasetReadAhead, IgnoresBadIndices) {
  TempTree t;
  t.file("c/a.jpg", "abc");
  FileDataset ds = list_root(t.root());
  std::vector<int64_t> idx = {0, -1, 5};
  read_ahead(ds, idx);
  std::vector<uint8_t> bytes;
  EXPECT_EQ(read_file(ds.entries[0].path, bytes), 3u);
}

}  // namespace
}  // namespace sluice
