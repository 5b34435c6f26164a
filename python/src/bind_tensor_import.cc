// Python data into tensors: numpy arrays and anything with the buffer protocol, DLPack capsules
// and objects with __dlpack__ (torch, cupy, jax), __cuda_array_interface__ objects, Sluice's own
// tensors, and lists of these, copied into a TensorList in host or device memory. Also DALI's
// data type codes and the small conversions the tensor classes share.

#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <vector>

#include "bindings.h"
#include "sluice/core/error.h"

namespace sluice::python {
namespace {

using Array = nb::ndarray<nb::ro, nb::c_contig>;

// One sample to copy: where its elements are and what they are.
struct Sample {
  const void* data = nullptr;
  Shape shape;
  DType dtype = DType::kUInt8;
  bool on_device = false;
  int device = -1;
  std::optional<std::string> layout;  // a TensorCPU / TensorGPU's own
};

// The samples of a batch, with the arrays that keep them alive until they are copied.
struct Samples {
  std::vector<Sample> items;
  std::vector<Array> keep;
};

DType dtype_from_typestr(const std::string& s) {
  SLUICE_CHECK(s.size() >= 3, InvalidArgument, "bad typestr '", s, "'");
  char kind = s[1];
  int bytes = std::atoi(s.c_str() + 2);
  for (int i = 0; i < kNumDTypes; ++i) {
    auto t = static_cast<DType>(i);
    auto d = dl_dtype(t);
    char k = d.code == dlpack::kDLBool    ? 'b'
             : d.code == dlpack::kDLInt   ? 'i'
             : d.code == dlpack::kDLUInt  ? 'u'
             : d.code == dlpack::kDLFloat ? 'f'
                                          : 'V';
    if (k == kind && static_cast<int>(dtype_size(t)) == bytes) return t;
  }
  throw InvalidArgument(make_string("unsupported __cuda_array_interface__ typestr '", s, "'"));
}

// An object with only __cuda_array_interface__ (numba, older cupy): C-contiguous data only.
bool sample_from_cai(nb::handle h, Sample& s) {
  if (nb::hasattr(h, "__dlpack__") || !nb::hasattr(h, "__cuda_array_interface__")) return false;
  nb::dict d = nb::cast<nb::dict>(h.attr("__cuda_array_interface__"));
  SLUICE_CHECK(!d.contains("strides") || d["strides"].is_none(), InvalidArgument,
               "strided __cuda_array_interface__ data is not supported; make it contiguous");
  for (nb::handle dim : nb::cast<nb::tuple>(d["shape"])) s.shape.push_back(nb::cast<int64_t>(dim));
  s.dtype = dtype_from_typestr(nb::cast<std::string>(d["typestr"]));
  s.data = reinterpret_cast<const void*>(nb::cast<uintptr_t>(nb::cast<nb::tuple>(d["data"])[0]));
  s.on_device = true;
  s.device = cuda::current_device();
  return true;
}

// One array-like object as a sample; false when it is none.
bool sample_from(nb::handle h, Sample& s, Samples& keep) {
  const PyTensor* t = nullptr;
  if (nb::isinstance<PyTensorCPU>(h)) t = &nb::cast<const PyTensorCPU&>(h);
  if (nb::isinstance<PyTensorGPU>(h)) t = &nb::cast<const PyTensorGPU&>(h);
  if (t) {
    s = {t->tensor.data,   t->tensor.shape, t->tensor.dtype, t->tensor.kind == MemoryKind::kDevice,
         t->tensor.device, t->tensor.layout};
    if (t->owner && t->owner->ready) t->owner->ready->synchronize();
    return true;
  }
  if (sample_from_cai(h, s)) return true;
  Array a;
  if (!nb::try_cast<Array>(h, a)) return false;
  s.data = a.data();
  s.shape.clear();
  for (size_t d = 0; d < a.ndim(); ++d) s.shape.push_back(static_cast<int64_t>(a.shape(d)));
  s.dtype = dtype_from_dl(a.dtype().code, a.dtype().bits);
  s.on_device = a.device_type() == nb::device::cuda::value;
  s.device = s.on_device ? a.device_id() : -1;
  keep.keep.push_back(std::move(a));
  return true;
}

// A batch given as one object with a leading batch dimension: its rows as samples.
void split_batched(const Sample& whole, Samples& out) {
  Shape sample(whole.shape.begin() + 1, whole.shape.end());
  size_t bytes = static_cast<size_t>(volume(sample)) * dtype_size(whole.dtype);
  for (int64_t i = 0; i < whole.shape[0]; ++i) {
    Sample s = whole;
    s.shape = sample;
    s.layout.reset();
    s.data = static_cast<const char*>(whole.data) + i * bytes;
    out.items.push_back(std::move(s));
  }
}

// Copies the samples into one contiguous TensorList of `kind`.
TensorList copy_samples(const Samples& in, MemoryKind kind, int device) {
  TensorList dst(kind, kind == MemoryKind::kDevice ? device : -1);
  std::vector<Shape> shapes;
  for (const auto& s : in.items) shapes.push_back(s.shape);
  dst.resize(shapes, in.items.empty() ? DType::kUInt8 : in.items[0].dtype);
  bool device_copy = kind == MemoryKind::kDevice;
  const int count = static_cast<int>(in.items.size());
  for (int i = 0; i < count;) {
    // Samples that lie back to back in the source and the destination (a batch given as one
    // array) go in one copy: a copy call per sample costs more than the bytes of small ones.
    const char* src = static_cast<const char*>(in.items[i].data);
    char* out = static_cast<char*>(dst.raw_sample(i));
    size_t n = dst.sample_bytes(i);
    int j = i + 1;
    for (; j < count && in.items[j].on_device == in.items[i].on_device; ++j) {
      const size_t m = dst.sample_bytes(j);
      if (m && (static_cast<const char*>(in.items[j].data) != src + n ||
                static_cast<char*>(dst.raw_sample(j)) != out + n))
        break;
      n += m;
    }
    if (n && !in.items[i].on_device && kind == MemoryKind::kHost) {
      std::memcpy(out, src, n);
    } else if (n) {
      cuda::memcpy_async(out, src, n, nullptr);
      device_copy = true;
    }
    i = j;
  }
  if (device_copy) cuda::stream_synchronize(nullptr);
  return dst;
}

// A TensorList in the memory asked for: shared when it is there already, else copied.
TensorList moved_to(TensorList src, MemoryKind kind, int device) {
  if (src.kind() == kind && (kind != MemoryKind::kDevice || src.device() == device)) return src;
  TensorList out(kind, kind == MemoryKind::kDevice ? device : -1);
  out.copy_from(src, nullptr);
  if (kind == MemoryKind::kDevice || src.kind() == MemoryKind::kDevice)
    cuda::stream_synchronize(nullptr);
  return out;
}

const TensorList* as_tensor_list(nb::handle h) {
  if (nb::isinstance<PyTensorListCPU>(h)) return &nb::cast<const PyTensorListCPU&>(h).list;
  if (nb::isinstance<PyTensorListGPU>(h)) return &nb::cast<const PyTensorListGPU&>(h).list;
  return nullptr;
}

std::optional<std::string> optional_layout(nb::handle layout) {
  if (!layout.is_valid() || layout.is_none()) return std::nullopt;
  return nb::cast<std::string>(nb::str(layout));
}

const char* class_name(bool to_device, bool list) {
  if (list) return to_device ? "TensorListGPU" : "TensorListCPU";
  return to_device ? "TensorGPU" : "TensorCPU";
}

std::string type_name(DType t) {
  std::string n(dtype_name(t));
  for (auto& c : n) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return n;
}

}  // namespace

void check_layout(const std::string& layout, size_t ndim, const char* what) {
  SLUICE_CHECK(layout.empty() || layout.size() == ndim, InvalidArgument,
               "A non-empty layout must have the same number of dimensions as the number of "
               "dimensions of the ",
               what, ".\nGot: ", layout.size(), " (", layout, ")\nExpected: ", ndim, ".");
}

TensorList tensor_list_from_python(nb::handle data, const std::string& layout, bool to_device,
                                   int device) {
  MemoryKind kind = to_device ? MemoryKind::kDevice : MemoryKind::kHost;
  if (const TensorList* l = as_tensor_list(data)) {
    TensorList out = moved_to(*l, kind, device);
    if (!layout.empty()) out.set_layout(layout);
    return out;
  }
  Samples samples;
  if (nb::isinstance<nb::list>(data) || nb::isinstance<nb::tuple>(data)) {
    size_t i = 0;
    for (nb::handle item : data) {
      Sample s;
      if (!sample_from(item, s, samples))
        throw nb::type_error(make_string("sample ", i, " of the batch is not an array (got ",
                                         nb::inst_name(item).c_str(), ")")
                                 .c_str());
      SLUICE_CHECK(samples.items.empty() || s.dtype == samples.items[0].dtype, InvalidArgument,
                   "all samples of a batch must have the same data type");
      samples.items.push_back(std::move(s));
      ++i;
    }
  } else {
    Sample whole;
    if (!sample_from(data, whole, samples))
      throw nb::type_error(make_string("a batch must be an array, a list of arrays or a "
                                       "TensorList, got ",
                                       nb::inst_name(data).c_str())
                               .c_str());
    SLUICE_CHECK(!whole.shape.empty(), InvalidArgument,
                 "a batch given as one array needs a leading batch dimension");
    split_batched(whole, samples);
  }
  SLUICE_CHECK(!samples.items.empty(), InvalidArgument, "a batch needs at least one sample");
  TensorList out = copy_samples(samples, kind, device);
  if (!layout.empty()) out.set_layout(layout);
  return out;
}

TensorList batch_from_python(nb::handle data, nb::handle layout_arg, bool to_device, int device) {
  MemoryKind kind = to_device ? MemoryKind::kDevice : MemoryKind::kHost;
  const char* what = class_name(to_device, false);
  std::optional<std::string> layout = optional_layout(layout_arg);
  TensorList out(kind, to_device ? device : -1);
  if (const TensorList* l = as_tensor_list(data)) {
    out = moved_to(*l, kind, device);
  } else if (nb::isinstance<nb::list>(data) || nb::isinstance<nb::tuple>(data)) {
    Samples samples;
    size_t i = 0;
    for (nb::handle item : data) {
      Sample s;
      if (!sample_from(item, s, samples))
        throw nb::type_error(
            make_string("Object at position ", i, " cannot be converted to ", what, ".").c_str());
      if (!samples.items.empty()) {
        const Sample& first = samples.items[0];
        if (s.dtype != first.dtype)
          throw nb::type_error(make_string("Tensors cannot have different data types. Tensor at "
                                           "position ",
                                           i, " has type '", type_name(s.dtype),
                                           "' expected to have type '", type_name(first.dtype),
                                           "'.")
                                   .c_str());
        if (s.shape.size() != first.shape.size() || (!layout && s.layout != first.layout))
          throw nb::type_error(make_string("Object at position ", i, " cannot be converted to ",
                                           what,
                                           ": samples must have the same number of "
                                           "dimensions and layout as the first.")
                                   .c_str());
      }
      samples.items.push_back(std::move(s));
      ++i;
    }
    out = copy_samples(samples, kind, device);
    if (!layout && !samples.items.empty()) layout = samples.items[0].layout;
  } else {
    Samples samples;
    Sample whole;
    if (!sample_from(data, whole, samples))
      throw nb::type_error(make_string(class_name(to_device, true),
                                       "(): expected an array, a "
                                       "DLPack capsule, a TensorList or a list of tensors, got ",
                                       nb::inst_name(data).c_str())
                               .c_str());
    SLUICE_CHECK(!whole.shape.empty(), InvalidArgument,
                 "Cannot create TensorList from 0-dim array.");
    split_batched(whole, samples);
    out = copy_samples(samples, kind, device);
  }
  if (layout) {
    check_layout(*layout, static_cast<size_t>(out.sample_ndim()), "TensorList");
    out.set_layout(*layout);
  }
  return out;
}

Tensor tensor_from_python(nb::handle data, nb::handle layout_arg, bool to_device, int device) {
  MemoryKind kind = to_device ? MemoryKind::kDevice : MemoryKind::kHost;
  std::optional<std::string> layout = optional_layout(layout_arg);
  Samples samples;
  Sample s;
  if (!sample_from(data, s, samples))
    throw nb::type_error(make_string(class_name(to_device, false),
                                     "(): expected an array, a "
                                     "DLPack capsule or an object with __dlpack__, got ",
                                     nb::inst_name(data).c_str())
                             .c_str());
  if (!layout) layout = s.layout;
  samples.items.push_back(s);
  Tensor t = copy_samples(samples, kind, device).tensor(0);
  if (layout) {
    check_layout(*layout, t.shape.size(), "Tensor");
    t.layout = *layout;
  }
  return t;
}

int dali_type_code(DType t) {
  switch (t) {
    case DType::kUInt8:
      return 0;
    case DType::kUInt16:
      return 1;
    case DType::kUInt32:
      return 2;
    case DType::kUInt64:
      return 3;
    case DType::kInt8:
      return 4;
    case DType::kInt16:
      return 5;
    case DType::kInt32:
      return 6;
    case DType::kInt64:
      return 7;
    case DType::kFloat16:
      return 8;
    case DType::kFloat32:
      return 9;
    case DType::kFloat64:
      return 10;
    case DType::kBool:
      return 11;
    case DType::kBFloat16:
      return 1001;  // not in DALI 2.4: the first code DALI leaves to types of its own
  }
  throw Error("invalid dtype");
}

DType dtype_from_dali_code(int code) {
  for (int i = 0; i < kNumDTypes; ++i) {
    if (dali_type_code(static_cast<DType>(i)) == code) return static_cast<DType>(i);
  }
  throw InvalidArgument(make_string("DALIDataType ", code, " is not a tensor element type"));
}

nb::object dtype_enum(DType t) {
  // Leaked on purpose: a static nb::object would be released after the interpreter is gone.
  static nb::handle enum_type =
      nb::object(nb::module_::import_("sluice.types").attr("DALIDataType")).release();
  return enum_type(dali_type_code(t));
}

nb::object no_type_enum() {
  return nb::module_::import_("sluice.types").attr("DALIDataType")(-1);
}

void* external_pointer(nb::handle ptr) {
  nb::handle p = ptr;
  nb::object value;
  if (nb::hasattr(ptr, "value")) {  // ctypes.c_void_p
    value = ptr.attr("value");
    p = value;
  }
  SLUICE_CHECK(!p.is_none(), InvalidArgument,
               "copy_to_external: the destination is a null "
               "pointer");
  return reinterpret_cast<void*>(nb::cast<uintptr_t>(p));
}

cuda::StreamHandle stream_from_python(nb::handle stream) {
  if (!stream.is_valid() || stream.is_none()) return nullptr;
  if (nb::hasattr(stream, "cuda_stream")) return stream_from_python(stream.attr("cuda_stream"));
  if (nb::hasattr(stream, "ptr")) return stream_from_python(stream.attr("ptr"));
  if (nb::hasattr(stream, "value")) return stream_from_python(stream.attr("value"));
  return reinterpret_cast<cuda::StreamHandle>(nb::cast<uintptr_t>(stream));
}

nb::object format_tensor(nb::handle self, bool show_data) {
  return nb::module_::import_("sluice.tensors").attr("_tensor_to_string")(self, show_data);
}

nb::object format_batch(nb::handle self, bool show_data) {
  return nb::module_::import_("sluice.tensors").attr("_tensorlist_to_string")(self, show_data);
}

}  // namespace sluice::python
