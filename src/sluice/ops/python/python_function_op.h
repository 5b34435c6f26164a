#pragma once
// python_function, dl_tensor_python_function and torch_python_function: one class that hands a
// batch to a function of the host language. The operators know nothing of Python: the bindings
// install the runner (set_host_function_runner) that takes the interpreter's lock, converts the
// inputs, calls the function and writes the outputs. Only these operators ever take that lock,
// so the other operators of a pipeline never wait for it.

#include <memory>
#include <string>
#include <vector>

#include "sluice/core/error.h"
#include "sluice/exec/operator.h"
#include "sluice/graph/op_schema.h"

namespace sluice {

// One call of the host function: a batch in, the outputs to fill.
struct HostFunctionCall {
  const OpSpec& spec;  // function_id, batch_processing, num_outputs
  std::vector<const TensorList*> inputs;
  std::vector<TensorList*> outputs;
  int batch_size = 0;
  int64_t iteration = 0;
  int device_id = -1;
  cuda::StreamHandle stream = nullptr;  // device operators: the pipeline's stream
};

// Fills call.outputs (shapes, type, data; the operator sets the layouts) or throws.
using HostFunctionRunner = void (*)(HostFunctionCall& call);
void set_host_function_runner(HostFunctionRunner runner);

// An exception raised by the host function (or by its outputs' checks), carrying the host's own
// exception object as `cause` so the bindings can chain it; context added on the way keeps it.
class HostFunctionError : public Error {
 public:
  HostFunctionError(const std::string& msg, std::shared_ptr<const void> cause)
      : Error(msg), cause_(std::move(cause)) {}
  std::exception_ptr with_context(const std::string& context) const override {
    return std::make_exception_ptr(HostFunctionError(context + ": " + what(), cause_));
  }
  const std::shared_ptr<const void>& cause() const { return cause_; }

 private:
  std::shared_ptr<const void> cause_;
};

// The schema the three operators share: `synchronize_stream` only where DALI takes it, and
// DALI's default of `batch_processing` for each.
OpSchema python_function_schema(std::string name, std::string doc, bool synchronize_stream,
                                bool batch_processing);

class PythonFunctionOp : public Operator {
 public:
  using Operator::Operator;
  void setup(const OpContext& ctx) override;
  void run(Workspace& ws) override;

 private:
  std::vector<std::string> layouts_;
  int device_id_ = -1;
  bool synchronize_ = true;
};

}  // namespace sluice
