// readers.mxnet: MXNet RecordIO files of image records (IRHeader, labels, encoded image),
// located through MXNet's .idx index. Parsing: io/recordio.h.

#include <algorithm>
#include <cstring>

#include "sluice/graph/schema_registry.h"
#include "sluice/io/record_files.h"
#include "sluice/io/recordio.h"
#include "sluice/io/s3_dataset.h"
#include "sluice/ops/readers/reader.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(add_reader_args(
    OpSchema("readers.mxnet")
        .doc("Reads MXNet RecordIO files of image records (as im2rec writes them). `index_path` "
             "is the one .idx file (lines 'key offset') over the files of `path`, addressed as "
             "one concatenation; records are read in the order of their offsets. Outputs: the "
             "data (uint8, 1-D) and the label (float, shape [1] or [flag] when the IRHeader "
             "holds several labels). Multi-part records (the writer's continuation flags) are "
             "joined.")
        .num_inputs(0, 0)
        .num_outputs(2)
        .output_names({"data", "label"})
        .devices({OpDevice::kCPU})
        .required_arg("path", ArgType::kStringList, "The RecordIO (.rec) files.")
        .required_arg("index_path", ArgType::kStringList,
                      "The index (.idx) of the files: a list of exactly one path.")
        .alias("mxnet_reader")
        .alias("MXNetReader")));

class MXNetReader : public Reader {
 public:
  using Reader::Reader;

  void setup(const OpContext& ctx) override {
    auto paths = spec_.arg<std::vector<std::string>>("path");
    auto index_paths = spec_.arg<std::vector<std::string>>("index_path");
    SLUICE_CHECK(!paths.empty(), InvalidArgument, "readers.mxnet: no files in `path`");
    SLUICE_CHECK(index_paths.size() == 1, InvalidArgument,
                 "readers.mxnet supports only a single index file, got ", index_paths.size());
    files_.open(paths);
    std::vector<int64_t> sizes;
    for (size_t f = 0; f < files_.count(); ++f) sizes.push_back(files_.size(f));
    std::vector<uint8_t> text;
    read_file_or_object(index_paths[0], text, size_t{1} << 34);
    records_ = parse_recordio_index(
        std::string_view(reinterpret_cast<const char*>(text.data()), text.size()), sizes,
        index_paths[0]);
    SLUICE_CHECK(!records_.empty(), InvalidArgument, "readers.mxnet: the index '", index_paths[0],
                 "' lists no records");
    plan(ctx, static_cast<int64_t>(records_.size()));
  }

  void run(Workspace& ws) override {
    const int n = ws.batch_size();
    if (static_cast<int>(bytes_.size()) < n) {
      bytes_.resize(n);
      scratch_.resize(n);
      parsed_.resize(n);
    }
    std::vector<Shape> data_shapes(n), label_shapes(n);
    ws.for_each_sample([&](int i, int) {
      const RecordIOSpan& r = records_[ws.batch().samples[i].id];
      read_span(r, bytes_[i]);
      parsed_[i] = parse_mxnet_record(bytes_[i], scratch_[i], r.offset);
      data_shapes[i] = {static_cast<int64_t>(parsed_[i].data.size())};
      label_shapes[i] = {static_cast<int64_t>(parsed_[i].labels.size())};
    });
    TensorList& data = ws.output(0);
    TensorList& label = ws.output(1);
    data.resize(std::move(data_shapes), DType::kUInt8);
    label.resize(std::move(label_shapes), DType::kFloat32);
    ws.for_each_sample([&](int i, int) {
      const MXNetRecord& p = parsed_[i];
      if (!p.data.empty()) std::memcpy(data.raw_sample(i), p.data.data(), p.data.size());
      std::memcpy(label.raw_sample(i), p.labels.data(), p.labels.size() * sizeof(float));
    });
    if (read_ahead() || files_.remote()) {
      for (int64_t id : next_batch_indices()) {
        const RecordIOSpan& r = records_[id];
        files_.read_ahead(r.file, r.offset, r.size);
      }
    }
  }

 private:
  std::string sample_source(int64_t index) const override {
    const RecordIOSpan& r = records_[index];
    return make_string(files_.path(r.file), " at index ", r.offset);
  }

  // Reads the record's bytes, continuing into the next files where it runs past one's end.
  void read_span(const RecordIOSpan& r, std::vector<uint8_t>& out) const {
    out.resize(static_cast<size_t>(r.size));
    int64_t done = 0, offset = r.offset;
    for (size_t f = r.file; done < r.size; ++f, offset = 0) {
      SLUICE_CHECK(f < files_.count(), IOError, "RecordIO record at offset ", r.offset, " of '",
                   files_.path(r.file), "' runs past the end of the last file");
      int64_t n = std::min(r.size - done, files_.size(f) - offset);
      files_.read(f, offset, n, out.data() + done);
      done += n;
    }
  }

  RecordFiles files_;
  std::vector<RecordIOSpan> records_;
  std::vector<std::vector<uint8_t>> bytes_, scratch_;
  std::vector<MXNetRecord> parsed_;
};

SLUICE_REGISTER_OPERATOR("readers.mxnet", OpDevice::kCPU, MXNetReader);

}  // namespace
}  // namespace sluice
