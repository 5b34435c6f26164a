#include "sluice/ops/readers/lmdb_reader.h"

#include <cstring>

namespace sluice {

void LmdbReader::setup(const OpContext& ctx) {
  dbs_ = std::make_unique<LmdbDatabases>(spec_.arg<std::vector<std::string>>("path"));
  plan(ctx, dbs_->size());
}

void LmdbReader::run(Workspace& ws) {
  const int n = ws.batch_size();
  const int n_out = ws.num_outputs();
  if (static_cast<int>(records_.size()) < n) {
    records_.resize(n);
    pieces_.resize(n);
  }
  ws.for_each_sample([&](int i, int) {
    const int64_t id = ws.batch().samples[i].id;
    dbs_->read(id, records_[i]);
    pieces_[i].assign(n_out, LmdbPiece{});
    parse(records_[i], ws.batch().samples[i].source, pieces_[i]);
  });
  for (int o = 0; o < n_out; ++o) {
    std::vector<Shape> shapes(n);
    for (int i = 0; i < n; ++i) {
      const LmdbPiece& p = pieces_[i][o];
      const LmdbPiece& first = pieces_[0][o];
      SLUICE_CHECK(p.dtype == first.dtype && p.shape.size() == first.shape.size(), DecodeError, "'",
                   ws.batch().samples[i].source, "': output ", o, " is ", dtype_name(p.dtype),
                   " with ", p.shape.size(), " dimension(s), but ", dtype_name(first.dtype),
                   " with ", first.shape.size(), " in sample 0 of the batch ('",
                   ws.batch().samples[0].source, "')");
      shapes[i] = p.shape;
    }
    ws.output(o).resize(std::move(shapes), pieces_[0][o].dtype);
  }
  ws.for_each_sample([&](int i, int) {
    for (int o = 0; o < n_out; ++o) {
      const std::span<const uint8_t> b = pieces_[i][o].bytes();
      if (!b.empty()) std::memcpy(ws.output(o).raw_sample(i), b.data(), b.size());
    }
  });
}

}  // namespace sluice
