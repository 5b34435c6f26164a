// The Pipeline backend (built from a serialised graph document) and the schema table that the
// Python front end generates fn.* / ops.* from.

#include <Python.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <atomic>
#include <chrono>
#include <optional>
#include <set>
#include <string>

#include "bindings.h"
#include "sluice/core/mutex.h"
#include "sluice/cuda/cuda_api.h"
#include "sluice/exec/pipeline.h"
#include "sluice/graph/schema_registry.h"

namespace sluice::python {
namespace {

// Note [Borrowed feeds]
// feed_input(no_copy=True) hands the engine the fed arrays' own memory: each Buffer borrows it
// and keeps the fed Python object alive. The last reference to such a buffer can go on any
// thread - an engine thread, or one holding the executor's mutex while it drops an iteration -
// where running Python code (the object's finalisers: a parallel source's shared-memory lease
// returning its chunk to a worker) could deadlock or re-enter the engine. So releasing only
// queues the object; the queue is emptied under the GIL at the binding's entry points, where no
// engine lock is held, and by a pending call that Python runs in its main thread between two
// bytecodes (where no binding code runs), so that what the user dropped goes soon.
class BorrowedFeeds {
 public:
  static std::shared_ptr<const void> hold(nb::handle obj) {
    PyObject* o = obj.ptr();
    Py_INCREF(o);
    return std::shared_ptr<const void>(o, [](const void* p) {
      BorrowedFeeds& q = instance();
      {
        MutexLock lock(q.mu_);
        q.released_.push_back(static_cast<PyObject*>(const_cast<void*>(p)));
      }
      if (!q.drain_pending_.exchange(true) && Py_AddPendingCall(&pending_drain, nullptr) != 0)
        q.drain_pending_ = false;  // Python's queue is full: the next binding call drains
    });
  }

  // With the GIL held and no engine lock.
  static void drain() {
    BorrowedFeeds& q = instance();
    q.drain_pending_ = false;
    std::vector<PyObject*> released;
    {
      MutexLock lock(q.mu_);
      released.swap(q.released_);
    }
    for (PyObject* o : released) Py_DECREF(o);
  }

 private:
  static BorrowedFeeds& instance() {
    static auto* q = new BorrowedFeeds;  // leaked: engine threads may release after exit
    return *q;
  }

  static int pending_drain(void*) {
    drain();
    return 0;
  }

