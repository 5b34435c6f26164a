#include "sluice/io/npy_object.h"

#include <cstring>
#include <limits>
#include <mutex>

#include "sluice/core/error.h"

namespace sluice {

NpyObjectReader::NpyObjectReader(int connections)
    : prefetcher_(S3Client::shared(), connections, std::numeric_limits<size_t>::max()) {}

std::shared_ptr<NpyObject> NpyObjectReader::start(const std::string& uri, bool whole,
                                                  const std::optional<NpyObjectHeader>& known) {
  auto o = std::make_shared<NpyObject>();
  o->uri_ = uri;
  o->prefetcher_ = &prefetcher_;
  o->whole_ = whole;
  if (!whole && known) {
    o->header_ = known;
  } else {
    o->first_ = prefetcher_.fetch(uri, 0, whole ? -1 : static_cast<int64_t>(kNpyFirstRange));
  }
  return o;
}

const NpyObjectHeader& NpyObject::header() {
  if (header_) return *header_;
  const std::vector<uint8_t>& first = prefetcher_->wait(*first_);
  const uint64_t size = first_->object_size;
  const size_t total = npy_header_bytes(first, size, uri_);
  NpyObjectHeader h;
  h.object_size = size;
  if (total <= first.size()) {
    h.header = parse_npy_file_header(first, size, uri_);
  } else {
    std::vector<uint8_t> bytes;
    S3Client::shared()->get(S3Uri::parse(uri_), bytes, total, 0, static_cast<int64_t>(total));
    h.header = parse_npy_file_header(bytes, size, uri_);
  }
  header_ = std::move(h);
  return *header_;
}

void NpyObject::start_box(std::span<const int64_t> anchor, std::span<const int64_t> shape) {
  if (whole_) return;
  std::vector<int64_t> box(anchor.begin(), anchor.end());
  box.insert(box.end(), shape.begin(), shape.end());
  if (box == box_ && next_ == 0 && !fetches_.empty()) return;  // started ahead
  box_ = std::move(box);
  const NpyLayout layout = npy_layout(header().header);
  ranges_ = npy_box_ranges(layout, anchor, shape, kNpyObjectMaxGap);
  fetches_.clear();
  next_ = 0;
  for (const NpyByteRange& r : ranges_) {
    fetches_.push_back(prefetcher_->fetch(uri_, r.offset, static_cast<int64_t>(r.length)));
  }
}

std::optional<size_t> NpyObject::bytes() const {
  if (!ranges_.empty()) {
    size_t n = 0;
    for (const NpyByteRange& r : ranges_) n += r.length;
    return n;
  }
  if (!first_) return 0;
  std::lock_guard<std::mutex> lock(first_->mu);
  if (!first_->done) return std::nullopt;
  return first_->data.size();
}

void NpyObject::read_at(uint64_t offset, void* dst, size_t n) {
  std::shared_ptr<S3Prefetcher::Fetch> fetch = first_;
  uint64_t begin = 0;
  if (!whole_) {
    // read_npy_box reads the ranges npy_box_ranges planned, in the same order.
    SLUICE_ENFORCE(
        next_ < ranges_.size() && ranges_[next_].offset == offset && ranges_[next_].length == n,
        "read_box does not match start_box for '", uri_, "'");
    fetch = std::move(fetches_[next_++]);  // each range is read once: its bytes go with it
    begin = offset;
  }
  const std::vector<uint8_t>* bytes = &prefetcher_->wait(*fetch);
  if (offset - begin + n > bytes->size()) {
    throw IOError(make_string("cannot read '", uri_, "': it ends before byte ", offset + n,
                              " (changed while being read?)"));
  }
  std::memcpy(dst, bytes->data() + (offset - begin), n);
}

void NpyObject::read_box(std::span<const int64_t> anchor, std::span<const int64_t> shape, void* dst,
                         std::vector<uint8_t>& scratch) {
  const NpyLayout layout = npy_layout(header().header);
  read_npy_box([&](uint64_t offset, void* to, size_t n) { read_at(offset, to, n); }, layout, anchor,
               shape, dst, scratch, kNpyObjectMaxGap);
  if (!whole_) {
    box_.clear();
    ranges_.clear();
    fetches_.clear();
  }
}

}  // namespace sluice
