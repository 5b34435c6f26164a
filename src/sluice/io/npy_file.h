#pragma once
// Reading .npy files (npy_header.h): the header of an open file, and a box of the array read
// with pread, only the bytes of the box (plus small gaps between its rows, see read_npy_box).
// The planning of a box's reads is shared with object storage (npy_object.h): npy_box_ranges
// gives the byte ranges that read_npy_box then reads through any NpyReadAt.
//
// Errors: DecodeError for a bad header or a file shorter than its header says (truncated), and
// IOError from ReadableFile for files that cannot be read; every message names the file.
//
// Thread safety: the functions may run concurrently on distinct scratch buffers and outputs.

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "sluice/io/npy_header.h"
#include "sluice/io/read_file.h"

namespace sluice {

// Reads and parses the header of `file` and checks that the file holds all the data it
// describes.
NpyHeader read_npy_header(const ReadableFile& file);

// The same in two steps, for a file read from elsewhere (object storage) and named `name` in
// errors: the header's total size from the file's first min(file_size, 12 or more) bytes
// `prefix` (DecodeError when the file is shorter than that), then the header parsed from the
// file's first bytes (at least that many) with the data checked to fit in `file_size`.
size_t npy_header_bytes(std::span<const uint8_t> prefix, uint64_t file_size,
                        const std::string& name);
NpyHeader parse_npy_file_header(std::span<const uint8_t> bytes, uint64_t file_size,
                                const std::string& name);

// The array as stored: its dimensions in storage order (numpy's shape reversed for Fortran
// order, so that the data is C order over `dims`), element size and data offset.
inline constexpr size_t kNpyMaxGap = size_t{64} << 10;

struct NpyLayout {
  std::vector<int64_t> dims;
  size_t element_size = 1;
  int64_t data_offset = 0;
};
NpyLayout npy_layout(const NpyHeader& header);

// One read of a box: `length` bytes at `offset` of the file.
struct NpyByteRange {
  uint64_t offset = 0;
  size_t length = 0;
};

// Reads `n` bytes at `offset` of the file into `dst` (a local file's pread, or bytes already
// fetched from object storage).
using NpyReadAt = std::function<void(uint64_t offset, void* dst, size_t n)>;

// Reads the box [anchor, anchor + shape) of the stored array (storage order, inside `dims`) into
// `dst`, densely in C order. The box's contiguous runs are read by `read_at`; runs closer than
// `max_gap` bytes are merged into one read (at most 8 MiB, or one run) through `scratch` so that
// a box made of many short rows costs few reads; a run read alone goes straight into `dst`.
void read_npy_box(const NpyReadAt& read_at, const NpyLayout& layout,
                  std::span<const int64_t> anchor, std::span<const int64_t> shape, void* dst,
                  std::vector<uint8_t>& scratch, size_t max_gap = kNpyMaxGap);

// The same, reading `file` with pread.
void read_npy_box(const ReadableFile& file, const NpyLayout& layout,
                  std::span<const int64_t> anchor, std::span<const int64_t> shape, void* dst,
                  std::vector<uint8_t>& scratch, size_t max_gap = kNpyMaxGap);

// The reads read_npy_box makes for the same box and `max_gap`, in the order it makes them, so
// that a remote object can fetch them all at once before read_npy_box consumes them.
std::vector<NpyByteRange> npy_box_ranges(const NpyLayout& layout, std::span<const int64_t> anchor,
                                         std::span<const int64_t> shape,
                                         size_t max_gap = kNpyMaxGap);

}  // namespace sluice
