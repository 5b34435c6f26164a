// readers.caffe: caffe.Datum records of Caffe LMDB databases (io/lmdb_records.h), in key order.

#include "sluice/graph/schema_registry.h"
#include "sluice/io/lmdb_records.h"
#include "sluice/ops/readers/lmdb_reader.h"

namespace sluice {
namespace {

SLUICE_REGISTER_SCHEMA(add_reader_args(
    OpSchema("readers.caffe")
        .doc("Reads Caffe LMDB databases (records: caffe.Datum) in key order. Outputs: the "
             "image (with image_available) and the label (with label_available). The image is "
             "the Datum's data as 1-D uint8 bytes when encoded (the default), or an HWC uint8 "
             "array of height x width x channels when the Datum says encoded=false; the label "
             "is int32 of shape [1]. A Datum without data or label gives an empty output.")
        .num_inputs(0, 0)
        .num_outputs(0)
        .output_if_arg("image_available")
        .output_if_arg("label_available")
        .devices({OpDevice::kCPU})
        .required_arg("path", ArgType::kStringList, "The LMDB database folder(s).")
        .arg("image_available", ArgType::kBool, true, "Give the image output.")
        .arg("label_available", ArgType::kBool, true, "Give the label output.")
        .alias("caffe_reader")
        .alias("CaffeReader")));

class CaffeReader : public LmdbReader {
 public:
  using LmdbReader::LmdbReader;

  void setup(const OpContext& ctx) override {
    image_ = spec_.arg<bool>("image_available");
    label_ = spec_.arg<bool>("label_available");
    LmdbReader::setup(ctx);
  }

 private:
  void parse(std::span<const uint8_t> record, const std::string& source,
             std::vector<LmdbPiece>& out) const override {
    const CaffeDatum d = parse_caffe_datum(record, source);
    int o = 0;
    if (image_) {
      std::span<const uint8_t> data(reinterpret_cast<const uint8_t*>(d.data.data()), d.data.size());
      if (!d.has_data) {
        out[o].shape = {0};
      } else if (d.has_encoded && !d.encoded) {
        const Shape hwc{d.height, d.width, d.channels};
        const bool fits = d.height >= 0 && d.width >= 0 && d.channels >= 0 &&
                          static_cast<unsigned __int128>(d.height) *
                                  static_cast<uint64_t>(d.width) *
                                  static_cast<uint64_t>(d.channels) ==
                              data.size();
        SLUICE_CHECK(fits, DecodeError, "'", source, "': a raw Datum of ", d.height, "x", d.width,
                     "x", d.channels, " holds ", data.size(), " bytes of data");
        out[o].set_view(DType::kUInt8, hwc, data);
      } else {
        out[o].set_view(DType::kUInt8, {static_cast<int64_t>(data.size())}, data);
      }
      ++o;
    }
    if (label_) {
      out[o].dtype = DType::kInt32;
      if (d.has_label) out[o].set_values<int32_t>({1}, {d.label});
    }
  }

  bool image_ = true;
  bool label_ = true;
};

SLUICE_REGISTER_OPERATOR("readers.caffe", OpDevice::kCPU, CaffeReader);

}  // namespace
}  // namespace sluice
