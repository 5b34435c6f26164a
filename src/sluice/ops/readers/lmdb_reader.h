#pragma once
// What readers.caffe and readers.caffe2 share: the records of LMDB databases (io/lmdb_database.h)
// in key order, read per sample and turned into outputs by the reader's parse().

#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "sluice/core/dtype.h"
#include "sluice/core/shape.h"
#include "sluice/io/lmdb_database.h"
#include "sluice/ops/readers/reader.h"

namespace sluice {

// One output of one sample: a view into the record, or values of its own; empty by default.
struct LmdbPiece {
  DType dtype = DType::kUInt8;
  Shape shape{0};
  std::span<const uint8_t> view;
  std::vector<uint8_t> owned;
  bool is_owned = false;

  std::span<const uint8_t> bytes() const { return is_owned ? std::span(owned) : view; }

  void set_view(DType t, Shape s, std::span<const uint8_t> bytes) {
    dtype = t;
    shape = std::move(s);
    view = bytes;
  }
  template <typename T>
  void set_values(Shape s, const std::vector<T>& values) {
    dtype = DTypeOf<T>::value;
    shape = std::move(s);
    owned.resize(values.size() * sizeof(T));
    if (!values.empty()) std::memcpy(owned.data(), values.data(), owned.size());
    is_owned = true;
  }
};

class LmdbReader : public Reader {
 public:
  using Reader::Reader;

  void setup(const OpContext& ctx) override;
  void run(Workspace& ws) override;

 protected:
  // Fills the sample's outputs (pieces has num_outputs() entries) from its record; errors name
  // `source` ("<db> at key <key>").
  virtual void parse(std::span<const uint8_t> record, const std::string& source,
                     std::vector<LmdbPiece>& pieces) const = 0;

 private:
  std::string sample_source(int64_t index) const override { return dbs_->source(index); }

  std::unique_ptr<LmdbDatabases> dbs_;
  std::vector<std::vector<uint8_t>> records_;
  std::vector<std::vector<LmdbPiece>> pieces_;
};

}  // namespace sluice
