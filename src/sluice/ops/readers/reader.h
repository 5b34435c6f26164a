#pragma once
// What every reader shares: DALI's common reader arguments, and the walk through an EpochPlan
// (io/epoch_plan.h) that sizes each batch, so that every reader shards, shuffles, pads and
// reports reader_meta() alike. A reader lists its dataset in setup(), calls plan() with the
// count, and in run() reads the samples of ws.batch() (SampleInfo::id is the dataset index).

#include <cstdint>
#include <memory>
#include <string>

#include "sluice/exec/operator.h"
#include "sluice/graph/op_schema.h"
#include "sluice/io/epoch_plan.h"

namespace sluice {

// Adds DALI's common reader arguments (shard_id, num_shards, random_shuffle, stick_to_shard,
// pad_last_batch, read_ahead, skip_cached_images, and those accepted for compatibility) and
// marks the schema a source. With `shuffle_after_epoch`, also shuffle_after_epoch and its seed.
OpSchema& add_reader_args(OpSchema& schema, bool shuffle_after_epoch = true);

class Reader : public Operator {
 public:
  using Operator::Operator;

  // Picks the batch's samples from the plan; advances (epoch, batch) once per iteration.
  void begin_iteration(BatchInfo& batch) final;
  nlohmann::json reader_meta() const final;

 protected:
  // Makes the plan over `num_samples` from the common arguments; call once from setup().
  void plan(const OpContext& ctx, int64_t num_samples);
  // The name errors and source_info give sample `index` (a file path, "shard.tar:member", ...).
  virtual std::string sample_source(int64_t index) const = 0;
  // The dataset indices of the batch `k` iterations after the one being read (k = 0: that one;
  // call from run()), following the plan across epoch boundaries, for reading ahead. Empty past
  // the end of the epoch after the next batch's: the plan keeps two epochs' orders, and a
  // farther one would evict the order still being read.
  std::vector<int64_t> batch_indices_ahead(int64_t k) const;
  std::vector<int64_t> next_batch_indices() const { return batch_indices_ahead(1); }
  bool read_ahead() const { return read_ahead_; }

 private:
  std::unique_ptr<EpochPlan> plan_;
  PlannedBatch planned_;
  int64_t epoch_ = 0;
  int64_t index_ = 0;
  bool read_ahead_ = false;
};

// stats() of a reader that reads object storage ahead (`ahead`: its ObjectsAhead, null when it
// reads local files): how many batches and bytes it has in flight.
template <class Ahead>
nlohmann::json objects_ahead_stats(const Ahead* ahead) {
  if (!ahead) return nlohmann::json::object();
  return {{"s3_batches_ahead", ahead->batches_ahead()}, {"s3_bytes_ahead", ahead->bytes_ahead()}};
}

// Runs `read_batch`; when it fails, the reads `ahead` kept for the batch's samples are dropped, so
// that a later batch with one of them starts its reads again.
template <class Ahead, class ReadBatch>
void read_or_forget_ahead(Workspace& ws, Ahead* ahead, ReadBatch&& read_batch) {
  try {
    read_batch();
  } catch (...) {
    if (ahead) {
      for (const SampleInfo& s : ws.batch().samples) ahead->forget(s.id);
    }
    throw;
  }
}

}  // namespace sluice
