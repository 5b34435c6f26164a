#include "sluice/ops/readers/reader.h"

#include "sluice/core/error.h"
#include "sluice/core/rng.h"

namespace sluice {

OpSchema& add_reader_args(OpSchema& s, bool shuffle_after_epoch) {
  s.arg("shard_id", ArgType::kInt, int64_t{0}, "Index of this shard.")
      .arg("num_shards", ArgType::kInt, int64_t{1}, "Number of shards the data is split into.")
      .arg("random_shuffle", ArgType::kBool, false, "Read in a new random order every epoch.")
      .arg("stick_to_shard", ArgType::kBool, false,
           "Keep reading the same shard instead of moving to the next one every epoch.")
      .arg("pad_last_batch", ArgType::kBool, false,
           "Fill the last batch of a shard by repeating its last sample.")
      .arg("read_ahead", ArgType::kBool, false,
           "Ask the kernel to read the next batch's data ahead (posix_fadvise).")
      .arg("skip_cached_images", ArgType::kBool, false,
           "Accepted for compatibility: there is no decoder cache to skip samples for.")
      .arg("dont_use_mmap", ArgType::kBool, false,
           "Accepted for compatibility: data is always read with pread, never mapped "
           "(a file truncated while mapped would crash the process with SIGBUS).")
      .arg("initial_fill", ArgType::kInt, int64_t{1024},
           "Accepted for compatibility: shuffling is a full permutation, not a buffer.")
      .arg("prefetch_queue_depth", ArgType::kInt, int64_t{1},
           "Accepted for compatibility: the pipeline's prefetch queue reads ahead.")
      .arg("lazy_init", ArgType::kBool, false, "Accepted for compatibility.")
      .arg("tensor_init_bytes", ArgType::kInt, int64_t{1048576},
           "Accepted for compatibility (buffers are pooled).")
      // Set by Pipeline(checkpoint=...) (python/sluice/pipeline/_checkpoint.py).
      .arg("resume_epoch", ArgType::kInt, int64_t{0}, "Checkpointing: the epoch to start in.")
      .arg("resume_batch", ArgType::kInt, int64_t{0},
           "Checkpointing: the batch of resume_epoch to start at.")
      .arg("resume_num_shards", ArgType::kInt, int64_t{0},
           "Checkpointing, elastic: resume_epoch was interrupted under this many shards (0: "
           "under this layout); it then holds only the samples they had not read, split "
           "across the shards of this one.")
      .arg("resume_consumed", ArgType::kInt, int64_t{0},
           "Checkpointing, elastic: the samples each of the resume_num_shards shards had read.");
  if (shuffle_after_epoch) {
    s.arg("shuffle_after_epoch", ArgType::kBool, false,
          "Same as random_shuffle here: every epoch is a fresh permutation of the dataset.")
        .arg("shuffle_after_epoch_seed", ArgType::kInt, int64_t{-1},
             "Accepted for compatibility: the permutation comes from `seed`.");
  }
  return s.source();
}

void Reader::plan(const OpContext& ctx, int64_t num_samples) {
  bool shuffle = spec_.arg<bool>("random_shuffle") ||
                 (spec_.has_arg("shuffle_after_epoch") && spec_.arg<bool>("shuffle_after_epoch"));
  int64_t num_shards = spec_.arg<int64_t>("num_shards");
  EpochPlanOptions po;
  po.num_samples = num_samples;
  po.num_shards = num_shards;
  po.shard_id = spec_.arg<int64_t>("shard_id");
  po.batch_size = ctx.max_batch_size;
  po.shuffle = shuffle;
  // All shards of a job must permute alike, whatever each rank's pipeline seed is.
  const int64_t own_seed = spec_.arg<int64_t>("seed");
  auto permutation_seed = [&](int64_t shards) {
    return own_seed >= 0 ? mix64(static_cast<uint64_t>(own_seed))
                         : (shards > 1 ? 0x534C55494345ull : ctx.seed);
  };
  po.seed = permutation_seed(num_shards);
  po.stick_to_shard = spec_.arg<bool>("stick_to_shard");
  po.pad_last_batch = spec_.arg<bool>("pad_last_batch");
  epoch_ = spec_.arg<int64_t>("resume_epoch");
  index_ = spec_.arg<int64_t>("resume_batch");
  if (const int64_t old_shards = spec_.arg<int64_t>("resume_num_shards"); old_shards > 0) {
    // The interrupted epoch keeps the old layout's order (one shard or several seed apart).
    po.remainder = {epoch_, old_shards, spec_.arg<int64_t>("resume_consumed"),
                    permutation_seed(old_shards)};
  }
  plan_ = std::make_unique<EpochPlan>(po);
  SLUICE_CHECK(epoch_ >= 0 && index_ >= 0 && index_ < plan_->batches_in_epoch(epoch_),
               InvalidArgument, "resume: batch ", index_, " of epoch ", epoch_,
               " is outside the epoch (", plan_->batches_in_epoch(epoch_), " batches)");
  read_ahead_ = spec_.arg<bool>("read_ahead");
}

void Reader::begin_iteration(BatchInfo& batch) {
  plan_->batch(epoch_, index_, &planned_);
  batch.size = static_cast<int>(planned_.indices.size());
  batch.sized = true;
  batch.samples.resize(batch.size);
  for (int i = 0; i < batch.size; ++i) {
    int64_t k = planned_.indices[i];
    batch.samples[i] = {sample_source(k), epoch_, k};
  }
  batch.from_reader = true;
  batch.epoch = epoch_;
  batch.batch_in_epoch = index_;
  batch.batches_per_epoch = plan_->batches_in_epoch(epoch_);
  batch.num_valid = static_cast<int>(planned_.num_valid);
  batch.complete_on_all_shards = planned_.complete_on_all_shards;
  if (++index_ == plan_->batches_in_epoch(epoch_)) {
    index_ = 0;
    ++epoch_;
  }
}

std::vector<int64_t> Reader::batch_indices_ahead(int64_t k) const {
  if (k <= 0) return planned_.indices;
  // (epoch_, index_) is the next batch: begin_iteration() has moved past the one being read.
  int64_t epoch = epoch_;
  int64_t index = index_ + (k - 1);
  while (index >= plan_->batches_in_epoch(epoch)) {
    index -= plan_->batches_in_epoch(epoch);
    if (++epoch > epoch_ + 1) return {};
  }
  return plan_->batch(epoch, index).indices;
}

nlohmann::json Reader::reader_meta() const {
  const ReaderMeta& m = plan_->meta();
  nlohmann::json j = {{"epoch_size", m.epoch_size},
                      {"epoch_size_padded", m.epoch_size_padded},
                      {"number_of_shards", m.number_of_shards},
                      {"shard_id", m.shard_id},
                      {"pad_last_batch", m.pad_last_batch},
                      {"stick_to_shard", m.stick_to_shard},
                      {"batches_per_epoch", m.batches_per_epoch}};
  const int64_t resumed = plan_->options().remainder.epoch;
  if (resumed >= 0) {
    j["resume_epoch"] = resumed;
    j["resume_epoch_size"] = plan_->remainder_size();
    j["resume_epoch_batches"] = plan_->batches_in_epoch(resumed);
  }
  return j;
}

}  // namespace sluice
