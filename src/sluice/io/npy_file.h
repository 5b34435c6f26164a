#pragma once
// Reading .npy files (npy_header.h): the header of an open file, and a box of the array read
// with pread, only the bytes of the box (plus small gaps between its rows, see read_npy_box).
//
// Errors: DecodeError for a bad header or a file shorter than its header says (truncated), and
// IOError from ReadableFile for files that cannot be read; every message names the file.
//
// Thread safety: the functions may run concurrently on distinct scratch buffers and outputs.

#include <cstdint>
#include <span>
#include <vector>

#include "sluice/io/npy_header.h"
#include "sluice/io/read_file.h"

namespace sluice {

// Reads and parses the header of `file` and checks that the file holds all the data it
// describes.
NpyHeader read_npy_header(const ReadableFile& file);

// The array as stored: its dimensions in storage order (numpy's shape reversed for Fortran
// order, so that the data is C order over `dims`), element size and data offset.
struct NpyLayout {
  std::vector<int64_t> dims;
  size_t element_size = 1;
  int64_t data_offset = 0;
};
NpyLayout npy_layout(const NpyHeader& header);

// Reads the box [anchor, anchor + shape) of the stored array (storage order, inside `dims`) into
// `dst`, densely in C order. The box's contiguous runs are read by pread; runs closer than
// `max_gap` bytes are merged into one read through `scratch` so that a box made of many short
// rows costs few system calls; a run read alone goes straight into `dst`.
void read_npy_box(const ReadableFile& file, const NpyLayout& layout,
                  std::span<const int64_t> anchor, std::span<const int64_t> shape, void* dst,
                  std::vector<uint8_t>& scratch, size_t max_gap = 64 << 10);

}  // namespace sluice
