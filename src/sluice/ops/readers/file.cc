// readers.file: lists a dataset once, then reads batch after batch of it, epoch by epoch,
// following an EpochPlan (io/epoch_plan.h): a true per-epoch permutation split into shards.

#include <cstring>
#include <memory>
#include <mutex>
#include <optional>

#include "sluice/graph/schema_registry.h"
#include "sluice/io/file_dataset.h"
#include "sluice/io/objects_ahead.h"
#include "sluice/io/read_file.h"
#include "sluice/io/s3_client.h"
#include "sluice/ops/readers/reader.h"

namespace sluice {
namespace {

std::vector<std::string> default_filters() {
  return default_file_filters();
}

SLUICE_REGISTER_SCHEMA(add_reader_args(
    OpSchema("readers.file")
        .doc("Reads encoded files and their labels. The dataset is `file_root` (one sub-folder "
             "per class; labels are the sorted folder index), a `file_list` (lines 'path label') "
             "or `files` (+ `labels`). Shuffling is a true permutation of the dataset each "
             "epoch; shards split it so that, across shards, every sample is read exactly once "
             "per epoch. Every shard gives the same number of batches per epoch: the last batch "
             "of a shorter shard is filled with its last sample (pad_last_batch) or with samples "
             "from the start of its order. Outputs: the file bytes (uint8, 1-D) and the label "
             "(int32, shape [1]). Sharded readers use `seed` (default: a fixed value) for the "
             "permutation so that all ranks agree.")
        .num_inputs(0, 0)
        .num_outputs(2)
        .output_names({"data", "label"})
        .devices({OpDevice::kCPU})
        .arg("file_root", ArgType::kString, std::string(), "Root folder of the dataset.")
        .arg("file_list", ArgType::kString, std::string(),
             "Text file with one 'path label' per line (paths relative to file_root, or to the "
             "list's folder without it).")
        .optional_arg("files", ArgType::kStringList,
                      "Explicit list of file paths (relative ones to file_root, or to the "
                      "working directory without it).")
        .optional_arg("labels", ArgType::kIntList, "Labels of `files` (default 0, 1, 2, ...).")
        .arg("file_filters", ArgType::kStringList, default_filters(),
             "Glob patterns of the files to take from file_root.")
        .arg("case_sensitive_filter", ArgType::kBool, false, "Match file_filters case-sensitively.")
        .arg("allow_paths_outside_root", ArgType::kBool, false,
             "Accept entries of file_list and relative `files` (and symlinks) that lead outside "
             "file_root. Only a given file_root contains entries: without it, and for absolute "
             "`files`, paths are read as given, as DALI reads them.")
        .arg("max_file_size", ArgType::kInt, int64_t{1} << 30,
             "Files larger than this many bytes are an error.")
        .alias("file_reader")
        .alias("FileReader")));

class FileReader : public Reader {
  using FetchPtr = std::shared_ptr<S3Prefetcher::Fetch>;

 public:
  using Reader::Reader;

  void setup(const OpContext& ctx) override {
    FileDatasetOptions lo;
    lo.file_root = spec_.arg<std::string>("file_root");
    lo.file_list = spec_.arg<std::string>("file_list");
    if (spec_.has_arg("files")) lo.files = spec_.arg<std::vector<std::string>>("files");
    if (spec_.has_arg("labels")) {
      std::vector<int32_t> labels;
      for (int64_t l : spec_.arg<std::vector<int64_t>>("labels"))
        labels.push_back(static_cast<int32_t>(l));
      lo.labels = std::move(labels);
    }
    lo.file_filters = spec_.arg<std::vector<std::string>>("file_filters");
    lo.case_sensitive_filter = spec_.arg<bool>("case_sensitive_filter");
    lo.allow_paths_outside_root = spec_.arg<bool>("allow_paths_outside_root");
    lo.pool = ctx.pool;
    dataset_ = list_file_dataset(lo);
    plan(ctx, static_cast<int64_t>(dataset_.size()));
    max_file_size_ = static_cast<size_t>(spec_.arg<int64_t>("max_file_size"));
    for (const FileEntry& e : dataset_.entries) {
      if (is_s3_uri(e.path)) {
        prefetcher_ = std::make_unique<S3Prefetcher>(
            S3Client::shared(), s3_connections(ctx.max_batch_size), max_file_size_);
        // The depth fills the connections it has (fewer than asked for under a low descriptor
        // limit), not those asked for.
        ahead_ = std::make_unique<ObjectsAhead<FetchPtr>>(
            ObjectsAheadLimits::from_environment(prefetcher_->connections(), ctx.max_batch_size),
            fetched_size);
        break;
      }
    }
  }

