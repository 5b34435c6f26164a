// Listing speed: a generated ImageNet-shaped tree of 100,000 empty files in 1,000 class folders
// (warm dentry cache: the tree was just created), listed as file_root, and the same files as a
// file_list with containment checks. Plus the per-epoch permutation at ImageNet size.

#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "sluice/io/detail/temp_tree.h"
#include "sluice/io/epoch_plan.h"
#include "sluice/io/file_dataset.h"

namespace sluice {
namespace {

constexpr int kClasses = 1000;
constexpr int kFilesPerClass = 100;

// Built once, on first use; removed at exit.
const io_detail::TempTree& tree() {
  static const io_detail::TempTree* t = [] {
    auto* tt = new io_detail::TempTree();
    std::string list;
    char name[64];
    for (int c = 0; c < kClasses; ++c) {
      std::snprintf(name, sizeof(name), "n%08d", c);
      std::string dir = tt->dir(std::string("train/") + name);
      for (int f = 0; f < kFilesPerClass; ++f) {
        char file[96];
        std::snprintf(file, sizeof(file), "%s_%05d.JPEG", name, f);
        int fd = ::open((dir + "/" + file).c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
        if (fd >= 0) ::close(fd);
        list += std::string(name) + "/" + file + " " + std::to_string(c) + "\n";
      }
    }
    tt->file("train_list.txt", list);
    std::atexit([] { delete t; });
    return tt;
  }();
  return *t;
}

// Lists the tree with `o` on every iteration; counts the entries listed.
void run_listing(benchmark::State& state, const FileDatasetOptions& o) {
  int64_t n = 0;
  for (auto _ : state) {
    FileDataset ds = list_file_dataset(o);
    n = ds.size();
    benchmark::DoNotOptimize(ds.entries.data());
  }
  if (n != kClasses * kFilesPerClass) state.SkipWithError("wrong number of files listed");
  state.SetItemsProcessed(state.iterations() * n);
}

void BM_ListFileRoot(benchmark::State& state) {
  FileDatasetOptions o;
  o.file_root = tree().path("train");
  o.num_threads = static_cast<int>(state.range(0));
  run_listing(state, o);
}
BENCHMARK(BM_ListFileRoot)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_ListFileListWithContainmentChecks(benchmark::State& state) {
  FileDatasetOptions o;
  o.file_root = tree().path("train");
  o.file_list = tree().path("train_list.txt");
  o.num_threads = static_cast<int>(state.range(0));
  run_listing(state, o);
}
void BM_ListFileListUnchecked(benchmark::State& state) {
  FileDatasetOptions o;
  o.file_root = tree().path("train");
  o.file_list = tree().path("train_list.txt");
  o.allow_paths_outside_root = true;
  run_listing(state, o);
}
BENCHMARK(BM_ListFileListUnchecked)->Unit(benchmark::kMillisecond)->UseRealTime();

BENCHMARK(BM_ListFileListWithContainmentChecks)
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_EpochPermutation(benchmark::State& state) {
  int64_t epoch = 0;
  for (auto _ : state) {
    auto p = epoch_permutation(state.range(0), 1234, epoch++);
    benchmark::DoNotOptimize(p.data());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_EpochPermutation)->Arg(1281167)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace sluice
