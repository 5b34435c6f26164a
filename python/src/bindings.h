#pragma once
// Shared declarations of the binding translation units (one register_* per area).

#include <nanobind/nanobind.h>

#include <memory>
#include <string>

#include "dlpack.h"
#include "sluice/exec/executor.h"
#include "sluice/memory/tensor_list.h"

namespace sluice::python {

namespace nb = nanobind;

void register_errors(nb::module_& m);
void register_tensors(nb::module_& m);
void register_tensor_lists(nb::module_& m);
void register_pipeline(nb::module_& m);
void register_backend(nb::module_& m);
void register_python_function(nb::module_& m);

// Keeps a Python object alive; the last release may happen on any thread, without the GIL (Note
// [Borrowed feeds] in bind_pipeline.cc).
std::shared_ptr<const void> hold_python_object(nb::handle obj);

// A batch (or one sample of it) handed to Python. Keeps the iteration's outputs alive, so the
// ready event of GPU data stays valid; the storage itself is shared with the TensorList.
struct PyTensorList {
  TensorList list;
  std::shared_ptr<Outputs> owner;  // null for lists made in Python (feed_input, as_cpu)
  bool typed = true;               // false for an empty list made in Python: DALI's NO_TYPE
};

struct PyTensor {
  Tensor tensor;
  std::shared_ptr<Outputs> owner;
  std::string source_info;  // the file the sample came from, when from a reader
};

struct PyTensorListCPU : PyTensorList {};
struct PyTensorListGPU : PyTensorList {};
struct PyTensorCPU : PyTensor {};
struct PyTensorGPU : PyTensor {};

// Wraps a TensorList as TensorListCPU or TensorListGPU.
nb::object wrap_tensor_list(TensorList list, std::shared_ptr<Outputs> owner);

// Converts array-like Python data (anything with __dlpack__ or the buffer protocol, a DLPack
// capsule, a TensorCPU / TensorGPU, a list of such per-sample arrays, or a TensorList) to a
// TensorList in host or device memory.
TensorList tensor_list_from_python(nb::handle data, const std::string& layout, bool to_device,
                                   int device);

// The TensorList*(...) constructors' conversion: as tensor_list_from_python, with DALI's checks
// (samples of one type and rank, a layout of the samples' rank) and its errors.
TensorList batch_from_python(nb::handle data, nb::handle layout, bool to_device, int device);
// The Tensor*(...) constructors' conversion: one array-like object to a tensor (copied).
Tensor tensor_from_python(nb::handle data, nb::handle layout, bool to_device, int device);

// DALI's layout check: empty, or one letter per dimension.
void check_layout(const std::string& layout, size_t ndim, const char* what);

// The view a tensor or a dense batch exports.
struct View {
  std::shared_ptr<Buffer> storage;
  void* data = nullptr;
  Shape shape;
  DType dtype = DType::kUInt8;
  MemoryKind kind = MemoryKind::kHost;
  int device = -1;
};

View tensor_view(const PyTensor& t);
View list_view(const PyTensorList& l);  // a dense batch as one tensor
nb::object to_numpy(const View& v);
nb::dict cuda_array_interface(const View& v, const std::shared_ptr<Outputs>& owner);

// DALI's data type codes (types.DALIDataType: UINT8 = 0, ..., FLOAT = 9, BOOL = 11) and the
// enum members of sluice.types.
int dali_type_code(DType t);
DType dtype_from_dali_code(int code);
nb::object dtype_enum(DType t);
nb::object no_type_enum();

// A destination address given as an int or a ctypes pointer (copy_to_external).
void* external_pointer(nb::handle ptr);
// A CUDA stream given as None, an int, a ctypes pointer or an object with .cuda_stream / .ptr.
cuda::StreamHandle stream_from_python(nb::handle stream);

// str() and repr() of the tensor classes: sluice.tensors formats them as DALI does.
nb::object format_tensor(nb::handle self, bool show_data);
nb::object format_batch(nb::handle self, bool show_data);

// DLPack (bind_dlpack.cc): Sluice's data types as DLPack's and back, and the capsule and device
// of __dlpack__ / __dlpack_device__ (Note [DLPack stream handshake]).
dlpack::DLDataType dl_dtype(DType t);
DType dtype_from_dl(uint8_t code, uint8_t bits);
nb::object export_dlpack(const View& v, const std::shared_ptr<Outputs>& owner, nb::handle stream,
                         nb::handle max_version);
nb::tuple dlpack_device(const View& v);

}  // namespace sluice::python