  nlohmann::json stats() const override { return objects_ahead_stats(ahead_.get()); }

  void run(Workspace& ws) override {
    if (ahead_) return run_from_object_store(ws);
    const int n = ws.batch_size();
    if (static_cast<int>(files_.size()) < n) files_.resize(n);
    std::vector<Shape> shapes(n);
    ws.for_each_sample([&](int i, int) {
      files_[i] = std::make_unique<ReadableFile>(ws.batch().samples[i].source, max_file_size_);
      shapes[i] = {static_cast<int64_t>(files_[i]->size())};
    });
    TensorList& data = ws.output(0);
    data.resize(std::move(shapes), DType::kUInt8);
    ws.for_each_sample([&](int i, int) {
      files_[i]->read_all(data.raw_sample(i));
      files_[i].reset();
    });
    TensorList& labels = ws.output(1);
    labels.resize_uniform(n, {1}, DType::kInt32);
    for (int i = 0; i < n; ++i) {
      labels.sample<int32_t>(i)[0] = dataset_.entries[ws.batch().samples[i].id].label;
    }
    if (read_ahead()) sluice::read_ahead(dataset_, next_batch_indices());
  }

 private:
  std::string sample_source(int64_t index) const override { return dataset_.entries[index].path; }

  // Object storage: the objects of the batches ahead are requested before this batch's are
  // waited for, so that their round trips overlap the rest of the pipeline (io/objects_ahead.h).
  void run_from_object_store(Workspace& ws) {
    const int n = ws.batch_size();
    auto start = [&](int64_t id) { return prefetcher_->fetch(dataset_.entries[id].path); };
    auto share = [](const FetchPtr& f) { return f; };  // a fetch serves any number of batches
    std::vector<FetchPtr> fetches(n);
    for (int i = 0; i < n; ++i) fetches[i] = ahead_->take(ws.batch().samples[i].id, start, share);
    ahead_->plan([&](int64_t k) { return batch_indices_ahead(k); }, start, share);
    std::vector<const std::vector<uint8_t>*> bytes(n);
    std::vector<Shape> shapes(n);
    size_t total = 0;
    for (int i = 0; i < n; ++i) {
      try {
        bytes[i] = &prefetcher_->wait(*fetches[i]);
      } catch (...) {
        ahead_->forget(ws.batch().samples[i].id);  // a later batch with it asks again
        throw;
      }
      shapes[i] = {static_cast<int64_t>(bytes[i]->size())};
      total += bytes[i]->size();
    }
    ahead_->read(n, total);
    TensorList& data = ws.output(0);
    data.resize(std::move(shapes), DType::kUInt8);
    ws.for_each_sample([&](int i, int) {
      if (!bytes[i]->empty()) std::memcpy(data.raw_sample(i), bytes[i]->data(), bytes[i]->size());
    });
    TensorList& labels = ws.output(1);
    labels.resize_uniform(n, {1}, DType::kInt32);
    for (int i = 0; i < n; ++i) {
      labels.sample<int32_t>(i)[0] = dataset_.entries[ws.batch().samples[i].id].label;
    }
  }

  // The bytes of a finished read.
  static std::optional<size_t> fetched_size(const FetchPtr& f) {
    std::lock_guard<std::mutex> lock(f->mu);
    return f->done ? std::optional<size_t>(f->data.size()) : std::nullopt;
  }

  FileDataset dataset_;
  std::unique_ptr<S3Prefetcher> prefetcher_;       // when some entry is an s3:// URI
  std::unique_ptr<ObjectsAhead<FetchPtr>> ahead_;  // its reads of the batches ahead
  size_t max_file_size_ = 0;
  std::vector<std::unique_ptr<ReadableFile>> files_;
};

SLUICE_REGISTER_OPERATOR("readers.file", OpDevice::kCPU, FileReader);

}  // namespace
}  // namespace sluice
