// "_to_gpu": the transfer behind DataNode.gpu(), a mixed operator. It calls only the CUDA facade
// (cuda/cuda_api.h), so it builds everywhere; the file is not named to_gpu.cc because *_gpu.cc
// files build only with CUDA.

#include <cstring>

#include "sluice/exec/operator.h"
#include "sluice/graph/schema_registry.h"
#include "sluice/ops/op_policy.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(OpSchema("_to_gpu")
                           .doc("Moves CPU data to the GPU (DataNode.gpu()) from pinned "
                                "memory, asynchronously on the pipeline stream.")
                           .num_inputs(1, 1)
                           .devices({OpDevice::kMixed})
                           .internal());

// Host -> device. The executor keeps a CPU tensor bound for the GPU in pinned memory (Note
// [Pinned transfers] in executor.cc): then it goes up in one asynchronous copy. Other host data
// goes through pinned staging: two pages alternate, a page is refilled only after the copy that
// last read it has completed.
class ToGpu : public Operator {
 public:
  using Operator::Operator;

  void setup(const OpContext& ctx) override {
    for (auto& p : pages_) {
      p.done = cuda::Event(ctx.device_id);
      p.staging.set_stream(ctx.stream);
    }
  }

  void run(Workspace& ws) override {
    const TensorList& in = ws.input(0);
    TensorList& out = ws.output(0);
    if (in.kind() == MemoryKind::kPinned) {
      out.copy_from(in, ws.stream());
      return;
    }
    Page& p = pages_[next_];
    next_ ^= 1;
    if (p.used) p.done.synchronize();
    p.staging.resize(in.shapes(), in.dtype());
    ws.for_each_sample(
        [&](int i, int) {
          if (in.sample_bytes(i))
            std::memcpy(p.staging.raw_sample(i), in.raw_sample(i), in.sample_bytes(i));
        },
        inline_below(in));
    out.resize(in.shapes(), in.dtype());
    out.set_layout(in.layout());
    cuda::memcpy_async(out.raw_data(), p.staging.raw_data(), out.total_bytes(), ws.stream());
    p.done.record(ws.stream());
    p.used = true;
  }

 private:
  struct Page {
    TensorList staging{MemoryKind::kPinned};
    cuda::Event done;
    bool used = false;
  };
  Page pages_[2];
  int next_ = 0;
};

SLUICE_REGISTER_OPERATOR("_to_gpu", OpDevice::kMixed, ToGpu);

}  // namespace
}  // namespace sluice
