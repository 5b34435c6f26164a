// external_source: batches fed from the consumer thread (Python callbacks, parallel workers,
// feed_input). The Python front end calls the user's source and feeds one batch per scheduled
// iteration; this operator takes it at the start of the iteration and sizes the batch with it.

#include <cstring>
#include <optional>

#include "sluice/exec/operator.h"
#include "sluice/graph/schema_registry.h"
#include "sluice/ops/op_policy.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    OpSchema("external_source")
        .doc("Outputs batches fed from Python: by a `source` (callable, iterable or list, run in "
             "the consumer thread or, with parallel=True, in worker processes) or with "
             "Pipeline.feed_input(). One operator per output; the Python front end splits "
             "num_outputs.")
        .num_inputs(0, 0)
        .num_outputs(1)
        .devices({OpDevice::kCPU, OpDevice::kGPU})
        .optional_arg("dtype", ArgType::kDType, "Expected type of the data; checked when fed.")
        .optional_arg("ndim", ArgType::kInt, "Expected number of dimensions of each sample.")
        .arg("layout", ArgType::kString, std::string(),
             "Layout of each sample, e.g. \"HWC\"; without it, the layout the data was fed with.")
        .arg("blocking", ArgType::kBool, false,
             "feed_input() sources: an iteration waits until its data is fed instead of failing.")
        .arg("no_copy", ArgType::kBool, false,
             "Use the fed memory as it is, CPU or GPU (kept alive until the pipeline no longer "
             "needs it; GPU data once the legacy default stream is synchronised) instead of "
             "copying it.")
        .arg("repeat_last", ArgType::kBool, false,
             "feed_input() sources: an iteration without newly fed data repeats the last batch.")
        .source()
        .no_prune()
        .internal());

class ExternalSource : public Operator {
 public:
  explicit ExternalSource(const OpSpec& spec)
      : Operator(spec),
        layout_(spec.arg<std::string>("layout")),
        repeat_last_(spec.arg<bool>("repeat_last")) {
    if (spec.has_arg("ndim")) {
      const int ndim = spec.arg<int>("ndim");
      SLUICE_CHECK(ndim >= 0, InvalidArgument, "ndim must not be negative, got ", ndim);
      SLUICE_CHECK(layout_.empty() || static_cast<int>(layout_.size()) == ndim, InvalidArgument,
                   "layout '", layout_, "' has ", layout_.size(), " dimensions but ndim=", ndim,
                   " was declared");
    }
  }

  void begin_iteration(BatchInfo& batch) override {
    auto it = batch.fed.find(spec_.name);
    if (it == batch.fed.end() && repeat_last_ && last_)
      it = batch.fed.emplace(spec_.name, *last_).first;
    SLUICE_CHECK(it != batch.fed.end(), InvalidArgument,
                 "no data was fed for this iteration; give the operator a `source` or call "
                 "feed_input() before every run()");
    const TensorList& data = it->second;
    check(data);
    if (repeat_last_) last_ = data;
    if (batch.sized) {
      SLUICE_CHECK(batch.size == data.num_samples(), InvalidArgument, "got ", data.num_samples(),
                   " samples but another source gave ", batch.size, " for the same iteration");
    }
    batch.size = data.num_samples();
    batch.sized = true;
  }

  void run(Workspace& ws) override {
    const TensorList& data = ws.batch().fed.at(spec_.name);
    TensorList& out = ws.output(0);
    // The fed batch was made (or borrowed) for this iteration: shared, not copied, unless a
    // batch of equal shapes comes in pieces (consumers expect it in one).
    const bool share = data.is_contiguous() || !uniform(data);
    if (spec_.device == OpDevice::kCPU) {
      SLUICE_CHECK(data.kind() != MemoryKind::kDevice, InvalidArgument,
                   "GPU data fed to a CPU external_source; use device='gpu'");
      if (share) {
        out = data;
      } else {
        // Samples of one shape fed from separate buffers (workers' shared memory, a list
        // borrowed with no_copy): one gather makes the batch a dense tensor, as DALI's is.
        out.resize(data.shapes(), data.dtype());
        ws.for_each_sample(
            [&](int i, int) {
              if (data.sample_bytes(i))
                std::memcpy(out.raw_sample(i), data.raw_sample(i), data.sample_bytes(i));
            },
            inline_below(data));
      }
    } else if (share && data.kind() == MemoryKind::kDevice &&
               data.device() == ws.context().device_id) {
      out = data;
    } else {
      out.copy_from(data, ws.stream());
    }
    out.set_layout(layout_.empty() ? data.layout() : layout_);
  }

  void reset() override { last_.reset(); }

 private:
  void check(const TensorList& data) const {
    SLUICE_CHECK(data.num_samples() >= 1, InvalidArgument,
                 "a fed batch must have at least one sample");
    if (spec_.has_arg("dtype")) {
      DType want = parse_dtype(spec_.arg<std::string>("dtype"));
      SLUICE_CHECK(data.dtype() == want, InvalidArgument, "fed data has type ",
                   dtype_name(data.dtype()), " but dtype=", dtype_name(want), " was declared");
    }
    if (spec_.has_arg("ndim")) {
      SLUICE_CHECK(data.sample_ndim() == spec_.arg<int>("ndim"), InvalidArgument,
                   "fed samples have ", data.sample_ndim(),
                   " dimensions but ndim=", spec_.arg<int>("ndim"), " was declared");
    }
    SLUICE_CHECK(layout_.empty() || static_cast<int>(layout_.size()) == data.sample_ndim(),
                 InvalidArgument, "layout '", layout_, "' does not match ", data.sample_ndim(),
                 "-dimensional samples");
    SLUICE_CHECK(layout_.empty() || data.layout().empty() || data.layout() == layout_,
                 InvalidArgument, "the data was fed with layout '", data.layout(), "' but layout='",
                 layout_, "' was declared");
  }

  static bool uniform(const TensorList& t) {
    for (int i = 1; i < t.num_samples(); ++i) {
      if (t.shape(i) != t.shape(0)) return false;
    }
    return true;
  }

  std::string layout_;
  bool repeat_last_;
  std::optional<TensorList> last_;  // repeat_last: the last batch fed (sizing turns are ordered)
};

SLUICE_REGISTER_OPERATOR("external_source", OpDevice::kCPU, ExternalSource);
SLUICE_REGISTER_OPERATOR("external_source", OpDevice::kGPU, ExternalSource);

}  // namespace
}  // namespace sluice
