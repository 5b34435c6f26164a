// readers.file: lists a dataset once, then reads batch after batch of it, epoch by epoch,
// following an EpochPlan (io/epoch_plan.h): a true per-epoch permutation split into shards.

#include <memory>

#include "sluice/exec/operator.h"
#include "sluice/graph/schema_registry.h"
#include "sluice/io/epoch_plan.h"
#include "sluice/io/file_dataset.h"
#include "sluice/io/read_file.h"

namespace sluice {
namespace {

std::vector<std::string> default_filters() {
  return default_file_filters();
}

SLUICE_REGISTER_SCHEMA(
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
        .arg("shard_id", ArgType::kInt, int64_t{0}, "Index of this shard.")
        .arg("num_shards", ArgType::kInt, int64_t{1}, "Number of shards the data is split into.")
        .arg("random_shuffle", ArgType::kBool, false, "Read in a new random order every epoch.")
        .arg("shuffle_after_epoch", ArgType::kBool, false,
             "Same as random_shuffle here: every epoch is a fresh permutation of the dataset.")
        .arg("stick_to_shard", ArgType::kBool, false,
             "Keep reading the same shard instead of moving to the next one every epoch.")
        .arg("pad_last_batch", ArgType::kBool, false,
             "Fill the last batch of a shard by repeating its last sample.")
        .arg("read_ahead", ArgType::kBool, false,
             "Ask the kernel to read the next batch's files ahead (posix_fadvise).")
        .arg("dont_use_mmap", ArgType::kBool, false,
             "Accepted for compatibility: files are always read with pread, never mapped "
             "(a file truncated while mapped would crash the process with SIGBUS).")
        .arg("initial_fill", ArgType::kInt, int64_t{1024},
             "Accepted for compatibility: shuffling is a full permutation, not a buffer.")
        .arg("prefetch_queue_depth", ArgType::kInt, int64_t{1},
             "Accepted for compatibility: the pipeline's prefetch queue reads ahead.")
        .arg("lazy_init", ArgType::kBool, false, "Accepted for compatibility (listing is fast).")
        .arg("tensor_init_bytes", ArgType::kInt, int64_t{1048576},
             "Accepted for compatibility (buffers are pooled).")
        .arg("allow_paths_outside_root", ArgType::kBool, false,
             "Accept entries of file_list and relative `files` (and symlinks) that lead outside "
             "file_root. Only a given file_root contains entries: without it, and for absolute "
             "`files`, paths are read as given, as DALI reads them.")
        .arg("max_file_size", ArgType::kInt, int64_t{1} << 30,
             "Files larger than this many bytes are an error.")
        .alias("file_reader")
        .alias("FileReader")
        .source());

class FileReader : public Operator {
 public:
  using Operator::Operator;

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

    bool shuffle = spec_.arg<bool>("random_shuffle") || spec_.arg<bool>("shuffle_after_epoch");
    int64_t num_shards = spec_.arg<int64_t>("num_shards");
    EpochPlanOptions po;
    po.num_samples = static_cast<int64_t>(dataset_.size());
    po.num_shards = num_shards;
    po.shard_id = spec_.arg<int64_t>("shard_id");
    po.batch_size = ctx.max_batch_size;
    po.shuffle = shuffle;
    // All shards of a job must permute alike, whatever each rank's pipeline seed is.
    int64_t own_seed = spec_.arg<int64_t>("seed");
    po.seed = own_seed >= 0 ? mix64(static_cast<uint64_t>(own_seed))
                            : (num_shards > 1 ? 0x534C55494345ull : ctx.seed);
    po.stick_to_shard = spec_.arg<bool>("stick_to_shard");
    po.pad_last_batch = spec_.arg<bool>("pad_last_batch");
    plan_ = std::make_unique<EpochPlan>(po);
    read_ahead_ = spec_.arg<bool>("read_ahead");
    max_file_size_ = static_cast<size_t>(spec_.arg<int64_t>("max_file_size"));
  }

  void begin_iteration(BatchInfo& batch) override {
    // The reader's position is (epoch, batch index); it advances once per iteration.
    plan_->batch(epoch_, index_, &planned_);
    batch.size = static_cast<int>(planned_.indices.size());
    batch.sized = true;
    batch.samples.resize(batch.size);
    for (int i = 0; i < batch.size; ++i) {
      int64_t k = planned_.indices[i];
      batch.samples[i] = {dataset_.entries[k].path, epoch_, k};
    }
    batch.from_reader = true;
    batch.epoch = epoch_;
    batch.batch_in_epoch = index_;
    batch.batches_per_epoch = plan_->batches_per_epoch();
    batch.num_valid = static_cast<int>(planned_.num_valid);
    batch.complete_on_all_shards = planned_.complete_on_all_shards;
    if (++index_ == plan_->batches_per_epoch()) {
      index_ = 0;
      ++epoch_;
    }
  }

  void run(Workspace& ws) override {
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
    if (read_ahead_) {
      PlannedBatch next = plan_->batch(epoch_, index_);
      read_ahead(dataset_, next.indices);
    }
  }

  nlohmann::json reader_meta() const override {
    const ReaderMeta& m = plan_->meta();
    return {{"epoch_size", m.epoch_size},
            {"epoch_size_padded", m.epoch_size_padded},
            {"number_of_shards", m.number_of_shards},
            {"shard_id", m.shard_id},
            {"pad_last_batch", m.pad_last_batch},
            {"stick_to_shard", m.stick_to_shard},
            {"batches_per_epoch", m.batches_per_epoch}};
  }

 private:
  FileDataset dataset_;
  std::unique_ptr<EpochPlan> plan_;
  PlannedBatch planned_;
  int64_t epoch_ = 0;
  int64_t index_ = 0;
  bool read_ahead_ = false;
  size_t max_file_size_ = 0;
  std::vector<std::unique_ptr<ReadableFile>> files_;
};

SLUICE_REGISTER_OPERATOR("readers.file", OpDevice::kCPU, FileReader);

}  // namespace
}  // namespace sluice
