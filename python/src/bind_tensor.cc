// TensorCPU / TensorGPU: one sample (or a dense batch) handed to Python or made there, with
// DALI's methods and zero-copy exchange through DLPack (__dlpack__ with the stream handshake, in
// bind_dlpack.cc), the numpy array protocols (__array_interface__, __array__) and
// __cuda_array_interface__. The batches are in bind_tensor_list.cc.

#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstring>

#include "bindings.h"
#include "sluice/core/error.h"

namespace sluice::python {
namespace {

// DALI's typestr: native byte order, struct-module codes.
const char* array_typestr(DType t) {
  switch (t) {
    case DType::kBool:
      return "=?";
    case DType::kUInt8:
      return "=B";
    case DType::kInt8:
      return "=b";
    case DType::kUInt16:
      return "=H";
    case DType::kInt16:
      return "=h";
    case DType::kUInt32:
      return "=I";
    case DType::kInt32:
      return "=i";
    case DType::kUInt64:
      return "=Q";
    case DType::kInt64:
      return "=q";
    case DType::kFloat16:
      return "=e";
    case DType::kFloat32:
      return "=f";
    case DType::kFloat64:
      return "=d";
    case DType::kBFloat16:
      break;
  }
  throw InvalidArgument("numpy has no bfloat16 type");
}

nb::list shape_list(const Shape& shape) {
  nb::list dims;
  for (auto d : shape) dims.append(d);
  return dims;
}

// Copies `bytes` from `src` to an external address: host memory, or device memory on `stream`
// (after the data's producer), waiting for the copy unless non_blocking.
void copy_out(void* dst, const void* src, size_t bytes, bool device, int device_id,
              const std::shared_ptr<Outputs>& owner, nb::handle stream, bool non_blocking) {
  if (!bytes) return;
  if (!device) {
    std::memcpy(dst, src, bytes);
    return;
  }
  cuda::DeviceGuard guard(device_id);
  cuda::StreamHandle s = stream_from_python(stream);
  if (owner && owner->ready) cuda::stream_wait_event(s, owner->ready->get());
  cuda::memcpy_async(dst, src, bytes, s);
  if (!non_blocking) cuda::stream_synchronize(s);
}

template <typename T>
void bind_tensor_common(nb::class_<T>& c, bool gpu) {
  c.def(
       "shape", [](const T& t) { return shape_list(t.tensor.shape); }, "Shape of the tensor.")
      .def("ndim", [](const T& t) { return t.tensor.shape.size(); })
      .def_prop_ro("dtype", [](const T& t) { return dtype_enum(t.tensor.dtype); })
      .def("layout", [](const T& t) { return t.tensor.layout; })
      .def(
          "set_layout",
          [](T& t, nb::handle layout) {
            std::string l = layout.is_none() ? "" : nb::cast<std::string>(nb::str(layout));
            check_layout(l, t.tensor.shape.size(), "Tensor");
            t.tensor.layout = l;
          },
          nb::arg("layout").none())
      .def("data_ptr", [](const T& t) { return reinterpret_cast<uintptr_t>(t.tensor.data); })
      .def("source_info", [](const T& t) { return t.source_info; })
      .def(
          "squeeze",
          [](T& t, nb::handle dim) {
            Shape& s = t.tensor.shape;
            Layout& layout = t.tensor.layout;
            auto drop = [&](size_t d) {
              s.erase(s.begin() + static_cast<std::ptrdiff_t>(d));
              if (!layout.empty()) layout.erase(d, 1);
            };
            size_t before = s.size();
            if (dim.is_none()) {
              for (size_t d = s.size(); d-- > 0;) {
                if (s[d] == 1) drop(d);
              }
            } else {
              auto n = static_cast<int64_t>(s.size());
              auto d = nb::cast<int64_t>(dim);
              SLUICE_CHECK(d >= -n && d < n, InvalidArgument, "axis ", d,
                           " is out of bound for a tensor with ", n, " dimensions.");
              if (d < 0) d += n;
              if (s[d] == 1) drop(static_cast<size_t>(d));
            }
            return s.size() != before;
          },
          nb::arg("dim") = nb::none(),
          "Removes dimensions of extent 1 (or only `dim`, if of extent 1), and their layout "
          "letters; True when the shape changed.")
      .def(
          "reinterpret",
          [](T& t, nb::handle new_type) {
            DType to = dtype_from_dali_code(nb::cast<int>(new_type));
            SLUICE_CHECK(dtype_size(to) == dtype_size(t.tensor.dtype), InvalidArgument,
                         "Cannot reinterpret the tensor as having a different element size.");
            t.tensor.dtype = to;
          },
          nb::arg("new_type"))
      .def(
          "copy_to_external",
          [gpu](const T& t, nb::handle ptr, nb::handle stream, bool non_blocking, bool) {
            copy_out(external_pointer(ptr), t.tensor.data, t.tensor.nbytes(), gpu, t.tensor.device,
                     t.owner, stream, non_blocking);
          },
          nb::arg("ptr"), nb::arg("cuda_stream") = nb::none(), nb::arg("non_blocking") = false,
          nb::arg("use_copy_kernel") = false,
          "Copies the tensor to an external address (an int or a ctypes.c_void_p).")
      .def("__str__", [](nb::handle self) { return format_tensor(self, true); })
      .def("__repr__", [](nb::handle self) { return format_tensor(self, false); })
      .def(
          "__dlpack__",
          [](const T& t, nb::handle stream, nb::handle max_version, nb::handle, nb::handle) {
            return export_dlpack(tensor_view(t), t.owner, stream, max_version);
          },
          nb::arg("stream") = nb::none(), nb::arg("max_version") = nb::none(),
          nb::arg("dl_device") = nb::none(), nb::arg("copy") = nb::none())
      .def("__dlpack_device__", [](const T& t) { return dlpack_device(tensor_view(t)); });
}

}  // namespace

View tensor_view(const PyTensor& p) {
  const Tensor& t = p.tensor;
  return {t.storage, t.data, t.shape, t.dtype, t.kind, t.device};
}

nb::object to_numpy(const View& v) {
  SLUICE_CHECK(v.kind != MemoryKind::kDevice, InvalidArgument,
               "GPU data cannot be viewed as a numpy array; call as_cpu() first");
  SLUICE_CHECK(v.dtype != DType::kBFloat16, InvalidArgument, "numpy has no bfloat16 type");
  auto* keep = new std::shared_ptr<Buffer>(v.storage);
  nb::capsule owner(keep,
                    [](void* p) noexcept { delete static_cast<std::shared_ptr<Buffer>*>(p); });
  std::vector<size_t> shape(v.shape.begin(), v.shape.end());
  auto d = dl_dtype(v.dtype);
  nb::dlpack::dtype nd{d.code, d.bits, d.lanes};
  static char empty = 0;
  nb::ndarray<nb::numpy> arr(v.data ? v.data : &empty, shape.size(), shape.data(), owner, nullptr,
                             nd);
  return arr.cast();
}

nb::dict cuda_array_interface(const View& v, const std::shared_ptr<Outputs>& owner) {
  static const char* kTypestr[] = {"|b1", "|u1", "|i1", "<u2", "<i2", "<u4", "<i4",
                                   "<i8", "<f2", "<V2", "<f4", "<f8", "<u8"};
  static_assert(sizeof(kTypestr) / sizeof(kTypestr[0]) == kNumDTypes);
  nb::dict d;
  d["shape"] = nb::tuple(shape_list(v.shape));
  d["typestr"] = kTypestr[static_cast<int>(v.dtype)];
  d["data"] = nb::make_tuple(reinterpret_cast<uintptr_t>(v.data), false);
  d["version"] = 3;
  d["strides"] = nb::none();
  // Consumers synchronise with this stream; the data is final once its queued work is done.
  if (owner && owner->stream) d["stream"] = reinterpret_cast<uintptr_t>(owner->stream);
  return d;
}

void register_tensors(nb::module_& m) {
  auto tcpu = nb::class_<PyTensorCPU>(m, "TensorCPU", "One sample (or a dense batch) on the CPU.");
  bind_tensor_common(tcpu, false);
  tcpu.def(
          "__init__",
          [](PyTensorCPU* self, nb::handle data, nb::handle layout, bool) {
            new (self) PyTensorCPU();
            self->tensor = tensor_from_python(data, layout, false, -1);
          },
          nb::arg("data"), nb::arg("layout") = nb::none(), nb::arg("is_pinned") = false,
          "A copy of an array, a DLPack capsule or an object with __dlpack__ (torch).")
      .def_prop_ro("__array_interface__",
                   [](const PyTensorCPU& t) {
                     nb::dict d;
                     d["typestr"] = array_typestr(t.tensor.dtype);
                     d["shape"] = nb::tuple(shape_list(t.tensor.shape));
                     // numpy reads a null address as "use the buffer protocol"
                     static char empty = 0;
                     void* data = t.tensor.data ? t.tensor.data : &empty;
                     d["data"] = nb::make_tuple(reinterpret_cast<uintptr_t>(data), false);
                     d["version"] = 3;
                     d["strides"] = nb::none();
                     return d;
                   })
      .def(
          "__array__",
          [](const PyTensorCPU& t, nb::handle, nb::handle) { return to_numpy(tensor_view(t)); },
          nb::arg("dtype") = nb::none(), nb::arg("copy") = nb::none())
      .def("as_array", [](const PyTensorCPU& t) { return to_numpy(tensor_view(t)); })
      .def(
          "as_cpu", [](nb::handle self) { return nb::borrow(self); },
          "Passthrough, since the object is already a TensorCPU.");

  auto tgpu = nb::class_<PyTensorGPU>(m, "TensorGPU", "One sample (or a dense batch) on the GPU.");
  bind_tensor_common(tgpu, true);
  tgpu.def(
          "__init__",
          [](PyTensorGPU* self, nb::handle data, nb::handle layout, int device_id) {
            new (self) PyTensorGPU();
            int device = device_id >= 0 ? device_id : cuda::current_device();
            self->tensor = tensor_from_python(data, layout, true, device);
          },
          nb::arg("data"), nb::arg("layout") = nb::none(), nb::arg("device_id") = -1,
          "A copy, in device memory, of a DLPack capsule or an object with __dlpack__ or "
          "__cuda_array_interface__ (torch, cupy).")
      .def("device_id", [](const PyTensorGPU& t) { return t.tensor.device; })
      .def_prop_ro(
          "__cuda_array_interface__",
          [](const PyTensorGPU& t) { return cuda_array_interface(tensor_view(t), t.owner); })
      .def(
          "as_cpu",
          [](const PyTensorGPU& t) {
            TensorList host(MemoryKind::kHost);
            host.resize({t.tensor.shape}, t.tensor.dtype);
            if (t.owner && t.owner->ready) t.owner->ready->synchronize();
            cuda::memcpy_async(host.raw_data(), t.tensor.data, t.tensor.nbytes(), nullptr);
            cuda::stream_synchronize(nullptr);
            PyTensorCPU c;
            c.tensor = host.tensor(0);
            c.tensor.layout = t.tensor.layout;
            c.source_info = t.source_info;
            return c;
          },
          "A copy of the tensor in host memory.");

  register_tensor_lists(m);
}

}  // namespace sluice::python
