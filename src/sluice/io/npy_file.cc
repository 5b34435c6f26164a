#include "sluice/io/npy_file.h"

#include <algorithm>
#include <cstring>

#include "sluice/core/error.h"

namespace sluice {

size_t npy_header_bytes(std::span<const uint8_t> prefix, uint64_t file_size,
                        const std::string& name) {
  try {
    const size_t total = npy_header_size(prefix);
    if (file_size < total) {
      throw DecodeError(make_string("not a valid .npy file: the header needs ", total,
                                    " bytes but the file has ", file_size));
    }
    return total;
  } catch (const DecodeError& e) {
    throw DecodeError(make_string("'", name, "': ", e.what()));
  }
}

NpyHeader parse_npy_file_header(std::span<const uint8_t> bytes, uint64_t file_size,
                                const std::string& name) {
  try {
    NpyHeader h = parse_npy_header(bytes);
    const uint64_t data_end = static_cast<uint64_t>(h.data_offset) + h.data_bytes;
    if (data_end > file_size) {
      throw DecodeError(make_string("truncated .npy file: the header describes ", h.data_bytes,
                                    " bytes of data after byte ", h.data_offset,
                                    " but the file ends at byte ", file_size));
    }
    return h;
  } catch (const DecodeError& e) {
    throw DecodeError(make_string("'", name, "': ", e.what()));
  }
}

NpyHeader read_npy_header(const ReadableFile& file) {
  uint8_t prelude[kNpyPreludeSize];
  const size_t have = std::min(file.size(), kNpyPreludeSize);
  file.read_at(0, prelude, have);
  const size_t total = npy_header_bytes({prelude, have}, file.size(), file.path());
  std::vector<uint8_t> bytes(total);
  file.read_at(0, bytes.data(), total);
  return parse_npy_file_header(bytes, file.size(), file.path());
}

NpyLayout npy_layout(const NpyHeader& header) {
  NpyLayout l;
  l.dims = header.shape;
  if (header.fortran_order) std::reverse(l.dims.begin(), l.dims.end());
  l.element_size = dtype_size(header.dtype);
  l.data_offset = header.data_offset;
  return l;
}

namespace {

// The planning of read_npy_box: calls on_read(offset, span, first, run, offsets) for each read,
// in file order: `span` bytes at `offset` holding the box's runs first, first + 1, ... (`run`
// bytes each) at the file offsets `offsets`. An empty box makes no read.
template <class OnRead>
void plan_npy_box(const NpyLayout& layout, std::span<const int64_t> anchor,
                  std::span<const int64_t> shape, size_t max_gap, OnRead on_read) {
  const int nd = static_cast<int>(layout.dims.size());
  SLUICE_ENFORCE(static_cast<int>(anchor.size()) == nd && static_cast<int>(shape.size()) == nd,
                 "box of the wrong rank");
  bool empty = false;
  for (int d = 0; d < nd; ++d) {
    SLUICE_ENFORCE(anchor[d] >= 0 && shape[d] >= 0 && anchor[d] + shape[d] <= layout.dims[d],
                   "box outside the array");
    empty = empty || shape[d] == 0;
  }
  // An empty box reads nothing; a non-empty one lies inside an array whose size the header
  // parser bounded, so the products below cannot overflow.
  if (empty) return;
  int64_t total = 1;
  for (int d = 0; d < nd; ++d) total *= shape[d];
  const size_t elem = layout.element_size;
  // Dimensions k+1.. are whole, so a run spans shape[k] * (their volume) elements.
  int k = nd - 1;
  int64_t inner = 1;
  while (k > 0 && anchor[k] == 0 && shape[k] == layout.dims[k]) inner *= layout.dims[k--];
  const size_t run = static_cast<size_t>(nd == 0 ? 1 : shape[k] * inner) * elem;
  std::vector<int64_t> stride(std::max(nd, 1), 1);
  for (int d = nd - 2; d >= 0; --d) stride[d] = stride[d + 1] * layout.dims[d + 1];
  const int64_t runs = total * static_cast<int64_t>(elem) / static_cast<int64_t>(run);

  // Runs in order, merged into chunks [first, first + count) while the gaps stay small.
  std::vector<int64_t> idx(std::max(k, 0), 0);  // position over dimensions 0..k-1
  auto run_offset = [&]() {
    int64_t e = nd == 0 ? 0 : anchor[k] * stride[k];
    for (int d = 0; d < k; ++d) e += (anchor[d] + idx[d]) * stride[d];
    return static_cast<uint64_t>(layout.data_offset) + static_cast<uint64_t>(e) * elem;
  };
  auto advance = [&]() {
    for (int d = k - 1; d >= 0; --d) {
      if (++idx[d] < shape[d]) return;
      idx[d] = 0;
    }
  };
  constexpr size_t kMaxChunk = size_t{8} << 20;
  std::vector<uint64_t> offsets;
  int64_t done = 0;
  uint64_t next = run_offset();
  while (done < runs) {
    offsets.clear();
    offsets.push_back(next);
    advance();
    ++done;
    while (done < runs) {
      next = run_offset();
      const uint64_t end = offsets.back() + run;
      if (next < end || next - end > max_gap || next + run - offsets.front() > kMaxChunk) break;
      offsets.push_back(next);
      advance();
      ++done;
    }
    const size_t span = offsets.back() + run - offsets.front();
    on_read(offsets.front(), span, done - static_cast<int64_t>(offsets.size()), run,
            std::span<const uint64_t>(offsets));
  }
}

}  // namespace

void read_npy_box(const NpyReadAt& read_at, const NpyLayout& layout,
                  std::span<const int64_t> anchor, std::span<const int64_t> shape, void* dst,
                  std::vector<uint8_t>& scratch, size_t max_gap) {
  auto* out = static_cast<uint8_t*>(dst);
  plan_npy_box(layout, anchor, shape, max_gap,
               [&](uint64_t offset, size_t span, int64_t first, size_t run,
                   std::span<const uint64_t> offsets) {
                 uint8_t* to = out + first * run;
                 if (offsets.size() == 1) {
                   read_at(offset, to, run);
                   return;
                 }
                 if (scratch.size() < span) scratch.resize(span);
                 read_at(offset, scratch.data(), span);
                 for (size_t i = 0; i < offsets.size(); ++i) {
                   std::memcpy(to + i * run, scratch.data() + (offsets[i] - offset), run);
                 }
               });
}

void read_npy_box(const ReadableFile& file, const NpyLayout& layout,
                  std::span<const int64_t> anchor, std::span<const int64_t> shape, void* dst,
                  std::vector<uint8_t>& scratch, size_t max_gap) {
  read_npy_box([&](uint64_t offset, void* to, size_t n) { file.read_at(offset, to, n); }, layout,
               anchor, shape, dst, scratch, max_gap);
}

std::vector<NpyByteRange> npy_box_ranges(const NpyLayout& layout, std::span<const int64_t> anchor,
                                         std::span<const int64_t> shape, size_t max_gap) {
  std::vector<NpyByteRange> out;
  plan_npy_box(layout, anchor, shape, max_gap,
               [&](uint64_t offset, size_t span, int64_t, size_t, std::span<const uint64_t>) {
                 out.push_back({offset, span});
               });
  return out;
}

}  // namespace sluice
