// readers.caffe2: caffe2.TensorProtos records of Caffe2 LMDB databases (io/lmdb_records.h), in
// key order: the image, the label(s), additional tensors and a bounding box, in that order.

#include <algorithm>

#include "sluice/graph/schema_registry.h"
#include "sluice/io/lmdb_records.h"
#include "sluice/ops/readers/lmdb_reader.h"

namespace sluice {
namespace {

enum LabelType { kSingle = 0, kSparse = 1, kDense = 2, kWeightedSparse = 3, kNoLabel = 4 };

SLUICE_REGISTER_SCHEMA(add_reader_args(
    OpSchema("readers.caffe2")
        .doc("Reads Caffe2 LMDB databases (records: caffe2.TensorProtos) in key order. The "
             "protos of a record are, in order: the image (with image_available: STRING = "
             "encoded bytes, 1-D uint8; BYTE = raw HWC uint8 from dims), the label (label_type "
             "0: one value; 1: sparse indices, output as a one-hot vector of num_labels; 2: dense "
             "values; 3: indices then a FLOAT proto of weights, output as a float vector of "
             "num_labels; 4: none; values FLOAT or INT32), for sparse label types one proto "
             "that is skipped (type 3: the weights), `additional_inputs` FLOAT/INT32/INT64 "
             "tensors, and, with bbox, a last INT32 proto of 4 values (empty where absent).")
        .num_inputs(0, 0)
        .num_outputs(0)
        .num_outputs_from_arg("additional_inputs")
        .output_if_arg("image_available")
        .output_unless_arg("label_type", "4")
        .output_if_arg("bbox")
        .devices({OpDevice::kCPU})
        .required_arg("path", ArgType::kStringList, "The LMDB database folder(s).")
        .arg("image_available", ArgType::kBool, true, "The records hold an image (first proto).")
        .arg("label_type", ArgType::kInt, int64_t{0},
             "0 = single label, 1 = sparse multi-label, 2 = dense multi-label, 3 = weighted "
             "sparse multi-label, 4 = no label.")
        .arg("num_labels", ArgType::kInt, int64_t{1},
             "Number of classes (the length of sparse labels' outputs).")
        .arg("additional_inputs", ArgType::kInt, int64_t{0},
             "Number of additional tensors per record (one output each).")
        .arg("bbox", ArgType::kBool, false, "The records end with a bounding box.")
        .alias("caffe2_reader")
        .alias("Caffe2Reader")));

const Caffe2Tensor& proto_at(const std::vector<Caffe2Tensor>& p, size_t i, const char* what,
                             const std::string& source) {
  SLUICE_CHECK(i < p.size(), DecodeError, "'", source, "': the record has ", p.size(),
               " tensor proto(s), no ", what, " at position ", i);
  return p[i];
}

template <typename T>
const std::vector<T>& values(const Caffe2Tensor& t) {
  if constexpr (std::is_same_v<T, float>) {
    return t.float_data;
  } else {
    return t.int32_data;
  }
}

class Caffe2Reader : public LmdbReader {
 public:
  using LmdbReader::LmdbReader;

  void setup(const OpContext& ctx) override {
    image_ = spec_.arg<bool>("image_available");
    label_type_ = spec_.arg<int64_t>("label_type");
    num_labels_ = spec_.arg<int64_t>("num_labels");
    additional_ = spec_.arg<int64_t>("additional_inputs");
    bbox_ = spec_.arg<bool>("bbox");
    SLUICE_CHECK(label_type_ >= 0 && label_type_ <= 4, InvalidArgument,
                 "readers.caffe2: label_type must be 0..4, got ", label_type_);
    SLUICE_CHECK(num_labels_ >= 1 && num_labels_ <= (int64_t{1} << 24), InvalidArgument,
                 "readers.caffe2: num_labels must be in 1..2^24, got ", num_labels_);
    SLUICE_CHECK(additional_ >= 0 && additional_ <= 1024, InvalidArgument,
                 "readers.caffe2: additional_inputs must be in 0..1024, got ", additional_);
    LmdbReader::setup(ctx);
  }

