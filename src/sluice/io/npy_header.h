#pragma once
// The header of a .npy file (numpy.lib.format, versions 1.0, 2.0 and 3.0): which array the file
// holds and where its data starts.
//
// A file starts with the magic "\x93NUMPY", a major and a minor version byte and the length of
// the header text: 2 bytes little-endian in version 1.0, 4 bytes in 2.0 and 3.0. The header text
// is a Python dict literal such as {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// padded with spaces to a multiple of 16 (64 in newer numpy) and ended by '\n'. The raw array
// data follows it, C order unless fortran_order.
//
// Accepted: the keys in any order, single or double quotes, Python 2 long suffixes ("3L"), the
// descr types bool, int8..int64, uint8..uint64, float16/32/64 in little-endian ('<'), native
// ('=') or not-applicable ('|') byte order; one-byte types in any byte order. Refused with
// DecodeError saying what is wrong (and where): a missing magic, an unknown version, a header
// longer than kMaxNpyHeaderSize, a header that is not such a dict or lacks a key, big-endian or
// structured/object/string types, negative dimensions, more than kMaxNpyDims dimensions and a
// data size that overflows 64 bits.
//
// Thread safety: pure functions.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "sluice/core/dtype.h"

namespace sluice {

// Bytes that always suffice to learn the header's total size (npy_header_size).
inline constexpr size_t kNpyPreludeSize = 12;
// Limit on the header's total size: numpy itself writes a few hundred bytes.
inline constexpr size_t kMaxNpyHeaderSize = size_t{1} << 20;
inline constexpr int kMaxNpyDims = 64;

struct NpyHeader {
  DType dtype = DType::kUInt8;
  std::vector<int64_t> shape;  // numpy's shape, as the header gives it
  bool fortran_order = false;
  int64_t data_offset = 0;  // the header's total size: where the data starts
  int64_t num_elements = 1;
  int64_t data_bytes = 0;  // num_elements * dtype_size(dtype)
};

// The header's total size (the data offset) from the first bytes of a file: `prelude` needs 10
// bytes for version 1.0 and 12 for 2.0 and 3.0 (kNpyPreludeSize always suffices). Throws
// DecodeError when the bytes are too few or not a supported .npy prelude.
size_t npy_header_size(std::span<const uint8_t> prelude);

// Parses the whole header: `bytes` starts at the beginning of the file and holds at least
// npy_header_size(bytes) bytes (more are ignored).
NpyHeader parse_npy_header(std::span<const uint8_t> bytes);

}  // namespace sluice
