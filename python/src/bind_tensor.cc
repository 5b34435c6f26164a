// TensorListCPU / TensorListGPU / TensorCPU / TensorGPU: outputs handed to Python, with
// zero-copy exchange through DLPack (__dlpack__ with the stream handshake, in bind_dlpack.cc),
// the numpy array protocol (__array__) and __cuda_array_interface__.

#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstring>

#include "bindings.h"
#include "sluice/core/error.h"

namespace sluice::python {
namespace {

struct PyTensorListCPU : PyTensorList {};
struct PyTensorListGPU : PyTensorList {};
struct PyTensorCPU : PyTensor {};
struct PyTensorGPU : PyTensor {};

nb::object dtype_enum(DType t) {
  // Leaked on purpose: a static nb::object would be released after the interpreter is gone.
  static nb::handle enum_type =
      nb::object(nb::module_::import_("sluice.types").attr("DALIDataType")).release();
  return enum_type(static_cast<int>(t));
}

View list_view(const PyTensorList& l) {
  const TensorList& t = l.list;
  SLUICE_CHECK(t.is_dense(), InvalidArgument,
               "this batch is not a dense tensor (samples differ in shape); export samples one "
               "by one, e.g. [torch.from_dlpack(t) for t in batch]");
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
  static const char* kTypestr[] = {"|b1", "|u1", "|i1", "<u2", "<i2", "<u4",
                                   "<i4", "<i8", "<f2", "<V2", "<f4", "<f8"};
  nb::dict d;
  nb::list shape;
  for (auto s : v.shape) shape.append(s);
  d["shape"] = nb::tuple(shape);
  d["typestr"] = kTypestr[static_cast<int>(v.dtype)];
  d["data"] = nb::make_tuple(reinterpret_cast<uintptr_t>(v.data), false);
  d["version"] = 3;
  d["strides"] = nb::none();
  // Consumers synchronise with this stream; the data is final once its queued work is done.
  if (owner && owner->stream) d["stream"] = reinterpret_cast<uintptr_t>(owner->stream);
  return d;
}

TensorList copy_to_host(const TensorList& src, const std::shared_ptr<Outputs>& owner) {
  TensorList out(MemoryKind::kHost);
  if (owner && owner->ready) owner->ready->synchronize();
  out.copy_from(src, nullptr);
  cuda::stream_synchronize(nullptr);
  return out;
}

nb::list shapes_of(const TensorList& t) {
  nb::list out;
  for (const auto& s : t.shapes()) {
    nb::list dims;
    for (auto d : s) dims.append(d);
    out.append(nb::tuple(dims));
  }
  return out;
}

template <typename T>
nb::object wrap_tensor(const TensorList& list, int i, const std::shared_ptr<Outputs>& owner) {
  SLUICE_CHECK(i >= 0 && i < list.num_samples(), InvalidArgument, "sample index ", i,
               " out of range for a batch of ", list.num_samples());
  T t;
  t.tensor = list.tensor(i);
  t.owner = owner;
  return nb::cast(std::move(t));
}

template <typename T>
void bind_tensor_common(nb::class_<T>& c) {
  c.def("shape",
        [](const T& t) {
          nb::list dims;
          for (auto d : t.tensor.shape) dims.append(d);
          return nb::tuple(dims);
        })
      .def_prop_ro("dtype", [](const T& t) { return dtype_enum(t.tensor.dtype); })
      .def("layout", [](const T& t) { return t.tensor.layout; })
      .def("data_ptr", [](const T& t) { return reinterpret_cast<uintptr_t>(t.tensor.data); })
      .def(
          "__dlpack__",
          [](const T& t, nb::handle stream, nb::handle max_version, nb::handle, nb::handle) {
            return export_dlpack(tensor_view(t), t.owner, stream, max_version);
          },
          nb::arg("stream") = nb::none(), nb::arg("max_version") = nb::none(),
          nb::arg("dl_device") = nb::none(), nb::arg("copy") = nb::none())
      .def("__dlpack_device__", [](const T& t) { return dlpack_device(tensor_view(t)); });
}

template <typename T>
void bind_list_common(nb::class_<T>& c) {
  c.def("__len__", [](const T& t) { return t.list.num_samples(); })
      .def("shape", [](const T& t) { return shapes_of(t.list); })
      .def_prop_ro("dtype", [](const T& t) { return dtype_enum(t.list.dtype()); })
      .def("layout", [](const T& t) { return t.list.layout(); })
      .def("is_dense_tensor", [](const T& t) { return t.list.is_dense(); })
      .def("data_ptr",
           [](const T& t) {
             return reinterpret_cast<uintptr_t>(t.list.num_samples() ? t.list.raw_sample(0)
                                                                     : nullptr);
           })
      .def(
          "source_info",
          [](const T& t) {
            std::vector<std::string> src(t.list.num_samples());
            if (t.owner) {
              for (int i = 0;
                   i < t.list.num_samples() && i < static_cast<int>(t.owner->batch.samples.size());
                   ++i) {
                src[i] = t.owner->batch.samples[i].source;
              }
            }
            return src;
          },
          "The file each sample came from (empty when not from a reader).")
      .def(
          "__dlpack__",
          [](const T& t, nb::handle stream, nb::handle max_version, nb::handle, nb::handle) {
            return export_dlpack(list_view(t), t.owner, stream, max_version);
          },
          nb::arg("stream") = nb::none(), nb::arg("max_version") = nb::none(),
          nb::arg("dl_device") = nb::none(), nb::arg("copy") = nb::none())
      .def("__dlpack_device__", [](const T& t) { return dlpack_device(list_view(t)); });
}

}  // namespace

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

TensorList tensor_list_from_python(nb::handle data, const std::string& layout, bool to_device,
                                   int device) {
  MemoryKind kind = to_device ? MemoryKind::kDevice : MemoryKind::kHost;
  TensorList out(kind, to_device ? device : -1);
  auto finish = [&](TensorList src) {
    if (src.kind() == kind && (kind != MemoryKind::kDevice || src.device() == device)) {
      if (!layout.empty()) src.set_layout(layout);
      return src;
    }
    out.copy_from(src, nullptr);
    if (kind == MemoryKind::kDevice || src.kind() == MemoryKind::kDevice)
      cuda::stream_synchronize(nullptr);
    if (!layout.empty()) out.set_layout(layout);
    return out;
  };
  if (nb::isinstance<PyTensorListCPU>(data)) return finish(nb::cast<PyTensorListCPU&>(data).list);
  if (nb::isinstance<PyTensorListGPU>(data)) return finish(nb::cast<PyTensorListGPU&>(data).list);

  using Array = nb::ndarray<nb::ro, nb::c_contig>;
  std::vector<Array> arrays;
  bool batched = false;
  if (nb::isinstance<nb::list>(data) || nb::isinstance<nb::tuple>(data)) {
    for (nb::handle item : data) arrays.push_back(nb::cast<Array>(item));
  } else {
    arrays.push_back(nb::cast<Array>(data));
    batched = true;
    SLUICE_CHECK(arrays[0].ndim() >= 1, InvalidArgument,
                 "a batch given as one array needs a leading batch dimension");
  }
  SLUICE_CHECK(!arrays.empty(), InvalidArgument, "a batch needs at least one sample");
  DType dtype = dtype_from_dl(arrays[0].dtype().code, arrays[0].dtype().bits);
  bool on_device = arrays[0].device_type() == nb::device::cuda::value;
  int src_device = arrays[0].device_id();
  std::vector<Shape> shapes;
  std::vector<const void*> ptrs;
  if (batched) {
    const Array& a = arrays[0];
    Shape sample;
    for (size_t d = 1; d < a.ndim(); ++d) sample.push_back(static_cast<int64_t>(a.shape(d)));
    size_t bytes = static_cast<size_t>(volume(sample)) * dtype_size(dtype);
    for (size_t i = 0; i < a.shape(0); ++i) {
      shapes.push_back(sample);
      ptrs.push_back(static_cast<const char*>(a.data()) + i * bytes);
    }
  } else {
    for (const Array& a : arrays) {
      SLUICE_CHECK(dtype_from_dl(a.dtype().code, a.dtype().bits) == dtype, InvalidArgument,
                   "all samples of a batch must have the same data type");
      SLUICE_CHECK((a.device_type() == nb::device::cuda::value) == on_device, InvalidArgument,
                   "all samples of a batch must be on the same device");
      Shape s;
      for (size_t d = 0; d < a.ndim(); ++d) s.push_back(static_cast<int64_t>(a.shape(d)));
      shapes.push_back(s);
      ptrs.push_back(a.data());
    }
  }
  TensorList src(on_device ? MemoryKind::kDevice : MemoryKind::kHost, on_device ? src_device : -1);
  // Copy straight into the destination memory.
  TensorList& dst = out;
  dst.resize(shapes, dtype);
  for (size_t i = 0; i < ptrs.size(); ++i) {
    size_t n = dst.sample_bytes(static_cast<int>(i));
    if (!n) continue;
    if (!on_device && kind == MemoryKind::kHost) {
      std::memcpy(dst.raw_sample(static_cast<int>(i)), ptrs[i], n);
    } else {
      cuda::memcpy_async(dst.raw_sample(static_cast<int>(i)), ptrs[i], n, nullptr);
    }
  }
  if (on_device || kind == MemoryKind::kDevice) cuda::stream_synchronize(nullptr);
  if (!layout.empty()) dst.set_layout(layout);
  return dst;
}

void register_tensors(nb::module_& m) {
  auto tcpu = nb::class_<PyTensorCPU>(m, "TensorCPU", "One sample (or a dense batch) on the CPU.");
  bind_tensor_common(tcpu);
  tcpu.def(
          "__array__",
          [](const PyTensorCPU& t, nb::handle, nb::handle) { return to_numpy(tensor_view(t)); },
          nb::arg("dtype") = nb::none(), nb::arg("copy") = nb::none())
      .def("as_array", [](const PyTensorCPU& t) { return to_numpy(tensor_view(t)); });

  auto tgpu = nb::class_<PyTensorGPU>(m, "TensorGPU", "One sample (or a dense batch) on the GPU.");
  bind_tensor_common(tgpu);
  tgpu.def_prop_ro("device_id", [](const PyTensorGPU& t) { return t.tensor.device; })
      .def_prop_ro(
          "__cuda_array_interface__",
          [](const PyTensorGPU& t) { return cuda_array_interface(tensor_view(t), t.owner); })
      .def("as_cpu", [](const PyTensorGPU& t) {
        TensorList host(MemoryKind::kHost);
        host.resize({t.tensor.shape}, t.tensor.dtype);
        if (t.owner && t.owner->ready) t.owner->ready->synchronize();
        cuda::memcpy_async(host.raw_data(), t.tensor.data, t.tensor.nbytes(), nullptr);
        cuda::stream_synchronize(nullptr);
        host.set_layout(t.tensor.layout);
        PyTensorCPU c;
        c.tensor = host.tensor(0);
        return c;
      });

  auto lcpu = nb::class_<PyTensorListCPU>(m, "TensorListCPU", "A batch on the CPU.");
  bind_list_common(lcpu);
  lcpu.def(
          "__init__",
          [](PyTensorListCPU* self, nb::handle data, const std::string& layout) {
            new (self) PyTensorListCPU();
            self->list = tensor_list_from_python(data, layout, false, -1);
          },
          nb::arg("data"), nb::arg("layout") = "")
      .def(
          "at",
          [](const PyTensorListCPU& t, int i) {
            return to_numpy(
                tensor_view(nb::cast<PyTensorCPU&>(wrap_tensor<PyTensorCPU>(t.list, i, t.owner))));
          },
          "Sample i as a numpy array (zero-copy).")
      .def("__getitem__",
           [](const PyTensorListCPU& t, int i) {
             if (i < 0) i += t.list.num_samples();
             return wrap_tensor<PyTensorCPU>(t.list, i, t.owner);
           })
      .def("as_tensor",
           [](const PyTensorListCPU& t) {
             View v = list_view(t);
             PyTensorCPU c;
             c.tensor = {v.storage, v.data, v.shape, v.dtype, t.list.layout(), v.kind, v.device};
             c.owner = t.owner;
             return c;
           })
      .def("as_array", [](const PyTensorListCPU& t) { return to_numpy(list_view(t)); })
      .def(
          "__array__",
          [](const PyTensorListCPU& t, nb::handle, nb::handle) { return to_numpy(list_view(t)); },
          nb::arg("dtype") = nb::none(), nb::arg("copy") = nb::none());

  lcpu.def(
      "copy_to_gpu",
      [](const PyTensorListCPU& t, int device, uintptr_t stream) {
        // Through pinned staging, asynchronously on `stream` (e.g. a side stream of the
        // consumer's): both buffers come from Sluice's pools and are freed stream-ordered.
        SLUICE_CHECK(t.list.is_contiguous(), InvalidArgument,
                     "copy_to_gpu needs a contiguous batch");
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
      },
      nb::arg("device"), nb::arg("stream"),
      "An asynchronous copy of this batch on the GPU, ordered on `stream`.");

  auto lgpu = nb::class_<PyTensorListGPU>(m, "TensorListGPU", "A batch on the GPU.");
  bind_list_common(lgpu);
  lgpu.def_prop_ro("device_id", [](const PyTensorListGPU& t) { return t.list.device(); })
      .def("at", [](const PyTensorListGPU& t,
                    int i) { return wrap_tensor<PyTensorGPU>(t.list, i, t.owner); })
      .def("__getitem__",
           [](const PyTensorListGPU& t, int i) {
             if (i < 0) i += t.list.num_samples();
             return wrap_tensor<PyTensorGPU>(t.list, i, t.owner);
           })
      .def("as_tensor",
           [](const PyTensorListGPU& t) {
             View v = list_view(t);
             PyTensorGPU g;
             g.tensor = {v.storage, v.data, v.shape, v.dtype, t.list.layout(), v.kind, v.device};
             g.owner = t.owner;
             return g;
           })
      .def(
          "as_cpu",
          [](const PyTensorListGPU& t) {
            PyTensorListCPU c;
            c.list = copy_to_host(t.list, t.owner);
            c.list.set_layout(t.list.layout());
            c.owner = t.owner;
            return c;
          },
          "Copies the batch to host memory.")
      .def_prop_ro("__cuda_array_interface__", [](const PyTensorListGPU& t) {
        return cuda_array_interface(list_view(t), t.owner);
      });
}

}  // namespace sluice::python
