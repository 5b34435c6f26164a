#pragma once
// Table lookups: one_hot (each input element's class selects one of `classes` output elements)
// and lookup_table (each integer input element indexes a table). The outputs are written as
// raw words of the output type's size, their bits prepared on the host, so the kernels do not
// depend on the output type. Shared by the CPU and CUDA kernels.

#include <cstdint>

#include "sluice/core/dtype.h"
#include "sluice/kernels/common/host_device.h"

namespace sluice::kernels {

// Writes the low `size` bytes (1, 2, 4 or 8) of `bits` as element i of `out`.
SLUICE_HOST_DEVICE inline void store_word(void* out, int size, int64_t i, uint64_t bits) {
  switch (size) {
    case 1:
      static_cast<uint8_t*>(out)[i] = static_cast<uint8_t>(bits);
      return;
    case 2:
      static_cast<uint16_t*>(out)[i] = static_cast<uint16_t>(bits);
      return;
    case 4:
      static_cast<uint32_t*>(out)[i] = static_cast<uint32_t>(bits);
      return;
    default:
      static_cast<uint64_t*>(out)[i] = bits;
      return;
  }
}

// Element i of `in` read as a class or key, as DALI reads it: integers converted to int64
// (uint64 values past its range give -1), floating-point values truncated toward zero (-1 past
// the int32 range).
SLUICE_HOST_DEVICE inline int64_t lookup_index(const void* in, DType t, int64_t i) {
  switch (t) {
    case DType::kUInt8:
      return static_cast<const uint8_t*>(in)[i];
    case DType::kInt8:
      return static_cast<const int8_t*>(in)[i];
    case DType::kUInt16:
      return static_cast<const uint16_t*>(in)[i];
    case DType::kInt16:
      return static_cast<const int16_t*>(in)[i];
    case DType::kUInt32:
      return static_cast<const uint32_t*>(in)[i];
    case DType::kInt32:
      return static_cast<const int32_t*>(in)[i];
    case DType::kInt64:
      return static_cast<const int64_t*>(in)[i];
    case DType::kUInt64: {
      const uint64_t v = static_cast<const uint64_t*>(in)[i];
      return v > static_cast<uint64_t>(INT64_MAX) ? -1 : static_cast<int64_t>(v);
    }
    case DType::kFloat32:
    case DType::kFloat64: {
      const double v = t == DType::kFloat32 ? static_cast<const float*>(in)[i]
                                            : static_cast<const double*>(in)[i];
      return v > -2147483649.0 && v < 2147483648.0 ? static_cast<int64_t>(v) : -1;
    }
    default:
      return -1;
  }
}

// one_hot of one sample: the input is `outer` x `inner` elements, the output `outer` x
// `classes` x `inner`.
struct OneHotSample {
  const void* in;
  void* out;
  int64_t outer;
  int64_t inner;
};

struct OneHotParams {
  DType in_type;
  int64_t classes;
  int word_size;
  uint64_t on_bits, off_bits;
};

SLUICE_HOST_DEVICE inline void one_hot_element(const OneHotSample& s, const OneHotParams& p,
                                               int64_t o) {
  const int64_t inner = o % s.inner;
  const int64_t rest = o / s.inner;
  const int64_t k = rest % p.classes;
  const int64_t outer = rest / p.classes;
  const int64_t cls = lookup_index(s.in, p.in_type, outer * s.inner + inner);
  store_word(s.out, p.word_size, o, cls == k ? p.on_bits : p.off_bits);
}

// lookup_table of one sample: `n` keys; keys in [0, table_size) take their table entry (words of
// word_size bytes), the others `default_bits`.
struct LookupSample {
  const void* in;
  void* out;
  int64_t n;
};

struct LookupParams {
  DType in_type;
  int word_size;
  const void* table;
  int64_t table_size;
  uint64_t default_bits;
};

SLUICE_HOST_DEVICE inline void lookup_element(const LookupSample& s, const LookupParams& p,
                                              int64_t i) {
  const int64_t key = lookup_index(s.in, p.in_type, i);
  uint64_t bits = p.default_bits;
  if (key >= 0 && key < p.table_size) {
    const uint8_t* t = static_cast<const uint8_t*>(p.table) + key * p.word_size;
    switch (p.word_size) {
      case 1:
        bits = t[0];
        break;
      case 2:
        bits = *reinterpret_cast<const uint16_t*>(t);
        break;
      case 4:
        bits = *reinterpret_cast<const uint32_t*>(t);
        break;
      default:
        bits = *reinterpret_cast<const uint64_t*>(t);
        break;
    }
  }
  store_word(s.out, p.word_size, i, bits);
}

void one_hot_cpu(const OneHotSample& s, const OneHotParams& p);
void lookup_cpu(const LookupSample& s, const LookupParams& p);

// The batch on the GPU: `samples` and p.table in device memory.
void one_hot_gpu(const OneHotSample* samples, int num_samples, int64_t max_out,
                 const OneHotParams& p, void* stream);
void lookup_gpu(const LookupSample* samples, int num_samples, int64_t max_n, const LookupParams& p,
                void* stream);

}  // namespace sluice::kernels
