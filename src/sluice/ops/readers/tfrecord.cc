// readers.tfrecord: tf.train.Example records of TFRecord files, located through DALI's index
// files, one output per requested feature. Framing and CRCs: io/tfrecord.h; the Example's wire
// format and the features' shapes: io/tfrecord_example.h.

#include <nlohmann/json.hpp>

#include "sluice/graph/schema_registry.h"
#include "sluice/io/record_files.h"
#include "sluice/io/s3_dataset.h"
#include "sluice/io/tfrecord.h"
#include "sluice/io/tfrecord_example.h"
#include "sluice/ops/readers/reader.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(add_reader_args(
    OpSchema("readers.tfrecord")
        .doc("Reads tf.train.Example records from TFRecord files. Each file of `path` has an "
             "index file (`index_path`, lines 'offset size', made by `python -m "
             "sluice.tools.tfrecord2idx`). `features` maps output names to "
             "sluice.tfrecord.FixedLenFeature / VarLenFeature; the Python API returns a dict of "
             "one output per feature (int64 -> INT64, float32 -> FLOAT, string -> UINT8 bytes). "
             "A FixedLenFeature absent from a record, or with fewer values than its shape, is "
             "filled with its default value; a VarLenFeature absent is empty.")
        .num_inputs(0, 0)
        .num_outputs_from_arg("feature_names")
        .devices({OpDevice::kCPU})
        .required_arg("path", ArgType::kStringList, "The TFRecord files.")
        .required_arg("index_path", ArgType::kStringList,
                      "One index file per TFRecord file (DALI's tfrecord2idx format).")
        .required_arg("feature_names", ArgType::kStringList,
                      "The features to read, one output each (set by the Python API from the "
                      "keys of `features`).")
        .required_arg("features", ArgType::kStringList,
                      "Their declarations, one JSON object each (set by the Python API from "
                      "sluice.tfrecord features): fixed, dtype, shape, partial_shape, default.")
        .arg("check_crc", ArgType::kBool, false,
             "Verify each record's two masked CRC-32Cs as TensorFlow does (DALI does not: "
             "off by default, so that the files DALI reads are read).")
        .arg("use_o_direct", ArgType::kBool, false,
             "Accepted for compatibility: records are read with pread.")
        .alias("tfrecord_reader")
        .alias("TFRecordReader")));

FeatureSpec parse_feature_spec(const std::string& name, const std::string& text) {
  FeatureSpec f;
  f.name = name;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
    std::string dtype = j.at("dtype").get<std::string>();
    f.fixed = j.at("fixed").get<bool>();
    if (dtype == "int64") {
      f.kind = FeatureKind::kInt64;
      f.default_int = j.value("default", int64_t{0});
    } else if (dtype == "float32") {
      f.kind = FeatureKind::kFloat;
      f.default_float = j.value("default", 0.f);
    } else if (dtype == "string") {
      f.kind = FeatureKind::kBytes;
      f.default_bytes = j.value("default", std::string());
    } else {
      throw InvalidArgument(make_string("unknown dtype '", dtype, "'"));
    }
    f.shape = j.value("shape", Shape{});
    f.partial_shape = j.value("partial_shape", Shape{});
  } catch (const nlohmann::json::exception& e) {
    throw InvalidArgument(make_string("readers.tfrecord: feature '", name,
                                      "': malformed declaration ", text, ": ", e.what()));
  }
  validate_feature_spec(f);
  return f;
}

struct Record {
  uint32_t file;
  int64_t offset;
  int64_t size;
};

class TFRecordReader : public Reader {
 public:
  using Reader::Reader;