  Mutex mu_;
  std::vector<PyObject*> released_ SLUICE_GUARDED_BY(mu_);
  std::atomic<bool> drain_pending_{false};
};

// Drains the released borrowed feeds when the binding call returns.
struct DrainOnExit {
  ~DrainOnExit() { BorrowedFeeds::drain(); }
};

// Data fed with no_copy: a TensorList over the arrays' memory (one buffer when the samples lie
// back to back, as a worker writes them or a batch given as one array), or nullopt when the data
// cannot be borrowed (arrays on another device, non-contiguous ones, other objects): then it is
// copied. Device arrays are borrowed after the legacy default stream is synchronised, which is
// what the copy would have waited for.
template <typename Device>
std::optional<TensorList> borrow_batch(nb::handle data, const std::string& layout, MemoryKind kind,
                                       int device) {
  using Array = nb::ndarray<nb::ro, nb::c_contig, Device>;
  std::vector<Array> arrays;
  const bool batched = !nb::isinstance<nb::list>(data) && !nb::isinstance<nb::tuple>(data);
  try {
    if (batched) {
      arrays.push_back(nb::cast<Array>(data));
    } else {
      for (nb::handle item : data) arrays.push_back(nb::cast<Array>(item));
    }
  } catch (const nb::cast_error&) {
    return std::nullopt;
  }
  if (arrays.empty() || (batched && arrays[0].ndim() == 0)) return std::nullopt;
  const DType dtype = dtype_from_dl(arrays[0].dtype().code, arrays[0].dtype().bits);
  std::vector<Shape> shapes;
  std::vector<char*> ptrs;
  for (const Array& a : arrays) {
    if (dtype_from_dl(a.dtype().code, a.dtype().bits) != dtype) return std::nullopt;
    if (kind == MemoryKind::kDevice && a.device_id() != device) return std::nullopt;
    Shape s;
    for (size_t d = batched ? 1 : 0; d < a.ndim(); ++d)
      s.push_back(static_cast<int64_t>(a.shape(d)));
    const size_t n = batched ? a.shape(0) : 1;
    const size_t bytes = static_cast<size_t>(volume(s)) * dtype_size(dtype);
    for (size_t i = 0; i < n; ++i) {
      shapes.push_back(s);
      ptrs.push_back(static_cast<char*>(const_cast<void*>(a.data())) + i * bytes);
    }
  }
  if (kind == MemoryKind::kDevice) cuda::stream_synchronize(nullptr);
  std::shared_ptr<const void> owner = BorrowedFeeds::hold(data);
  const int buffer_device = kind == MemoryKind::kDevice ? device : -1;
  TensorList list(kind, buffer_device);
  std::vector<std::shared_ptr<Buffer>> buffers;
  size_t total = 0;
  bool adjacent = true;
  for (size_t i = 0; i < ptrs.size(); ++i) {
    const size_t bytes = static_cast<size_t>(volume(shapes[i])) * dtype_size(dtype);
    adjacent = adjacent && ptrs[i] == ptrs[0] + total;
    total += bytes;
    buffers.push_back(Buffer::borrow(ptrs[i], bytes, kind, buffer_device, owner));
  }
  if (adjacent) buffers = {Buffer::borrow(ptrs[0], total, kind, buffer_device, owner)};
  list.share(std::move(shapes), dtype, std::move(buffers));
  if (!layout.empty()) list.set_layout(layout);
  return list;
}

nb::object json_to_python(const nlohmann::json& j) {
  static nb::handle loads =
      nb::object(nb::module_::import_("json").attr("loads")).release();  // leaked
  // Bytes that are not UTF-8 (a codec's message, a file name) become U+FFFD, not an exception.
  return loads(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

// warnings.warn(message, category): raises when the warnings filter makes it an error.
void warn(nb::handle message, nb::handle category) {
  static nb::handle warn_fn =
      nb::object(nb::module_::import_("warnings").attr("warn")).release();  // leaked
  warn_fn(message, category);
}

nlohmann::json parse_json(const std::string& s) {
  if (s.empty()) return nlohmann::json();
  try {
    return nlohmann::json::parse(s);
  } catch (const nlohmann::json::exception& e) {
    throw InvalidArgument(make_string("invalid JSON: ", e.what()));
  }
}

class PyPipeline {
 public:
  PyPipeline(const std::string& document, const std::string& overrides) {
    nlohmann::json o = parse_json(overrides);
    {
      nb::gil_scoped_release nogil;
      pipe_ = Pipeline::deserialize(document, o);
    }
    for (const OpSpec& op : pipe_->executor().graph().ops) {
      if (op.has_arg("on_error") && op.arg<std::string>("on_error") == "skip") skipping_ = true;
    }
  }

  // Without the GIL: a stage thread running a Python function may be waiting for it.
  ~PyPipeline() {
    if (!pipe_) return;
    nb::gil_scoped_release nogil;
    pipe_.reset();
  }
  PyPipeline(const PyPipeline&) = delete;
  PyPipeline& operator=(const PyPipeline&) = delete;

  Executor& ex() {
    SLUICE_CHECK(pipe_, Error, "this pipeline has been closed");
    return pipe_->executor();
  }

  void schedule_run() {
    DrainOnExit drain;
    Executor& e = ex();
    nb::gil_scoped_release nogil;
    e.schedule_run();
  }

  // Returns (outputs, batch info). Waits without the GIL, checking for Ctrl-C every 50 ms.
  nb::tuple share_outputs() {
    DrainOnExit drain;
    Executor& e = ex();
    for (;;) {
      bool ready;
      {
        nb::gil_scoped_release nogil;
        ready = e.wait_for_outputs(std::chrono::milliseconds(50));
      }
      if (ready) break;
      if (PyErr_CheckSignals() != 0) throw nb::python_error();
    }
    std::shared_ptr<Outputs> out;
    {
      nb::gil_scoped_release nogil;
      out = e.share_outputs();
    }
    warn_skipped_files();
    nb::list tensors;
    for (const auto& t : out->tensors) tensors.append(wrap_tensor_list(t, out));
    const BatchInfo& b = out->batch;
    nb::dict info;
    info["iteration"] = b.iteration;
    info["size"] = b.size;
    info["from_reader"] = b.from_reader;
    info["epoch"] = b.epoch;
    info["batch_in_epoch"] = b.batch_in_epoch;
    info["batches_per_epoch"] = b.batches_per_epoch;
    info["num_valid"] = b.num_valid;
    info["complete_on_all_shards"] = b.complete_on_all_shards;
    return nb::make_tuple(tensors, info);
  }

  void release_outputs() {
    DrainOnExit drain;
    ex().release_outputs();
  }

  void reset() {
    DrainOnExit drain;
    Executor& e = ex();
    nb::gil_scoped_release nogil;
    e.reset();
  }

  void feed_input(const std::string& name, nb::handle data, const std::string& layout,
                  bool no_copy) {
    DrainOnExit drain;
    Executor& e = ex();
    int i = e.graph().find_op(name);
    SLUICE_CHECK(i >= 0, InvalidArgument, "feed_input: no operator named '", name, "'");
    bool gpu = e.graph().ops[i].device != OpDevice::kCPU;
    std::optional<TensorList> borrowed;
    if (no_copy && !gpu) {
      borrowed = borrow_batch<nb::device::cpu>(data, layout, MemoryKind::kHost, -1);
    } else if (no_copy) {
      borrowed =
          borrow_batch<nb::device::cuda>(data, layout, MemoryKind::kDevice, e.params().device_id);
    }
    e.feed(name, borrowed ? std::move(*borrowed)
                          : tensor_list_from_python(data, layout, gpu, e.params().device_id));
  }

  void close() {
    DrainOnExit drain;
    std::unique_ptr<Pipeline> p = std::move(pipe_);
    nb::gil_scoped_release nogil;
    p.reset();
  }

  // on_error="skip": a Python warning for each file a decoder skipped, once per file.
  void warn_skipped_files() {
    if (!skipping_) return;
    const nlohmann::json stats = ex().statistics();  // not a temporary: items() refers to it
    for (const auto& [op, s] : stats.items()) {
      auto files = s.find("skipped_files");
      if (files == s.end()) continue;
      for (const auto& [file, error] : files->items()) {
        if (!warned_.insert(file).second) continue;
        std::string msg = make_string("operator '", op, "' (on_error='skip') skipped '", file,
                                      "': ", error.get<std::string>());
        // A codec's message can hold bytes of the file that are not UTF-8.
        nb::object text = nb::steal(
            PyUnicode_DecodeUTF8(msg.data(), static_cast<Py_ssize_t>(msg.size()), "replace"));
        if (!text.is_valid()) throw nb::python_error();
        warn(text, nb::handle(PyExc_RuntimeWarning));
      }
    }
  }

  std::unique_ptr<Pipeline> pipe_;
  bool skipping_ = false;         // a decoder has on_error="skip"
  std::set<std::string> warned_;  // the files warn_skipped_files() named
};

}  // namespace

std::shared_ptr<const void> hold_python_object(nb::handle obj) {
  return BorrowedFeeds::hold(obj);
}

void register_pipeline(nb::module_& m) {
  nb::class_<PyPipeline>(m, "PipelineBackend", "A built pipeline (see sluice.Pipeline).")
      .def(nb::init<const std::string&, const std::string&>(), nb::arg("document"),
           nb::arg("overrides") = "")
      .def("schedule_run", &PyPipeline::schedule_run)
      .def("share_outputs", &PyPipeline::share_outputs)
      .def("release_outputs", &PyPipeline::release_outputs)
      .def("reset", &PyPipeline::reset)
      .def("feed_input", &PyPipeline::feed_input, nb::arg("name"), nb::arg("data"),
           nb::arg("layout") = "", nb::arg("no_copy") = false)
      .def("close", &PyPipeline::close)
      .def("serialize",
           [](PyPipeline& p) {
             SLUICE_CHECK(p.pipe_, Error, "this pipeline has been closed");
             return p.pipe_->serialize();
           })
      .def("reader_meta",
           [](PyPipeline& p, const std::string& name) {
             return json_to_python(p.ex().reader_meta(name));
           })
      .def("reader_names", [](PyPipeline& p) { return p.ex().reader_names(); })
      .def("executor_statistics", [](PyPipeline& p) { return json_to_python(p.ex().statistics()); })
      .def("pipeline_statistics",
           [](PyPipeline& p) { return json_to_python(p.ex().pipeline_statistics()); })
      .def("output_devices",
           [](PyPipeline& p) {
             std::vector<std::string> d;
             for (auto t : p.ex().graph().output_devices)
               d.push_back(t == TensorDevice::kGPU ? "gpu" : "cpu");
             return d;
           })
      .def("dot",
           [](PyPipeline& p, bool show_tensors, bool show_ids, bool use_colors) {
             return graph_to_dot(p.ex().graph(), show_tensors, show_ids, use_colors);
           })
      .def_prop_ro("seed", [](PyPipeline& p) { return p.pipe_->params().seed; })
      .def_prop_ro("stream",
                   [](PyPipeline& p) { return reinterpret_cast<uintptr_t>(p.ex().stream()); });

  m.def("release_borrowed_feeds", &BorrowedFeeds::drain,
        "Releases the objects fed with no_copy that the engine no longer uses (Note [Borrowed "
        "feeds]); the pipeline's calls do it too.");
  m.def(
      "schemas",
      [] {
        nlohmann::json all = nlohmann::json::array();
        for (const OpSchema* s : SchemaRegistry::instance().all()) all.push_back(s->describe());
        return json_to_python(all);
      },
      "Every registered operator schema (name, doc, inputs, outputs, arguments, devices).");
  m.def(
      "validate_args",
      [](const std::string& type, const std::string& args) {
        const OpSchema& s = SchemaRegistry::instance().get(type);
        s.coerce_args(parse_json(args));
      },
      "Checks an operator's arguments; raises naming the operator and argument.");
  m.def("infer_device", [](const std::string& type, const std::vector<std::string>& inputs) {
    std::vector<TensorDevice> in;
    for (const auto& d : inputs) in.push_back(d == "gpu" ? TensorDevice::kGPU : TensorDevice::kCPU);
    return std::string(op_device_name(infer_device(SchemaRegistry::instance().get(type), in)));
  });
}

}  // namespace sluice::python
