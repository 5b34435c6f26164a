// readers.webdataset: samples of WebDataset tar shards, one output per `ext` group, read through
// a WebDatasetCatalog (io/webdataset_catalog.h) that locates members lazily, shard by shard.

#include <memory>

#include "sluice/graph/schema_registry.h"
#include "sluice/io/objects_ahead.h"
#include "sluice/io/s3_client.h"
#include "sluice/io/webdataset_catalog.h"
#include "sluice/ops/readers/reader.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(add_reader_args(
    OpSchema("readers.webdataset")
        .doc("Reads samples from WebDataset tar shards: members of a tar that share a base name "
             "(the path up to the first '.' of the file name) and follow each other form one "
             "sample. There is one output per `ext` entry: the bytes of the sample's component "
             "with that extension ('jpg;png' takes either), as a 1-D tensor of the entry's dtype. "
             "With `index_paths` (DALI's wds2idx format, made by `python -m "
             "sluice.tools.wds2idx`) only each index's first line is read up front and a shard's "
             "members are located the first time one of its samples is read; without, every "
             "tar is scanned when the pipeline is built.")
        .num_inputs(0, 0)
        .num_outputs_from_arg("ext")
        .devices({OpDevice::kCPU})
        .required_arg("paths", ArgType::kStringList, "The tar shards, in order.")
        .required_arg("ext", ArgType::kStringList,
                      "One entry per output: the extension(s), ';'-separated, its component "
                      "may have.")
        .arg("index_paths", ArgType::kStringList, std::vector<std::string>{},
             "One index file per shard (wds2idx format); none: the shards are scanned.")
        .arg("case_sensitive_extensions", ArgType::kBool, true,
             "Match extensions case-sensitively.")
        .arg("missing_component_behavior", ArgType::kString, std::string(),
             "A sample without a component for some output: 'empty' (or ''): that output is "
             "empty; 'skip': the sample is left out; 'error': an error.")
        .optional_arg("dtypes", ArgType::kStringList,
                      "The type of each output (default UINT8); a component's size must be a "
                      "multiple of its type's size.")));

class WebdatasetReader : public Reader {
  using ReadPtr = std::shared_ptr<const WebDatasetCatalog::SampleRead>;

 public:
  using Reader::Reader;

  void setup(const OpContext& ctx) override {
    const auto ext = spec_.arg<std::vector<std::string>>("ext");
    WdsCatalogOptions o;
    o.paths = spec_.arg<std::vector<std::string>>("paths");
    o.index_paths = spec_.arg<std::vector<std::string>>("index_paths");
    o.outputs =
        make_wds_outputs(ext, spec_.arg<bool>("case_sensitive_extensions"),
                         parse_wds_missing(spec_.arg<std::string>("missing_component_behavior")));
    dtypes_.assign(ext.size(), DType::kUInt8);
    if (spec_.has_arg("dtypes")) {
      const auto names = spec_.arg<std::vector<std::string>>("dtypes");
      SLUICE_CHECK(names.size() == ext.size(), InvalidArgument,
                   "readers.webdataset: ", names.size(), " dtypes for ", ext.size(),
                   " outputs (`ext`)");
      for (size_t i = 0; i < names.size(); ++i) {
        dtypes_[i] = parse_dtype(names[i]);
        SLUICE_CHECK(dtypes_[i] != DType::kBool && dtypes_[i] != DType::kBFloat16, InvalidArgument,
                     "readers.webdataset: unsupported output dtype ", names[i],
                     " (integer types, FLOAT16, FLOAT, FLOAT64 are)");
      }
    }
    o.connections = s3_connections(ctx.max_batch_size);
    catalog_ = std::make_unique<WebDatasetCatalog>(std::move(o));
    plan(ctx, catalog_->size());
    if (catalog_->remote()) {
      ahead_ = std::make_unique<ObjectsAhead<ReadPtr>>(
          ObjectsAheadLimits::from_environment(catalog_->connections(), ctx.max_batch_size),
          [](const ReadPtr& r) { return std::optional<size_t>(r->bytes); });
    }
  }

  nlohmann::json stats() const override { return objects_ahead_stats(ahead_.get()); }

  void run(Workspace& ws) override {
    read_or_forget_ahead(ws, ahead_.get(), [&] { read_batch(ws); });
  }

 private:
  std::string sample_source(int64_t index) const override {
    return catalog_->source(catalog_->locate(index));
  }

  // Reads the batch's samples. In object storage their reads are those started ahead, and those
  // of the next batches are started before this batch's are waited for, so that their round trips
  // overlap the rest of the pipeline (io/objects_ahead.h).
  void read_batch(Workspace& ws) {
    const int n = ws.batch_size();
    const int n_out = catalog_->num_outputs();
    std::vector<ReadPtr> reads(n);
    if (ahead_) {
      // A sample that cannot be located starts nothing: its batch names the error. The batches
      // ahead are started together, so that neighbours share a GET.
      auto start_all = [this](const std::vector<int64_t>& ids) { return catalog_->start(ids); };
      auto start = [this](int64_t id) { return catalog_->start({id})[0]; };
      auto share = [](const ReadPtr& r) { return r; };  // a read serves any number of batches
      for (int i = 0; i < n; ++i) reads[i] = ahead_->take(ws.batch().samples[i].id, start, share);
      ahead_->plan([&](int64_t k) { return batch_indices_ahead(k); }, start_all, share);
    }
    std::vector<WebDatasetCatalog::Sample> samples(n);
    std::vector<std::vector<Shape>> shapes(n_out, std::vector<Shape>(n));
    ws.for_each_sample([&](int i, int) {
      samples[i] = reads[i] ? reads[i]->sample : catalog_->locate(ws.batch().samples[i].id);
      for (int o = 0; o < n_out; ++o) {
        const WdsComponent* c = samples[i].component(o);
        const int64_t elem = static_cast<int64_t>(dtype_size(dtypes_[o]));
        if (c != nullptr && c->size % elem != 0) {
          throw InvalidArgument(make_string(
              "'", catalog_->source(samples[i]), "': component '", c->ext, "' has ", c->size,
              " bytes, not a multiple of the size of ", dtype_name(dtypes_[o])));
        }
        shapes[o][i] = {c == nullptr ? 0 : c->size / elem};
      }
    });
    for (int o = 0; o < n_out; ++o) ws.output(o).resize(std::move(shapes[o]), dtypes_[o]);
    ws.for_each_sample([&](int i, int) {
      for (int o = 0; o < n_out; ++o) {
        if (const WdsComponent* c = samples[i].component(o); c != nullptr && c->size > 0) {
          catalog_->read(samples[i], *c, ws.output(o).raw_sample(i), reads[i].get());
        }
      }
    });
    if (ahead_) {
      size_t bytes = 0;
      for (const ReadPtr& r : reads) bytes += r ? r->bytes : 0;
      ahead_->read(n, bytes);
    } else if (read_ahead()) {
      for (int64_t index : next_batch_indices()) catalog_->read_ahead(index);
    }
  }

  std::unique_ptr<WebDatasetCatalog> catalog_;
  std::unique_ptr<ObjectsAhead<ReadPtr>> ahead_;  // s3:// shards: the reads of the batches ahead
  std::vector<DType> dtypes_;
};

SLUICE_REGISTER_OPERATOR("readers.webdataset", OpDevice::kCPU, WebdatasetReader);

}  // namespace
}  // namespace sluice
