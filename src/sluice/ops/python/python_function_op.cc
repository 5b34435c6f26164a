#include "sluice/ops/python/python_function_op.h"

#include <atomic>

#include "sluice/cuda/cuda_api.h"

namespace sluice {
namespace {

std::atomic<HostFunctionRunner> g_runner{nullptr};

}  // namespace

void set_host_function_runner(HostFunctionRunner runner) {
  g_runner.store(runner);
}

OpSchema python_function_schema(std::string name, std::string doc, bool synchronize_stream,
                                bool batch_processing) {
  OpSchema s(std::move(name));
  s.doc(std::move(doc))
      .num_inputs(0, 256)
      .input_doc("inputs", "Up to 256 batches, handed to the function in this order.")
      .devices({OpDevice::kCPU, OpDevice::kGPU})
      .num_outputs_from_arg("num_outputs")
      .no_prune()
      .required_arg("function_id", ArgType::kInt,
                    "Set by the Python front end from `function` (a callable): the key under which "
                    "the pipeline keeps it. Pipelines with Python functions cannot be serialized.")
      .arg("num_outputs", ArgType::kInt, int64_t{1}, "Number of outputs.")
      .arg("batch_processing", ArgType::kBool, batch_processing,
           "Call the function once per batch (lists of samples) instead of once per sample.")
      .optional_arg("output_layouts", ArgType::kStringList,
                    "Layouts of the outputs; a single string applies to every output, a shorter "
                    "list leaves the remaining outputs without a layout.");
  if (synchronize_stream) {
    s.arg("synchronize_stream", ArgType::kBool, true,
          "GPU: wait for the pipeline's stream before the call (the function's device work must "
          "be finished or ordered on the DLPack stream handshake when it returns).");
  }
  return s;
}

void PythonFunctionOp::setup(const OpContext& ctx) {
  device_id_ = ctx.device_id;
  const int n = spec_.arg<int>("num_outputs");
  SLUICE_CHECK(n >= 0, InvalidArgument, "num_outputs must be non-negative, got ", n);
  if (spec_.has_arg("output_layouts")) {
    layouts_ = spec_.arg<std::vector<std::string>>("output_layouts");
    SLUICE_CHECK(static_cast<int>(layouts_.size()) <= n, InvalidArgument,
                 "The length of the ``output_layouts`` (=", layouts_.size(),
                 ") is greater than the number of outputs (=", n, ").");
  }
  synchronize_ = !spec_.has_arg("synchronize_stream") || spec_.arg<bool>("synchronize_stream");
}

void PythonFunctionOp::run(Workspace& ws) {
  HostFunctionRunner runner = g_runner.load();
  SLUICE_CHECK(runner != nullptr, NotImplemented, spec_.type,
               " needs the Python front end: no host function runner is installed");
  HostFunctionCall call{spec_,      {},         {}, ws.batch_size(), ws.batch().iteration,
                        device_id_, ws.stream()};
  for (int i = 0; i < ws.num_inputs(); ++i) call.inputs.push_back(&ws.input(i));
  for (int i = 0; i < ws.num_outputs(); ++i) call.outputs.push_back(&ws.output(i));
  // The function may read the inputs on any stream (or on the host): they must be complete.
  if (spec_.device == OpDevice::kGPU && synchronize_) cuda::stream_synchronize(ws.stream());
  runner(call);
  for (int i = 0; i < ws.num_outputs(); ++i) {
    TensorList& out = ws.output(i);
    const std::string layout = i < static_cast<int>(layouts_.size()) ? layouts_[i] : "";
    SLUICE_CHECK(layout.empty() || static_cast<int>(layout.size()) == out.sample_ndim(),
                 InvalidArgument, "The layout '", layout, "' is not valid for ", out.sample_ndim(),
                 "-dimensional tensor (output ", i, ")");
    out.set_layout(layout);
  }
}

}  // namespace sluice
