#include "sluice/io/webdataset_catalog.h"

#include <algorithm>
#include <cstring>
#include <fstream>

#include "sluice/core/error.h"
#include "sluice/io/read_file.h"
#include "sluice/io/s3_client.h"
#include "sluice/io/s3_dataset.h"

namespace sluice {
namespace {

int64_t index_count(const std::string& index_path) {
  if (is_s3_uri(index_path)) {  // the first line is in the first 4 KiB
    std::vector<uint8_t> head;
    S3Client::shared()->get(S3Uri::parse(index_path), head, 4096, 0, 4096);
    std::string_view text(reinterpret_cast<const char*>(head.data()), head.size());
    return parse_wds_index_header(std::string(text.substr(0, text.find('\n'))), index_path);
  }
  std::ifstream in(index_path);
  if (!in) throw IOError(make_string("cannot open WebDataset index '", index_path, "'"));
  std::string line;
  char c;
  while (line.size() < 4096 && in.get(c) && c != '\n') line.push_back(c);
  return parse_wds_index_header(line, index_path);
}

}  // namespace

WebDatasetCatalog::WebDatasetCatalog(WdsCatalogOptions options) : options_(std::move(options)) {
  const auto& o = options_;
  SLUICE_CHECK(!o.paths.empty(), InvalidArgument, "no WebDataset archives given (`paths`)");
  SLUICE_CHECK(o.index_paths.empty() || o.index_paths.size() == o.paths.size(), InvalidArgument,
               "`index_paths` must name one index per archive (", o.paths.size(), " archives, ",
               o.index_paths.size(), " indexes)");
  SLUICE_CHECK(o.paths.size() < (size_t{1} << 30), InvalidArgument, "too many archives");
  const bool header_is_count = !o.index_paths.empty() && o.outputs.missing == WdsMissing::kEmpty;
  starts_.push_back(0);
  for (const std::string& p : o.paths) {
    if (is_s3_uri(p)) {
      prefetcher_ =
          std::make_unique<S3Prefetcher>(S3Client::shared(), o.connections, size_t{1} << 31);
      break;
    }
  }
  for (size_t s = 0; s < o.paths.size(); ++s) {
    int64_t n = 0;
    if (header_is_count) {
      PreadFile check(o.paths[s]);  // a missing tar fails now, not in the middle of an epoch
      n = index_count(o.index_paths[s]);
    } else {
      auto shard = load(static_cast<int>(s));
      n = shard->samples.size();
      MutexLock lock(mu_);
      if (cache_.size() < o.max_cached_shards) cache_[static_cast<int>(s)] = {shard, ++tick_};
    }
    starts_.push_back(starts_.back() + n);
  }
}

std::shared_ptr<const WdsShard> WebDatasetCatalog::load(int s) const {
  const std::string& path = options_.paths[s];
  auto shard = std::make_shared<WdsShard>();
  shard->file = std::make_unique<PreadFile>(path);
  const PreadFile& f = *shard->file;
  WdsRawIndex raw;
  std::string source;
  if (options_.index_paths.empty()) {
    source = path;
    std::vector<TarMember> members;
    scan_tar([&f](int64_t off, void* dst, size_t n) { return f.read_at(off, dst, n); }, f.size(),
             path, [&members](const TarMember& m) { members.push_back(m); });
    raw = wds_index_from_tar(members);
  } else {
    source = options_.index_paths[s];
    std::vector<uint8_t> text;
    read_file_or_object(source, text, kDefaultMaxFileSize);
    raw = parse_wds_index(std::string_view(reinterpret_cast<const char*>(text.data()), text.size()),
                          source);
    for (const WdsRawSample& rs : raw.samples) {
      for (uint32_t k = 0; k < rs.count; ++k) {
        const WdsComponent& c = raw.components[rs.first + k];
        if (c.offset > f.size() || c.size > f.size() - c.offset) {
          throw IOError(make_string("'", path, "': index '", source, "' line ", rs.line,
                                    ": component '", c.ext, "' at offset ", c.offset, " (", c.size,
                                    " bytes) lies past the end of the archive (", f.size(),
                                    " bytes)"));
        }
      }
    }
  }
  shard->samples = match_wds_samples(std::move(raw), options_.outputs, source);
  // A shard read again after it left the cache must give what was counted at first.
  if (starts_.size() == options_.paths.size() + 1) {
    const int64_t counted = starts_[s + 1] - starts_[s];
    if (shard->samples.size() != counted) {
      throw IOError(make_string("'", source, "' has ", shard->samples.size(), " samples, but ",
                                counted, " when the reader started (was it changed?)"));
    }
  }
  MutexLock lock(mu_);
  ++loads_;
  return shard;
}

std::shared_ptr<const WdsShard> WebDatasetCatalog::cached(int s) const {
  {
    MutexLock lock(mu_);
    auto it = cache_.find(s);
    if (it != cache_.end()) {
      it->second.last_use = ++tick_;
      return it->second.shard;
    }
  }
  auto shard = load(s);  // outside the lock: two threads may both load it, one result is kept
  MutexLock lock(mu_);
  auto [it, inserted] = cache_.try_emplace(s, Entry{shard, 0});
  it->second.last_use = ++tick_;
  std::shared_ptr<const WdsShard> result = it->second.shard;
  if (inserted && cache_.size() > std::max<size_t>(options_.max_cached_shards, 1)) {
    auto oldest = cache_.begin();
    for (auto e = cache_.begin(); e != cache_.end(); ++e) {
      if (e->second.last_use < oldest->second.last_use) oldest = e;
    }
    cache_.erase(oldest);
  }
  return result;
}

WebDatasetCatalog::Sample WebDatasetCatalog::locate(int64_t index) const {
  SLUICE_CHECK(index >= 0 && index < size(), InvalidArgument, "WebDataset sample ", index,
               " out of range (", size(), " samples)");
  auto it = std::upper_bound(starts_.begin(), starts_.end(), index);
  const int s = static_cast<int>(it - starts_.begin()) - 1;
  Sample out;
  out.shard = cached(s);
  out.local = index - starts_[s];
  out.shard_index = s;
  return out;
}

std::string WebDatasetCatalog::source(const Sample& s) const {
  const std::string& path = options_.paths[s.shard_index];
  for (int o = 0; o < num_outputs(); ++o) {
    if (const WdsComponent* c = s.component(o)) {
      return make_string(path, ":", c->offset, ":", c->filename);
    }
  }
  return make_string(path, " sample ", s.shard->samples.lines[s.local]);
}

// Note [One GET for neighbours]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A request costs a round trip and the server's work per request (which for moto, reading the
// whole object for each range, is most of it), and WebDataset keeps a sample's components next
// to each other and, unshuffled, reads the samples of a tar in order. So a sample's components
// are one ranged GET from the first to the end of the last, and each sample started right after
// its neighbour in the same tar (the look-ahead starts a batch's new samples together, in order)
// joins its GET while it stays within max_range and skips at most max_range_gap bytes (headers,
// members no output takes). Shuffled, neighbours rarely follow each other: one GET a sample.
std::vector<std::shared_ptr<const WebDatasetCatalog::SampleRead>> WebDatasetCatalog::start(
    const std::vector<int64_t>& indices) const {
  std::vector<std::shared_ptr<const SampleRead>> out(indices.size());
  std::vector<std::shared_ptr<SampleRead>> run;  // the samples of the GET being gathered
  uint64_t begin = 0, end = 0;
  auto send = [&] {
    if (run.empty()) return;
    auto range = prefetcher_->fetch(options_.paths[run.front()->sample.shard_index], begin,
                                    static_cast<int64_t>(end - begin));
    for (auto& r : run) {
      r->range = range;
      r->range_offset = begin;
    }
    run.clear();
  };
  for (size_t i = 0; i < indices.size(); ++i) {
    Sample sample;
    try {
      sample = locate(indices[i]);
    } catch (...) {
      continue;
    }
    auto r = std::make_shared<SampleRead>();
    r->sample = std::move(sample);
    out[i] = r;
    const bool remote = prefetcher_ && is_s3_uri(options_.paths[r->sample.shard_index]);
    uint64_t first = UINT64_MAX, last = 0;
    for (int o = 0; o < num_outputs(); ++o) {
      const WdsComponent* c = r->sample.component(o);
      if (c == nullptr || c->size == 0) continue;
      if (!remote) r->sample.shard->file->advise(c->offset, c->size);
      first = std::min(first, static_cast<uint64_t>(c->offset));
      last = std::max(last, static_cast<uint64_t>(c->offset + c->size));
    }
    if (!remote || first >= last) continue;
    r->bytes = static_cast<size_t>(last - first);
    const bool joins = !run.empty() && run.front()->sample.shard_index == r->sample.shard_index &&
                       first >= end && first - end <= options_.max_range_gap &&
                       last - begin <= options_.max_range;
    if (!joins) {
      send();
      begin = first;
    }
    end = last;
    run.push_back(std::move(r));
  }
  send();
  return out;
}

void WebDatasetCatalog::read(const Sample& s, const WdsComponent& c, void* dst,
                             const SampleRead* started) const {
  if (started && started->range) {
    const std::vector<uint8_t>& bytes = prefetcher_->wait(*started->range);
    const uint64_t at = static_cast<uint64_t>(c.offset) - started->range_offset;
    if (static_cast<uint64_t>(c.offset) >= started->range_offset &&
        at + static_cast<uint64_t>(c.size) <= bytes.size()) {
      if (c.size > 0) std::memcpy(dst, bytes.data() + at, static_cast<size_t>(c.size));
      return;
    }
  }
  s.shard->file->read_exact(c.offset, dst, static_cast<size_t>(c.size),
                            make_string("member '", c.filename.empty() ? c.ext : c.filename, "'"));
}

void WebDatasetCatalog::read_ahead(int64_t index) const noexcept {
  try {
    start({index});
  } catch (...) {  // a hint only: the read reports the error
  }
}

int64_t WebDatasetCatalog::loads() const {
  MutexLock lock(mu_);
  return loads_;
}

}  // namespace sluice
