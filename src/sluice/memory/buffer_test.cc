#include "sluice/memory/buffer.h"

#include <sys/mman.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "sluice/memory/buffer_policy.h"
#include "sluice/memory/memory_resource.h"
#include "sluice/memory/tensor_list.h"

namespace sluice {
namespace {

TEST(Buffer, HostShrinksBelowThresholdAndGrowsByFactor) {
  set_host_buffer_shrink_threshold(0.5);
  set_host_buffer_growth_factor(2.0);
  Buffer b(MemoryKind::kHost);
  b.resize(1000);
  EXPECT_EQ(b.capacity(), 2000u);
  b.resize(1500);  // fits
  EXPECT_EQ(b.capacity(), 2000u);
  for (int i = 1; i < Buffer::kShrinkWindow; ++i) {
    b.resize(i % 2 ? 900 : 800);  // below 0.5 * 2000, but not yet a whole window of them
    EXPECT_EQ(b.capacity(), 2000u);
  }
  b.resize(700);  // the window is full: shrink to its largest request
  EXPECT_EQ(b.capacity(), 900u);
  EXPECT_EQ(b.size(), 700u);
  for (int i = 1; i < Buffer::kShrinkWindow; ++i) b.resize(100);
  b.resize(900);  // a request above the threshold starts the run again
  for (int i = 1; i < Buffer::kShrinkWindow; ++i) b.resize(100);
  EXPECT_EQ(b.capacity(), 900u);
  b.resize(100);
  EXPECT_EQ(b.capacity(), 100u);
  set_host_buffer_shrink_threshold(0.9);
  set_host_buffer_growth_factor(1.0);
}

// A pinned buffer keeps its first size exactly; growing again, it takes the regrowth factor more,
// so that the next slightly larger batch fits without another allocation.
TEST(Buffer, PinnedBufferGrowingAgainTakesHeadroom) {
  Buffer b(MemoryKind::kPinned);
  b.resize(1000);
  EXPECT_EQ(b.capacity(), 1000u);
  b.resize(2000);
  EXPECT_EQ(b.capacity(), static_cast<size_t>(2000 * buffer_policy().regrowth_factor));
  const void* data = b.data();
  b.resize(2100);
  EXPECT_EQ(b.data(), data);
  EXPECT_EQ(b.size(), 2100u);
}

// How many of the first `bytes` of `p` are in resident pages (mincore).
size_t resident_bytes(const void* p, size_t bytes) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> in_core((bytes + page - 1) / page);
  EXPECT_EQ(mincore(const_cast<void*>(p), bytes, in_core.data()), 0);
  size_t n = 0;
  for (unsigned char c : in_core) n += (c & 1) ? page : 0;
  return n;
}

// A large host buffer that grows or shrinks keeps the pages it had written (mremap), so a batch a
// little larger than the last one faults in only the difference.
TEST(Buffer, LargeHostBufferKeepsItsPagesWhenItGrowsOrShrinks) {
  const size_t mb = size_t(1) << 20;
  Buffer b(MemoryKind::kHost);
  b.resize(8 * mb);
  std::memset(b.data(), 1, 8 * mb);
  const size_t allocated = host_memory().stats().allocated;
  b.resize(9 * mb);
  EXPECT_EQ(host_memory().stats().allocated, allocated + mb);
  EXPECT_EQ(resident_bytes(b.data(), 8 * mb), 8 * mb);
  EXPECT_EQ(static_cast<unsigned char*>(b.data())[8 * mb - 1], 1);
  std::memset(static_cast<char*>(b.data()) + 8 * mb, 2, mb);  // the new part is usable

  for (int i = 0; i < Buffer::kShrinkWindow; ++i) b.resize(2 * mb);
  EXPECT_EQ(b.capacity(), 2 * mb);
  EXPECT_EQ(host_memory().stats().allocated, allocated - 6 * mb);
  EXPECT_EQ(resident_bytes(b.data(), 2 * mb), 2 * mb);
}

TEST(Buffer, ReserveIsAFloorForShrinking) {
  Buffer b(MemoryKind::kHost);
  b.reserve(10000);
  b.resize(10);
  EXPECT_EQ(b.capacity(), 10000u);
}

TEST(TensorList, CopyOnWriteNeverOverwritesSharedStorage) {
  TensorList a;
  a.resize_uniform(2, {4}, DType::kInt32);
  a.sample<int32_t>(0)[0] = 7;
  TensorList held = a;  // e.g. an output handed to the user
  a.resize_uniform(2, {4}, DType::kInt32);
  EXPECT_NE(a.raw_data(), held.raw_data());
  EXPECT_EQ(held.sample<int32_t>(0)[0], 7);
  void* p = a.raw_data();
  a.resize_uniform(2, {4}, DType::kInt32);  // unshared: reused in place
  EXPECT_EQ(a.raw_data(), p);
}

TEST(TensorList, PerSampleStorageAndRemap) {
  TensorList t;
  t.resize({{2}, {3}, {1}}, DType::kUInt8, TensorList::Storage::kPerSample);
  EXPECT_FALSE(t.is_contiguous());
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < t.shape(i)[0]; ++j) t.sample<uint8_t>(i)[j] = uint8_t(10 * i + j);
  }
  t.remap_samples({0, 0, 1});
  EXPECT_EQ(t.shape(1), Shape({2}));
  EXPECT_EQ(t.sample<uint8_t>(1)[1], 1);
  EXPECT_EQ(t.shape(2), Shape({3}));
  EXPECT_EQ(t.sample<uint8_t>(2)[2], 12);
}

TEST(TensorList, SharedBorrowedMemoryIsViewedNotCopiedAndReleasedOnce) {
  std::vector<int32_t> owned = {1, 2, 3, 4, 5};
  int released = 0;
  {
    std::shared_ptr<const void> owner(&owned, [&](const void*) { ++released; });
    auto whole = Buffer::borrow(owned.data(), 5 * sizeof(int32_t), MemoryKind::kHost, -1, owner);
    auto tail = Buffer::borrow(owned.data() + 3, 2 * sizeof(int32_t), MemoryKind::kHost, -1, owner);
    owner.reset();
    TensorList contiguous;
    contiguous.share({{3}, {2}}, DType::kInt32, {whole});
    EXPECT_TRUE(contiguous.is_contiguous());
    EXPECT_EQ(contiguous.sample<int32_t>(1), owned.data() + 3);
    TensorList per_sample;
    per_sample.share({{3}, {2}}, DType::kInt32, {whole, tail});
    EXPECT_FALSE(per_sample.is_contiguous());
    EXPECT_EQ(per_sample.sample<int32_t>(1)[1], 5);
    // Writing goes to fresh memory: the borrowed data stays as it was.
    per_sample.resize({{3}, {2}}, DType::kInt32, TensorList::Storage::kPerSample);
    per_sample.sample<int32_t>(0)[0] = 9;
    contiguous.resize_uniform(2, {1}, DType::kInt32);
    contiguous.sample<int32_t>(0)[0] = 9;
    EXPECT_EQ(owned[0], 1);
    EXPECT_EQ(released, 0);
    whole.reset();
    tail.reset();
  }
  EXPECT_EQ(released, 1);
  TensorList t;
  auto small = Buffer::borrow(owned.data(), 4, MemoryKind::kHost, -1, std::make_shared<int>(0));
  EXPECT_THROW(t.share({{2}}, DType::kInt32, {small}), Error);
}

}  // namespace
}  // namespace sluice
