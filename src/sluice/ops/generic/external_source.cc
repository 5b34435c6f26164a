// external_source: batches fed from the consumer thread (Python callbacks, feed_input).
// The Python front end calls the user's source and feeds one batch per scheduled iteration;
// this operator takes it at the start of the iteration and sizes the batch with it.

#include "sluice/exec/operator.h"
#include "sluice/graph/schema_registry.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(
    OpSchema("external_source")
        .doc("Outputs batches fed from Python: by a `source` (callable, iterable or list) or "
             "with Pipeline.feed_input(). One operator per output; the Python front end splits "
             "num_outputs.")
        .num_inputs(0, 0)
        .num_outputs(1)
        .devices({OpDevice::kCPU, OpDevice::kGPU})
        .optional_arg("dtype", ArgType::kDType, "Expected type of the data; checked when fed.")
        .optional_arg("ndim", ArgType::kInt, "Expected number of dimensions of each sample.")
        .arg("layout", ArgType::kString, std::string(), "Layout of each sample, e.g. \"HWC\".")
        .source()
        .no_prune()
        .internal());

class ExternalSource : public Operator {
 public:
  using Operator::Operator;

  void begin_iteration(BatchInfo& batch) override {
    auto it = batch.fed.find(spec_.name);
    SLUICE_CHECK(it != batch.fed.end(), InvalidArgument,
                 "no data was fed for this iteration; give the operator a `source` or call "
                 "feed_input() before every run()");
    const TensorList& data = it->second;
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
    auto layout = spec_.arg<std::string>("layout");
    SLUICE_CHECK(layout.empty() || static_cast<int>(layout.size()) == data.sample_ndim(),
                 InvalidArgument, "layout '", layout, "' does not match ", data.sample_ndim(),
                 "-dimensional samples");
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
    auto layout = spec_.arg<std::string>("layout");
    if (spec_.device == OpDevice::kCPU) {
      SLUICE_CHECK(data.kind() != MemoryKind::kDevice, InvalidArgument,
                   "GPU data fed to a CPU external_source; use device='gpu'");
      out = data;  // zero-copy: the fed batch was made for this iteration
    } else {
      out.copy_from(data, ws.stream());
    }
    out.set_layout(layout.empty() ? data.layout() : layout);
  }
};

SLUICE_REGISTER_OPERATOR("external_source", OpDevice::kCPU, ExternalSource);
SLUICE_REGISTER_OPERATOR("external_source", OpDevice::kGPU, ExternalSource);

}  // namespace
}  // namespace sluice
