#include "sluice/io/npy_file.h"

#include <algorithm>
#include <cstring>

#include "sluice/core/error.h"

namespace sluice {

NpyHeader read_npy_header(const ReadableFile& file) {
  const std::string& path = file.path();
  uint8_t prelude[kNpyPreludeSize];
  const size_t have = std::min(file.size(), kNpyPreludeSize);
  file.read_at(0, prelude, have);
  try {
    const size_t total = npy_header_size({prelude, have});
    if (file.size() < total) {
      throw DecodeError(make_string("not a valid .npy file: the header needs ", total,
                                    " bytes but the file has ", file.size()));
    }
    std::vector<uint8_t> bytes(total);
    file.read_at(0, bytes.data(), total);
    NpyHeader h = parse_npy_header(bytes);
    const uint64_t data_end = static_cast<uint64_t>(h.data_offset) + h.data_bytes;
    if (data_end > file.size()) {
      throw DecodeError(make_string("truncated .npy file: the header describes ", h.data_bytes,
                                    " bytes of data after byte ", h.data_offset,
                                    " but the file ends at byte ", file.size()));
    }
    return h;
  } catch (const DecodeError& e) {
    throw DecodeError(make_string("'", path, "': ", e.what()));
  }
}

NpyLayout npy_layout(const NpyHeader& header) {
  NpyLayout l;
  l.dims = header.shape;
  if (header.fortran_order) std::reverse(l.dims.begin(), l.dims.end());
  l.element_size = dtype_size(header.dtype);
  l.data_offset = header.data_offset;
  return l;
}

void read_npy_box(const ReadableFile& file, const NpyLayout& layout,
                  std::span<const int64_t> anchor, std::span<const int64_t> shape, void* dst,
                  std::vector<uint8_t>& scratch, size_t max_gap) {
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
  auto* out = static_cast<uint8_t*>(dst);
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
    uint8_t* to = out + (done - static_cast<int64_t>(offsets.size())) * run;
    if (offsets.size() == 1) {
      file.read_at(offsets[0], to, run);
    } else {
      const size_t span = offsets.back() + run - offsets.front();
      if (scratch.size() < span) scratch.resize(span);
      file.read_at(offsets.front(), scratch.data(), span);
      for (size_t i = 0; i < offsets.size(); ++i) {
        std::memcpy(to + i * run, scratch.data() + (offsets[i] - offsets.front()), run);
      }
    }
  }
}

}  // namespace sluice
