// libFuzzer target: the .npy header parser (io/npy_header.h) and region reads (io/npy_file.h).
//
// Per input:
//  1. parse_npy_header over the bytes: DecodeError is the only allowed exception; on success the
//     header must be sane (data offset = npy_header_size, dimensions >= 0, element count and
//     byte size consistent with the shape and type);
//  2. when the data the header describes fits in the input (and is at most 1 MiB), the input is
//     written to a memfd and read back as a file: read_npy_header must agree with (1), and a box
//     chosen from the input's hash, read with read_npy_box (with and without merging of nearby
//     runs), must equal the same elements picked out of the input bytes directly; so must the box
//     read from memory through the byte ranges npy_box_ranges plans (as object storage reads it),
//     and the header checked from the bytes (npy_header_bytes, parse_npy_file_header) must agree.

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include "fuzz_common.h"
#include "sluice/core/error.h"
#include "sluice/io/npy_file.h"
#include "sluice/io/npy_header.h"

namespace {

using namespace sluice;
using sluice::fuzz::Choices;
using sluice::fuzz::fuzz_fail;
using sluice::fuzz::fuzz_fail_unexpected;

void check_header(const NpyHeader& h, std::span<const uint8_t> in) {
  if (static_cast<size_t>(h.data_offset) != npy_header_size(in)) fuzz_fail("data offset");
  if (h.shape.size() > static_cast<size_t>(kMaxNpyDims)) fuzz_fail("too many dimensions");
  int64_t n = 1;
  for (int64_t d : h.shape) {
    if (d < 0) fuzz_fail("negative dimension");
    n *= d;
  }
  if (n != h.num_elements) fuzz_fail("element count");
  if (h.data_bytes != n * static_cast<int64_t>(dtype_size(h.dtype))) fuzz_fail("byte count");
}

void check_box(const uint8_t* data, size_t size, const NpyHeader& h, Choices& c) {
  int fd = memfd_create("npy", 0);
  if (fd < 0) return;  // no memfd here: the header checks still ran
  for (size_t done = 0; done < size;) {
    ssize_t w = write(fd, data + done, size - done);
    if (w <= 0) fuzz_fail("cannot write the memfd");
    done += static_cast<size_t>(w);
  }
  {
    ReadableFile file("/proc/self/fd/" + std::to_string(fd));
    NpyHeader again = read_npy_header(file);
    if (again.shape != h.shape || again.dtype != h.dtype || again.data_offset != h.data_offset) {
      fuzz_fail("read_npy_header disagrees with parse_npy_header");
    }
    NpyHeader from_bytes = parse_npy_file_header(
        {data, npy_header_bytes({data, size}, size, "memory")}, size, "memory");
    if (from_bytes.shape != h.shape || from_bytes.data_offset != h.data_offset) {
      fuzz_fail("parse_npy_file_header disagrees with parse_npy_header");
    }
    NpyLayout l = npy_layout(h);
    const int nd = static_cast<int>(l.dims.size());
    std::vector<int64_t> anchor(nd), shape(nd), stride(nd, 1);
    bool empty = false;
    for (int d = 0; d < nd; ++d) {
      anchor[d] = c.below(l.dims[d] + 1);
      shape[d] = c.below(l.dims[d] - anchor[d] + 1);
      empty = empty || shape[d] == 0;
    }
    // An empty array may have huge other dimensions: only a non-empty box's volume and the
    // strides of a non-empty array are bounded by the header's size check.
    int64_t vol = 0;
    if (!empty) {
      vol = 1;
      for (int d = 0; d < nd; ++d) vol *= shape[d];
      for (int d = nd - 2; d >= 0; --d) stride[d] = stride[d + 1] * l.dims[d + 1];
    }
    const size_t elem = l.element_size;
    std::vector<uint8_t> out(vol * elem), scratch;
    for (size_t gap : {size_t{0}, size_t{1} << 16}) {
      std::fill(out.begin(), out.end(), 0xAB);
      read_npy_box(file, l, anchor, shape, out.data(), scratch, gap);
      // The same box from memory, through the planned ranges in their order.
      const std::vector<NpyByteRange> ranges = npy_box_ranges(l, anchor, shape, gap);
      std::vector<uint8_t> again(out.size(), 0xCD);
      size_t next = 0;
      read_npy_box(
          [&](uint64_t offset, void* dst, size_t n) {
            if (next >= ranges.size() || ranges[next].offset != offset ||
                ranges[next].length != n || offset + n > size) {
              fuzz_fail("read_npy_box read other ranges than npy_box_ranges planned");
            }
            ++next;
            std::memcpy(dst, data + offset, n);
          },
          l, anchor, shape, again.data(), scratch, gap);
      if (next != ranges.size() || again != out) fuzz_fail("the box read through ranges differs");
      std::vector<int64_t> idx(nd, 0);
      for (int64_t k = 0; k < vol; ++k) {
        int64_t e = 0;
        for (int d = 0; d < nd; ++d) e += (anchor[d] + idx[d]) * stride[d];
        if (std::memcmp(out.data() + k * elem, data + h.data_offset + e * elem, elem) != 0) {
          fuzz_fail("read_npy_box returned other bytes than the array's");
        }
        for (int d = nd - 1; d >= 0; --d) {
          if (++idx[d] < shape[d]) break;
          idx[d] = 0;
        }
      }
    }
  }
  close(fd);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const uint8_t> in(data, size);
  NpyHeader h;
  try {
    h = parse_npy_header(in);
  } catch (const DecodeError&) {
    return 0;
  } catch (const std::exception& e) {
    fuzz_fail_unexpected("parse_npy_header", e);
  }
  check_header(h, in);
  const uint64_t end = static_cast<uint64_t>(h.data_offset) + h.data_bytes;
  if (end <= size && h.data_bytes <= (1 << 20)) {
    Choices c(data, size);
    try {
      check_box(data, size, h, c);
    } catch (const std::exception& e) {
      fuzz_fail_unexpected("reading the array back", e);
    }
  }
  return 0;
}