 private:
  void parse(std::span<const uint8_t> record, const std::string& source,
             std::vector<LmdbPiece>& out) const override {
    const std::vector<Caffe2Tensor> protos = parse_caffe2_protos(record, source);
    size_t next = 0;
    int o = 0;
    if (image_) image(proto_at(protos, next++, "image", source), source, out[o++]);
    if (label_type_ != kNoLabel) {
      const Caffe2Tensor& t = proto_at(protos, next, "label", source);
      if (t.data_type == Caffe2Tensor::kFloat) {
        label<float>(protos, next, source, out[o++]);
      } else if (t.data_type == Caffe2Tensor::kInt32) {
        label<int32_t>(protos, next, source, out[o++]);
      } else {
        throw DecodeError(make_string("'", source, "': unsupported label data type ", t.data_type,
                                      " (FLOAT or INT32 are)"));
      }
      next += (label_type_ == kSparse || label_type_ == kWeightedSparse) ? 2 : 1;
    }
    for (int64_t k = 0; k < additional_; ++k) {
      const Caffe2Tensor& t = proto_at(protos, next++, "additional input", source);
      if (t.data_type == Caffe2Tensor::kFloat) {
        out[o].set_values<float>({static_cast<int64_t>(t.float_data.size())}, t.float_data);
      } else if (t.data_type == Caffe2Tensor::kInt32) {
        out[o].set_values<int32_t>({static_cast<int64_t>(t.int32_data.size())}, t.int32_data);
      } else if (t.data_type == Caffe2Tensor::kInt64) {
        out[o].set_values<int64_t>({static_cast<int64_t>(t.int64_data.size())}, t.int64_data);
      } else {
        throw DecodeError(make_string("'", source, "': additional input ", k,
                                      " has unsupported data type ", t.data_type,
                                      " (FLOAT, INT32 or INT64 are)"));
      }
      ++o;
    }
    if (bbox_) {
      out[o].dtype = DType::kInt32;
      if (protos.size() == next + 1) {
        const Caffe2Tensor& b = protos[next];
        SLUICE_CHECK(b.data_type == Caffe2Tensor::kInt32 && b.int32_data.size() == 4, DecodeError,
                     "'", source, "': the bounding box must be an INT32 proto of 4 values");
        out[o].set_values<int32_t>({4}, b.int32_data);
      }
    }
  }

  void image(const Caffe2Tensor& t, const std::string& source, LmdbPiece& out) const {
    if (t.data_type == Caffe2Tensor::kString) {
      SLUICE_CHECK(!t.string_data.empty(), DecodeError, "'", source,
                   "': the image proto holds no string");
      const std::string_view s = t.string_data[0];
      out.set_view(DType::kUInt8, {static_cast<int64_t>(s.size())},
                   {reinterpret_cast<const uint8_t*>(s.data()), s.size()});
    } else if (t.data_type == Caffe2Tensor::kByte) {
      const bool dims_ok = t.dims.size() >= 2 && t.dims.size() <= 3 &&
                           std::all_of(t.dims.begin(), t.dims.end(),
                                       [](int64_t d) { return d >= 0 && d <= (1 << 30); });
      const int64_t c = dims_ok && t.dims.size() == 3 ? t.dims[2] : 1;
      const Shape hwc = dims_ok ? Shape{t.dims[0], t.dims[1], c} : Shape{};
      SLUICE_CHECK(dims_ok && static_cast<unsigned __int128>(t.dims[0]) *
                                      static_cast<uint64_t>(t.dims[1]) * static_cast<uint64_t>(c) ==
                                  t.byte_data.size(),
                   DecodeError, "'", source, "': a raw (BYTE) image's dims do not match its ",
                   t.byte_data.size(), " bytes");
      out.set_view(DType::kUInt8, hwc,
                   {reinterpret_cast<const uint8_t*>(t.byte_data.data()), t.byte_data.size()});
    } else {
      throw DecodeError(make_string("'", source, "': unsupported image data type ", t.data_type,
                                    " (STRING or BYTE are)"));
    }
  }

  template <typename T>
  void label(const std::vector<Caffe2Tensor>& protos, size_t at, const std::string& source,
             LmdbPiece& out) const {
    const std::vector<T>& v = values<T>(protos[at]);
    switch (label_type_) {
      case kSingle:
        SLUICE_CHECK(v.size() == 1, DecodeError, "'", source, "': a single label holds ", v.size(),
                     " values");
        out.set_values<T>({1}, v);
        return;
      case kDense:
        out.set_values<T>({static_cast<int64_t>(v.size())}, v);
        return;
      default:
        break;
    }
    const bool weighted = label_type_ == kWeightedSparse;
    const std::vector<float>* weights = nullptr;
    if (weighted) {
      const Caffe2Tensor& w = proto_at(protos, at + 1, "label weights", source);
      SLUICE_CHECK(w.data_type == Caffe2Tensor::kFloat && w.float_data.size() >= v.size(),
                   DecodeError, "'", source, "': label weights must be FLOAT, one per index");
      weights = &w.float_data;
    }
    std::vector<T> dense(static_cast<size_t>(num_labels_), T(0));
    std::vector<float> dense_w(weighted ? dense.size() : 0, 0.f);
    for (size_t i = 0; i < v.size(); ++i) {
      const double idx = static_cast<double>(v[i]);
      SLUICE_CHECK(idx >= 0 && idx < static_cast<double>(num_labels_), DecodeError, "'", source,
                   "': label index ", v[i], " outside 0..", num_labels_ - 1);
      if (weighted) {
        dense_w[static_cast<size_t>(idx)] = (*weights)[i];
      } else {
        dense[static_cast<size_t>(idx)] = T(1);
      }
    }
    if (weighted) {
      out.set_values<float>({num_labels_}, dense_w);
    } else {
      out.set_values<T>({num_labels_}, dense);
    }
  }

  bool image_ = true;
  int64_t label_type_ = kSingle;
  int64_t num_labels_ = 1;
  int64_t additional_ = 0;
  bool bbox_ = false;
};

SLUICE_REGISTER_OPERATOR("readers.caffe2", OpDevice::kCPU, Caffe2Reader);

}  // namespace
}  // namespace sluice
