#pragma once
// The base of the GPU operators: one kernel launch per batch, whose per-sample parameters
// (descriptors) go up through a ParamUpload created once, in setup(). CUDA builds only (the
// classes deriving from it live in *_gpu.cc files).

#include <memory>

#include "sluice/exec/operator.h"
#include "sluice/memory/param_upload.h"

namespace sluice {

class GpuOperator : public Operator {
 public:
  using Operator::Operator;
  void setup(const OpContext& ctx) override {
    upload_ = std::make_unique<ParamUpload>(ctx.device_id);
  }

 protected:
  std::unique_ptr<ParamUpload> upload_;  // the per-sample descriptors, each batch
};

}  // namespace sluice