  void setup(const OpContext& ctx) override {
    auto paths = spec_.arg<std::vector<std::string>>("path");
    auto index_paths = spec_.arg<std::vector<std::string>>("index_path");
    SLUICE_CHECK(!paths.empty(), InvalidArgument, "readers.tfrecord: no files in `path`");
    SLUICE_CHECK(index_paths.size() == paths.size(), InvalidArgument,
                 "readers.tfrecord: ", paths.size(), " files in `path` but ", index_paths.size(),
                 " in `index_path`: each file needs its index");
    auto names = spec_.arg<std::vector<std::string>>("feature_names");
    auto decls = spec_.arg<std::vector<std::string>>("features");
    SLUICE_CHECK(!names.empty() && names.size() == decls.size(), InvalidArgument,
                 "readers.tfrecord: `feature_names` and `features` must be non-empty and of the "
                 "same length (pass `features` as a dict through the Python API)");
    for (size_t i = 0; i < names.size(); ++i) {
      for (size_t j = 0; j < i; ++j) {
        SLUICE_CHECK(names[j] != names[i], InvalidArgument, "readers.tfrecord: feature '", names[i],
                     "' is named twice");
      }
      specs_.push_back(parse_feature_spec(names[i], decls[i]));
    }
    parser_ = std::make_unique<ExampleParser>(names);
    check_crc_ = spec_.arg<bool>("check_crc");

    files_.open(paths);
    std::vector<uint8_t> text;
    for (size_t f = 0; f < paths.size(); ++f) {
      read_file_or_object(index_paths[f], text, size_t{1} << 34);
      std::string_view view(reinterpret_cast<const char*>(text.data()), text.size());
      for (RecordSpan r : parse_tfrecord_index(view, files_.size(f), index_paths[f])) {
        records_.push_back({static_cast<uint32_t>(f), r.offset, r.size});
      }
    }
    SLUICE_CHECK(!records_.empty(), InvalidArgument,
                 "readers.tfrecord: the index files list no records");
    plan(ctx, static_cast<int64_t>(records_.size()));
  }

  void run(Workspace& ws) override {
    const int n = ws.batch_size();
    const size_t nf = specs_.size();
    if (static_cast<int>(bytes_.size()) < n) {
      bytes_.resize(n);
      values_.resize(n);
    }
    std::vector<Shape> shapes(static_cast<size_t>(n) * nf);
    ws.for_each_sample([&](int i, int) {
      const Record& r = records_[ws.batch().samples[i].id];
      bytes_[i].resize(static_cast<size_t>(r.size));
      files_.read(r.file, r.offset, r.size, bytes_[i].data());
      parser_->parse(tfrecord_payload(bytes_[i], check_crc_, r.offset), values_[i]);
      for (size_t k = 0; k < nf; ++k) shapes[i * nf + k] = feature_shape(specs_[k], values_[i][k]);
    });
    for (size_t k = 0; k < nf; ++k) {
      std::vector<Shape> out_shapes(n);
      for (int i = 0; i < n; ++i) out_shapes[i] = shapes[i * nf + k];
      ws.output(static_cast<int>(k)).resize(std::move(out_shapes), feature_dtype(specs_[k]));
    }
    ws.for_each_sample([&](int i, int) {
      for (size_t k = 0; k < nf; ++k) {
        write_feature(specs_[k], values_[i][k], shapes[i * nf + k],
                      ws.output(static_cast<int>(k)).raw_sample(i));
      }
    });
    if (read_ahead() || files_.remote()) {
      for (int64_t id : next_batch_indices()) {
        const Record& r = records_[id];
        files_.read_ahead(r.file, r.offset, r.size);
      }
    }
  }

 private:
  std::string sample_source(int64_t index) const override {
    const Record& r = records_[index];
    return make_string(files_.path(r.file), " at index ", r.offset);
  }

  std::vector<FeatureSpec> specs_;
  std::unique_ptr<ExampleParser> parser_;
  bool check_crc_ = false;
  RecordFiles files_;
  std::vector<Record> records_;
  std::vector<std::vector<uint8_t>> bytes_;
  std::vector<std::vector<FeatureValues>> values_;
};

SLUICE_REGISTER_OPERATOR("readers.tfrecord", OpDevice::kCPU, TFRecordReader);

}  // namespace
}  // namespace sluice
