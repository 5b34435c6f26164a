// TensorListCPU / TensorListGPU: a batch handed to Python (a pipeline's output, sharing the
// executor's storage) or made there (a copy of numpy arrays, DLPack capsules, torch tensors or
// lists of them), with DALI's methods: indexing (negative indices too), at(), as_tensor(),
// as_reshaped_tensor(), as_array(), copy_to_external(), str() as DALI prints it.

#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstring>

#include "bindings.h"
#include "sluice/core/error.h"

namespace sluice::python {
namespace {

nb::list shapes_of(const TensorList& t) {
  nb::list out;
  for (const auto& s : t.shapes()) {
    nb::list dims;
    for (auto d : s) dims.append(d);
    out.append(nb::tuple(dims));
  }
  return out;
}

// A sample index as Python counts: negative from the end. at() raises DALI's RuntimeError,
// indexing an IndexError (which also ends iteration over the batch).
int sample_index(const TensorList& list, int64_t i, bool for_getitem, const char* cls) {
  int64_t n = list.num_samples();
  int64_t j = i < 0 ? i + n : i;
  if (j < 0 || j >= n) {
    if (for_getitem) throw nb::index_error(make_string(cls, " index out of range").c_str());
    throw InvalidArgument(make_string("Index is out-of-range: sample ", i, " of a batch of ", n));
  }
  return static_cast<int>(j);
}

template <typename T>
T wrap_tensor(const PyTensorList& l, int i) {
  T t;
  t.tensor = l.list.tensor(i);
  t.owner = l.owner;
  if (l.owner && i < static_cast<int>(l.owner->batch.samples.size()))
    t.source_info = l.owner->batch.samples[i].source;
  return t;
}

template <typename TensorT>
TensorT as_tensor(const PyTensorList& l) {
  View v = list_view(l);
  TensorT t;
  std::string layout = l.list.layout().empty() ? "" : "N" + l.list.layout();
  t.tensor = {v.storage, v.data, v.shape, v.dtype, layout, v.kind, v.device};
  t.owner = l.owner;
  return t;
}

template <typename TensorT>
TensorT as_reshaped_tensor(const PyTensorList& l, const std::vector<int64_t>& shape) {
  const TensorList& t = l.list;
  SLUICE_CHECK(t.is_contiguous(), InvalidArgument,
               "as_reshaped_tensor needs a batch stored contiguously in memory");
  int64_t elements = 0;
  for (const auto& s : t.shapes()) elements += volume(s);
  Shape want(shape.begin(), shape.end());
  SLUICE_CHECK(volume(want) == elements, InvalidArgument,
               "To create a view Tensor, requested shape need to have the same volume as the "
               "batch, requested: ",
               volume(want), " expected: ", elements);
  TensorT r;
  r.tensor.storage = t.num_samples() ? t.tensor(0).storage : nullptr;
  r.tensor.data = t.num_samples() ? t.raw_data() : nullptr;
  r.tensor.shape = want;
  r.tensor.dtype = t.dtype();
  r.tensor.kind = t.kind();
  r.tensor.device = t.device();
  r.owner = l.owner;
  return r;
}

// Copies the samples back to back to an external address.
void copy_list_out(const PyTensorList& l, nb::handle ptr, nb::handle stream, bool non_blocking) {
  auto* dst = static_cast<char*>(external_pointer(ptr));
  const TensorList& t = l.list;
  bool device = t.kind() == MemoryKind::kDevice;
  if (!device) {
    for (int i = 0; i < t.num_samples(); ++i) {
      std::memcpy(dst, t.raw_sample(i), t.sample_bytes(i));
      dst += t.sample_bytes(i);
    }
    return;
  }
  cuda::DeviceGuard guard(t.device());
  cuda::StreamHandle s = stream_from_python(stream);
  if (l.owner && l.owner->ready) cuda::stream_wait_event(s, l.owner->ready->get());
  for (int i = 0; i < t.num_samples(); ++i) {
    if (t.sample_bytes(i)) cuda::memcpy_async(dst, t.raw_sample(i), t.sample_bytes(i), s);
    dst += t.sample_bytes(i);
  }
  if (!non_blocking) cuda::stream_synchronize(s);
}

bool is_empty_list(nb::handle data) {
  return (nb::isinstance<nb::list>(data) || nb::isinstance<nb::tuple>(data)) && nb::len(data) == 0;
}

template <typename L>
L make_list(nb::handle data, nb::handle layout, bool gpu, int device) {
  L l;
  l.list = batch_from_python(data, layout, gpu, device);
  l.typed = !is_empty_list(data);
  return l;
}

template <typename L, typename TensorT>
L broadcast(const TensorT& t, int n, bool gpu) {
  SLUICE_CHECK(n >= 0, InvalidArgument, "broadcast: the number of samples must not be negative");
  L l;
  l.list = TensorList(t.tensor.kind, t.tensor.device);
  l.list.resize(std::vector<Shape>(n, t.tensor.shape), t.tensor.dtype);
  if (t.owner && t.owner->ready) t.owner->ready->synchronize();
  for (int i = 0; i < n; ++i) {
    if (!t.tensor.nbytes()) continue;
    if (gpu) {
      cuda::memcpy_async(l.list.raw_sample(i), t.tensor.data, t.tensor.nbytes(), nullptr);
    } else {
      std::memcpy(l.list.raw_sample(i), t.tensor.data, t.tensor.nbytes());
    }
  }
  if (gpu) cuda::stream_synchronize(nullptr);
  l.list.set_layout(t.tensor.layout);
  return l;
}

template <typename L, typename TensorT>
void bind_list_common(nb::class_<L>& c, bool gpu, const char* name) {
  c.def("__len__", [](const L& t) { return t.list.num_samples(); })
      .def(
          "shape", [](const L& t) { return shapes_of(t.list); }, "Shape of each sample.")
      .def_prop_ro("dtype",
                   [](const L& t) { return t.typed ? dtype_enum(t.list.dtype()) : no_type_enum(); })
      .def("layout", [](const L& t) { return t.list.layout(); })
      .def(
          "set_layout",
          [](L& t, nb::handle layout) {
            std::string l = layout.is_none() ? "" : nb::cast<std::string>(nb::str(layout));
            check_layout(l, static_cast<size_t>(t.list.sample_ndim()), "TensorList");
            t.list.set_layout(l);
          },
          nb::arg("layout").none())
      .def("ndim", [](const L& t) { return t.list.sample_ndim(); })
      .def("is_dense_tensor", [](const L& t) { return t.list.is_dense(); })
      .def("data_ptr",
           [](const L& t) {
             return reinterpret_cast<uintptr_t>(t.list.num_samples() ? t.list.raw_sample(0)
                                                                     : nullptr);
           })
      .def(
          "source_info",
          [](const L& t) {
            std::vector<std::string> src(t.list.num_samples());
            for (int i = 0; t.owner && i < t.list.num_samples() &&
                            i < static_cast<int>(t.owner->batch.samples.size());
                 ++i) {
              src[i] = t.owner->batch.samples[i].source;
            }
            return src;
          },
          "The file each sample came from (empty when not from a reader).")
      .def(
          "__getitem__",
          [name](const L& t, int64_t i) {
            return wrap_tensor<TensorT>(t, sample_index(t.list, i, true, name));
          },
          "Sample i (negative: from the end).")
      .def(
          "as_tensor", [](const L& t) { return as_tensor<TensorT>(t); },
          "The dense batch as one tensor sharing its memory (layout with 'N' first).")
      .def(
          "as_reshaped_tensor",
          [](const L& t, const std::vector<int64_t>& shape) {
            return as_reshaped_tensor<TensorT>(t, shape);
          },
          "The contiguous batch's elements as one tensor of `shape`, sharing its memory.")
      .def(
          "copy_to_external",
          [](const L& t, nb::handle ptr, nb::handle stream, bool non_blocking, bool) {
            copy_list_out(t, ptr, stream, non_blocking);
          },
          nb::arg("ptr"), nb::arg("cuda_stream") = nb::none(), nb::arg("non_blocking") = false,
          nb::arg("use_copy_kernel") = false,
          "Copies the samples back to back to an external address (int or ctypes.c_void_p).")
      .def("reset",
           [](L& t) {
             t.list = TensorList(t.list.kind(), t.list.device());
             t.owner.reset();
             t.typed = false;
           })
      .def_static(
          "broadcast", [gpu](const TensorT& t, int n) { return broadcast<L>(t, n, gpu); },
          "A batch of n copies of the tensor.")
      .def("__str__", [](nb::handle self) { return format_batch(self, true); })
      .def("__repr__", [](nb::handle self) { return format_batch(self, false); })
      .def(
          "__dlpack__",
          [](const L& t, nb::handle stream, nb::handle max_version, nb::handle, nb::handle) {
            return export_dlpack(list_view(t), t.owner, stream, max_version);
          },
          nb::arg("stream") = nb::none(), nb::arg("max_version") = nb::none(),
          nb::arg("dl_device") = nb::none(), nb::arg("copy") = nb::none())
      .def("__dlpack_device__", [](const L& t) { return dlpack_device(list_view(t)); });
}

PyTensorListGPU copy_to_gpu(const PyTensorListCPU& t, int device, uintptr_t stream) {
  // Through pinned staging, asynchronously on `stream` (e.g. a side stream of the
  // consumer's): both buffers come from Sluice's pools and are freed stream-ordered.
  SLUICE_CHECK(t.list.is_contiguous(), InvalidArgument, "copy_to_gpu needs a contiguous batch");
  auto s = reinterpret_cast<cuda::StreamHandle>(stream);
  SLUICE_CHECK(s != nullptr, InvalidArgument,
               "copy_to_gpu needs a CUDA stream (not the legacy default stream)");
  cuda::DeviceGuard guard(device);
  TensorList staging(MemoryKind::kPinned);
  staging.set_stream(s);
  staging.copy_from(t.list, nullptr);  // host -> pinned (a CPU copy)
  PyTensorListGPU g;
  g.list = TensorList(MemoryKind::kDevice, device);
  g.list.set_stream(s);
  g.list.copy_from(staging, s);  // pinned -> device, asynchronous
  g.owner = std::make_shared<Outputs>();
  g.owner->batch = t.owner ? t.owner->batch : BatchInfo();
  g.owner->stream = s;
  g.owner->ready = std::make_shared<cuda::Event>(device);
  g.owner->ready->record(s);
  return g;
}

}  // namespace

View list_view(const PyTensorList& l) {
  const TensorList& t = l.list;
  SLUICE_CHECK(t.is_dense(), InvalidArgument,
               "The batch must be representable as a tensor - it must have uniform shape and be "
               "allocated in contiguous memory (samples differ in shape here); export samples "
               "one by one, e.g. [torch.from_dlpack(t) for t in batch]");
  View v;
  v.storage = t.num_samples() ? t.tensor(0).storage : nullptr;
  v.data = t.num_samples() ? t.raw_data() : nullptr;
  v.shape = {t.num_samples()};
  if (t.num_samples()) v.shape.insert(v.shape.end(), t.shape(0).begin(), t.shape(0).end());
  v.dtype = t.dtype();
  v.kind = t.kind();
  v.device = t.device();
  return v;
}

nb::object wrap_tensor_list(TensorList list, std::shared_ptr<Outputs> owner) {
  if (list.kind() == MemoryKind::kDevice) {
    PyTensorListGPU g;
    g.list = std::move(list);
    g.owner = std::move(owner);
    return nb::cast(std::move(g));
  }
  PyTensorListCPU c;
  c.list = std::move(list);
  c.owner = std::move(owner);
  return nb::cast(std::move(c));
}

void register_tensor_lists(nb::module_& m) {
  auto lcpu = nb::class_<PyTensorListCPU>(m, "TensorListCPU", "A batch on the CPU.");
  bind_list_common<PyTensorListCPU, PyTensorCPU>(lcpu, false, "TensorListCPU");
  lcpu.def(
          "__init__",
          [](PyTensorListCPU* self, nb::handle data, nb::handle layout, bool, bool) {
            new (self) PyTensorListCPU(make_list<PyTensorListCPU>(data, layout, false, -1));
          },
          nb::arg("data"), nb::arg("layout") = nb::none(), nb::arg("is_pinned") = false,
          nb::arg("contiguous") = true,
          "A copy of an array with a leading batch dimension, a DLPack capsule, a TensorList, "
          "or a list of per-sample arrays, capsules, torch tensors or TensorCPU.")
      .def_static(
          "from_dlpack_list",
          [](nb::list objects, nb::handle layout, bool) {
            return make_list<PyTensorListCPU>(objects, layout, false, -1);
          },
          nb::arg("list_of_objects"), nb::arg("layout") = nb::none(), nb::arg("contiguous") = false)
      .def(
          "at",
          [](const PyTensorListCPU& t, int64_t i) {
            int j = sample_index(t.list, i, false, "TensorListCPU");
            return to_numpy(tensor_view(wrap_tensor<PyTensorCPU>(t, j)));
          },
          "Sample i as a numpy array sharing the batch's memory.")
      .def("as_array", [](const PyTensorListCPU& t) { return to_numpy(list_view(t)); })
      .def(
          "__array__",
          [](const PyTensorListCPU& t, nb::handle, nb::handle) { return to_numpy(list_view(t)); },
          nb::arg("dtype") = nb::none(), nb::arg("copy") = nb::none())
      .def(
          "as_cpu", [](nb::handle self) { return nb::borrow(self); },
          "Passthrough, as it is already a TensorListCPU.")
      .def("copy_to_gpu", &copy_to_gpu, nb::arg("device"), nb::arg("stream"),
           "An asynchronous copy of this batch on the GPU, ordered on `stream`.");

  auto lgpu = nb::class_<PyTensorListGPU>(m, "TensorListGPU", "A batch on the GPU.");
  bind_list_common<PyTensorListGPU, PyTensorGPU>(lgpu, true, "TensorListGPU");
  lgpu.def(
          "__init__",
          [](PyTensorListGPU* self, nb::handle data, nb::handle layout, int device_id) {
            int device = device_id >= 0 ? device_id : cuda::current_device();
            if (data.is_none()) {
              new (self) PyTensorListGPU();
              self->list = TensorList(MemoryKind::kDevice, device);
              self->typed = false;
              return;
            }
            new (self) PyTensorListGPU(make_list<PyTensorListGPU>(data, layout, true, device));
          },
          nb::arg("data") = nb::none(), nb::arg("layout") = nb::none(), nb::arg("device_id") = -1,
          "A copy, in device memory, of a DLPack capsule, a TensorList, an object with "
          "__dlpack__ or __cuda_array_interface__, or a list of them.")
      .def_static(
          "from_dlpack_list",
          [](nb::list objects, nb::handle layout, nb::handle, bool) {
            return make_list<PyTensorListGPU>(objects, layout, true, cuda::current_device());
          },
          nb::arg("list_of_objects"), nb::arg("layout") = nb::none(),
          nb::arg("stream") = nb::none(), nb::arg("contiguous") = false)
      .def("device_id", [](const PyTensorListGPU& t) { return t.list.device(); })
      .def(
          "at",
          [](const PyTensorListGPU& t, int64_t i) {
            return wrap_tensor<PyTensorGPU>(t, sample_index(t.list, i, false, "TensorListGPU"));
          },
          "Sample i (as t[i]).")
      .def(
          "as_cpu",
          [](const PyTensorListGPU& t) {
            PyTensorListCPU c;
            if (t.owner && t.owner->ready) t.owner->ready->synchronize();
            c.list = TensorList(MemoryKind::kHost);
            c.list.copy_from(t.list, nullptr);
            cuda::stream_synchronize(nullptr);
            c.list.set_layout(t.list.layout());
            c.owner = t.owner;
            c.typed = t.typed;
            return c;
          },
          "Copies the batch to host memory.")
      .def_prop_ro("__cuda_array_interface__", [](const PyTensorListGPU& t) {
        return cuda_array_interface(list_view(t), t.owner);
      });
}

}  // namespace sluice::python
