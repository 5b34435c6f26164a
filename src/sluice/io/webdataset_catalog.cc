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

std::shared_ptr<const WebDatasetCatalog::SampleRead> WebDatasetCatalog::start(int64_t index) const {
  auto r = std::make_shared<SampleRead>();
  r->sample = locate(index);
  r->fetches.resize(num_outputs());
  const std::string& path = options_.paths[r->sample.shard_index];
  const bool remote = prefetcher_ && is_s3_uri(path);
  for (int o = 0; o < num_outputs(); ++o) {
    const WdsComponent* c = r->sample.component(o);
    if (c == nullptr || c->size == 0) continue;
    if (!remote) {
      r->sample.shard->file->advise(c->offset, c->size);
      continue;
    }
    for (int p = 0; p < o && !r->fetches[o]; ++p) {  // two outputs may take one component
      if (r->sample.component(p) == c) r->fetches[o] = r->fetches[p];
    }
    if (!r->fetches[o]) {
      r->fetches[o] = prefetcher_->fetch(path, static_cast<uint64_t>(c->offset), c->size);
      r->bytes += static_cast<size_t>(c->size);
    }
  }
  return r;
}

void WebDatasetCatalog::read(const Sample& s, const WdsComponent& c, void* dst,
                             S3Prefetcher::Fetch* started) const {
  if (started) {
    const std::vector<uint8_t>& bytes = prefetcher_->wait(*started);
    if (bytes.size() == static_cast<size_t>(c.size)) {
      if (!bytes.empty()) std::memcpy(dst, bytes.data(), bytes.size());
      return;
    }
  }
  s.shard->file->read_exact(c.offset, dst, static_cast<size_t>(c.size),
                            make_string("member '", c.filename.empty() ? c.ext : c.filename, "'"));
}

void WebDatasetCatalog::read_ahead(int64_t index) const noexcept {
  try {
    start(index);
  } catch (...) {  // a hint only: the read reports the error
  }
}

int64_t WebDatasetCatalog::loads() const {
  MutexLock lock(mu_);
  return loads_;
}

}  // namespace sluice
