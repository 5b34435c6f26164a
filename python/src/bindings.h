#pragma once
// Shared declarations of the binding translation units (one register_* per area).

#include <nanobind/nanobind.h>

#include <memory>

#include "dlpack.h"
#include "sluice/memory/tensor_list.h"
#include "sluice/exec/executor.h"

namespace sluice::python {

namespace nb = nanobind;

void register_errors(nb::module_& m);
void register_tensors(nb::module_& m);
void register_pipeline(nb::module_& m);
void register_backend(nb::module_& m);

// A batch (or one sample of it) handed to Python. Keeps the iteration's outputs alive, so the
// ready event of GPU data stays valid; the storage itself is shared with the TensorList.
struct PyTensorList {
  TensorList list;
  std::shared_ptr<Outputs> owner;  // null for lists made in Python (feed_input, as_cpu)
};

struct PyTensor {
  Tensor tensor;
  std::shared_ptr<Outputs> owner;
};

// Wraps a TensorList as TensorListCPU or TensorListGPU.
nb::object wrap_tensor_list(TensorList list, std::shared_ptr<Outputs> owner);

// Converts array-like Python data (anything with __dlpack__ or the buffer protocol, a list of
// such per-sample arrays, or a TensorList) to a TensorList in host or device memory.
TensorList tensor_list_from_python(nb::handle data, const std::string& layout, bool to_device,
                                   int device);

// The view a tensor or a dense batch exports.
struct View {
  std::shared_ptr<Buffer> storage;
  void* data = nullptr;
  Shape shape;
  DType dtype = DType::kUInt8;
  MemoryKind kind = MemoryKind::kHost;
  int device = -1;
};

// DLPack (bind_dlpack.cc): Sluice's data types as DLPack's and back, and the capsule and device
// of __dlpack__ / __dlpack_device__ (Note [DLPack stream handshake]).
dlpack::DLDataType dl_dtype(DType t);
DType dtype_from_dl(uint8_t code, uint8_t bits);
nb::object export_dlpack(const View& v, const std::shared_ptr<Outputs>& owner, nb::handle stream,
                         nb::handle max_version);
nb::tuple dlpack_device(const View& v);

}  // namespace sluice::python
