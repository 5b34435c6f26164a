#pragma once
// DLPack ABI structures (https://dmlc.github.io/dlpack/latest/c_api.html), version 1.0, written
// from the specification: both the unversioned DLManagedTensor that older consumers (torch 1.x,
// numpy 1.x) expect and the versioned DLManagedTensorVersioned.

#include <cstdint>

namespace sluice::dlpack {

enum DeviceType : int32_t { kDLCPU = 1, kDLCUDA = 2, kDLCUDAHost = 3 };
enum DataTypeCode : uint8_t { kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLBfloat = 4, kDLBool = 6 };

struct DLDevice {
  int32_t device_type;
  int32_t device_id;
};

struct DLDataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};

struct DLTensor {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;  // null: compact row-major
  uint64_t byte_offset;
};

struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor* self);
};

struct DLPackVersion {
  uint32_t major;
  uint32_t minor;
};

constexpr uint64_t kFlagReadOnly = 1ull << 0;

struct DLManagedTensorVersioned {
  DLPackVersion version;
  void* manager_ctx;
  void (*deleter)(DLManagedTensorVersioned* self);
  uint64_t flags;
  DLTensor dl_tensor;
};

}  // namespace sluice::dlpack
