// The Pipeline backend (built from a serialised graph document) and the schema table that the
// Python front end generates fn.* / ops.* from.

#include <Python.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <chrono>
#include <set>
#include <string>

#include "bindings.h"
#include "sluice/exec/pipeline.h"
#include "sluice/graph/schema_registry.h"

namespace sluice::python {
namespace {

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

  Executor& ex() {
    SLUICE_CHECK(pipe_, Error, "this pipeline has been closed");
    return pipe_->executor();
  }

  void schedule_run() {
    Executor& e = ex();
    nb::gil_scoped_release nogil;
    e.schedule_run();
  }

  // Returns (outputs, batch info). Waits without the GIL, checking for Ctrl-C every 50 ms.
  nb::tuple share_outputs() {
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

  void release_outputs() { ex().release_outputs(); }

  void reset() {
    Executor& e = ex();
    nb::gil_scoped_release nogil;
    e.reset();
  }

  void feed_input(const std::string& name, nb::handle data, const std::string& layout) {
    Executor& e = ex();
    int i = e.graph().find_op(name);
    SLUICE_CHECK(i >= 0, InvalidArgument, "feed_input: no operator named '", name, "'");
    bool gpu = e.graph().ops[i].device != OpDevice::kCPU;
    e.feed(name, tensor_list_from_python(data, layout, gpu, e.params().device_id));
  }

  void close() {
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

void register_pipeline(nb::module_& m) {
  nb::class_<PyPipeline>(m, "PipelineBackend", "A built pipeline (see sluice.Pipeline).")
      .def(nb::init<const std::string&, const std::string&>(), nb::arg("document"),
           nb::arg("overrides") = "")
      .def("schedule_run", &PyPipeline::schedule_run)
      .def("share_outputs", &PyPipeline::share_outputs)
      .def("release_outputs", &PyPipeline::release_outputs)
      .def("reset", &PyPipeline::reset)
      .def("feed_input", &PyPipeline::feed_input, nb::arg("name"), nb::arg("data"),
           nb::arg("layout") = "")
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
