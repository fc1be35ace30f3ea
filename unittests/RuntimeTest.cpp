//===- RuntimeTest.cpp - the runtime's C ABI ------------------------------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Runtime/WrapperRuntime.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {
std::string tempPath(const char *name) {
  return std::string(::testing::TempDir()) + "/" + name + "_" +
         std::to_string(getpid()) + ".npy";
}

TEST(Runtime, AllocRespectsAlignmentAndLimit) {
  void *p = nullptr;
  ASSERT_EQ(wrapper_alloc(1000, 64, &p), WRAPPER_OK);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
  EXPECT_GE(wrapper_allocated_bytes(), 1000u);
  wrapper_set_alloc_limit(wrapper_allocated_bytes() + 100);
  void *q = nullptr;
  EXPECT_EQ(wrapper_alloc(1000, 64, &q), WRAPPER_ERROR_LIMIT);
  EXPECT_EQ(q, nullptr);
  EXPECT_NE(std::string(wrapper_last_error()).find("above the limit"),
            std::string::npos);
  wrapper_set_alloc_limit(0);
  wrapper_free(p);
  EXPECT_EQ(wrapper_alloc(8, 3, &q), WRAPPER_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(wrapper_alloc(8, 64, nullptr), WRAPPER_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(wrapper_alloc(SIZE_MAX - 8, 64, &q), WRAPPER_ERROR_OUT_OF_MEMORY);
  wrapper_free(nullptr);
}

uint64_t cacheHits() {
  uint64_t hits = 0;
  wrapper_alloc_cache_stats(nullptr, &hits, nullptr);
  return hits;
}
uint64_t keptBytes() {
  uint64_t kept = 0;
  wrapper_alloc_cache_stats(&kept, nullptr, nullptr);
  return kept;
}

TEST(Runtime, BlockCacheReusesFreedBlocks) {
  wrapper_set_alloc_cache_limit(64 << 20);
  wrapper_release_cached_memory();
  void *a = _mlir_memref_to_llvm_alloc(3 << 20);
  ASSERT_NE(a, nullptr);
  memset(a, 1, 3 << 20);
  _mlir_memref_to_llvm_free(a);
  EXPECT_GE(keptBytes(), uint64_t(3) << 20);
  uint64_t hits = cacheHits();
  // The same size class: 3 MiB and 2.9 MiB are both in (2.5, 3] MiB.
  void *b = _mlir_memref_to_llvm_alloc((3 << 20) - 100000);
  EXPECT_EQ(b, a);
  EXPECT_EQ(cacheHits(), hits + 1);
  EXPECT_EQ(keptBytes(), 0u);
  // Counted allocations share the cache and keep their counts exact.
  uint64_t live = wrapper_allocated_bytes();
  void *c = nullptr;
  ASSERT_EQ(wrapper_alloc(5000, 256, &c), WRAPPER_OK);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(c) % 256, 0u);
  EXPECT_EQ(wrapper_allocated_bytes(), live + 5000);
  wrapper_free(c);
  EXPECT_EQ(wrapper_allocated_bytes(), live);
  _mlir_memref_to_llvm_free(b);
  EXPECT_GT(wrapper_release_cached_memory(), uint64_t(3) << 20);
  EXPECT_EQ(keptBytes(), 0u);
}

TEST(Runtime, BlockCacheLimit) {
  wrapper_set_alloc_cache_limit(0);
  void *a = _mlir_memref_to_llvm_alloc(1 << 20);
  _mlir_memref_to_llvm_free(a);
  EXPECT_EQ(keptBytes(), 0u);
  // A limit below what is kept frees down to it.
  wrapper_set_alloc_cache_limit(8 << 20);
  std::vector<void *> blocks;
  for (int i = 0; i < 6; ++i)
    blocks.push_back(_mlir_memref_to_llvm_alloc(1 << 20));
  for (void *block : blocks)
    _mlir_memref_to_llvm_free(block);
  EXPECT_GE(keptBytes(), uint64_t(6) << 20);
  EXPECT_LE(keptBytes(), uint64_t(8) << 20);
  wrapper_set_alloc_cache_limit(2 << 20);
  EXPECT_LE(keptBytes(), uint64_t(2) << 20);
  wrapper_set_alloc_cache_limit(64 << 20);
  wrapper_release_cached_memory();
}

TEST(Runtime, BlockCacheInteroperatesWithMalloc) {
  wrapper_set_alloc_cache_limit(64 << 20);
  // Code compiled without the runtime allocator frees with free(), and
  // extern results come from the cache: either may release the other's.
  void *a = _mlir_memref_to_llvm_alloc(100000);
  std::free(a);
  void *b = std::malloc(200000);
  _mlir_memref_to_llvm_free(b);
  void *c = nullptr;
  ASSERT_EQ(posix_memalign(&c, 64, 300000), 0);
  _mlir_memref_to_llvm_free(c);
  void *d = _mlir_memref_to_llvm_aligned_alloc(4096, 200000);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(d) % 4096, 0u);
  _mlir_memref_to_llvm_free(d);
  _mlir_memref_to_llvm_free(nullptr);
  wrapper_release_cached_memory();
}

TEST(Runtime, BlockCacheFromManyThreads) {
  // Eight threads allocate, fill, check and free blocks of shared size
  // classes: a block handed to two users at once shows as a wrong fill.
  wrapper_set_alloc_cache_limit(64 << 20);
  std::vector<std::thread> threads;
  std::vector<int> failures(8, 0);
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([t, &failures] {
      std::mt19937 random(t);
      std::vector<std::pair<unsigned char *, size_t>> live;
      for (int i = 0; i < 2000; ++i) {
        if (live.size() < 8 && random() % 3 != 0) {
          size_t bytes = 64 + random() % 200000;
          auto *p =
              static_cast<unsigned char *>(_mlir_memref_to_llvm_alloc(bytes));
          memset(p, t + 1, bytes);
          live.emplace_back(p, bytes);
        } else if (!live.empty()) {
          auto [p, bytes] = live.back();
          live.pop_back();
          failures[t] += p[0] != t + 1 || p[bytes - 1] != t + 1;
          _mlir_memref_to_llvm_free(p);
        }
      }
      for (auto [p, bytes] : live)
        _mlir_memref_to_llvm_free(p);
    });
  for (std::thread &thread : threads)
    thread.join();
  for (int t = 0; t < 8; ++t)
    EXPECT_EQ(failures[t], 0) << "thread " << t;
  EXPECT_LE(keptBytes(), uint64_t(64) << 20);
  wrapper_release_cached_memory();
}

TEST(Runtime, CallScopeFreesWhatAFailedCallHeld) {
  // Thousands of blocks (the record grows and rehashes), half of them freed
  // in a shuffled order (deletion by backward shift), then the scope ends
  // with a failure: exactly the blocks still live are freed.
  int64_t before = wrapper_live_blocks();
  std::vector<void *> blocks;
  std::mt19937 random(3);
  wrapper_call_scope_begin();
  for (int i = 0; i < 5000; ++i)
    blocks.push_back(_mlir_memref_to_llvm_alloc(16 + random() % 4096));
  std::shuffle(blocks.begin(), blocks.end(), random);
  for (size_t i = 0; i < blocks.size() / 2; ++i)
    _mlir_memref_to_llvm_free(blocks[i]);
  EXPECT_EQ(wrapper_live_blocks(), before + 2500);
  EXPECT_EQ(wrapper_call_scope_end(WRAPPER_ERROR_OUT_OF_MEMORY),
            WRAPPER_ERROR_OUT_OF_MEMORY);
  EXPECT_EQ(wrapper_live_blocks(), before);

  // A call that returns keeps its results; wrapper_alloc's blocks belong to
  // the caller and are never freed by a scope.
  wrapper_call_scope_begin();
  void *result = _mlir_memref_to_llvm_alloc(100);
  void *owned = nullptr;
  ASSERT_EQ(wrapper_alloc(100, 16, &owned), WRAPPER_OK);
  EXPECT_EQ(wrapper_call_scope_end(WRAPPER_OK), WRAPPER_OK);
  EXPECT_EQ(wrapper_live_blocks(), before + 2);
  _mlir_memref_to_llvm_free(result);
  wrapper_call_scope_begin();
  void *inner = _mlir_memref_to_llvm_alloc(100);
  EXPECT_EQ(wrapper_call_scope_end(WRAPPER_ERROR_EXTERNAL),
            WRAPPER_ERROR_EXTERNAL);
  (void)inner;
  EXPECT_EQ(wrapper_live_blocks(), before + 1);
  wrapper_free(owned);

  // Nested scopes: the inner one's failure frees only its own blocks.
  wrapper_call_scope_begin();
  void *outer = _mlir_memref_to_llvm_alloc(64);
  wrapper_call_scope_begin();
  _mlir_memref_to_llvm_alloc(64);
  wrapper_call_scope_end(WRAPPER_ERROR_EXTERNAL);
  EXPECT_EQ(wrapper_live_blocks(), before + 1);
  wrapper_call_scope_end(WRAPPER_OK);
  _mlir_memref_to_llvm_free(outer);
  EXPECT_EQ(wrapper_live_blocks(), before);
}

TEST(Runtime, ArraysAdoptCompiledCodesBlocks) {
  // Model containers hand a result's block to the caller as an array
  // (wrapper_array_adopt_block): destroying the array gives the block back,
  // outside wrapper_alloc's live bytes; arrays of wrapper_array_create,
  // destroyed in between, are unaffected.
  int64_t before = wrapper_live_blocks();
  uint64_t bytes = wrapper_allocated_bytes();
  std::vector<wrapper_array> adopted(3000), created(100);
  std::mt19937 random(5);
  const int64_t shape[2] = {4, 8};
  for (wrapper_array &array : adopted) {
    void *block = _mlir_memref_to_llvm_alloc(4 * 8 * 4);
    ASSERT_EQ(
        wrapper_array_adopt_block(WRAPPER_DTYPE_F32, 2, shape, block, &array),
        WRAPPER_OK);
    EXPECT_EQ(array.data, block);
    EXPECT_EQ(wrapper_array_numel(&array), 32);
    static_cast<float *>(array.data)[31] = 1.0f;
  }
  for (wrapper_array &array : created)
    ASSERT_EQ(wrapper_array_create(WRAPPER_DTYPE_F32, 2, shape, &array),
              WRAPPER_OK);
  EXPECT_EQ(wrapper_live_blocks(), before + 3100);
  EXPECT_EQ(wrapper_allocated_bytes(), bytes + 100 * 128);
  std::shuffle(adopted.begin(), adopted.end(), random);
  for (size_t i = 0; i < adopted.size(); ++i) {
    wrapper_array_destroy(&adopted[i]);
    EXPECT_EQ(adopted[i].data, nullptr);
    if (i < created.size())
      wrapper_array_destroy(&created[i]);
  }
  EXPECT_EQ(wrapper_live_blocks(), before);
  EXPECT_EQ(wrapper_allocated_bytes(), bytes);

  // Refusals name the argument.
  wrapper_array array;
  EXPECT_EQ(
      wrapper_array_adopt_block(WRAPPER_DTYPE_F32, 2, shape, nullptr, &array),
      WRAPPER_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(wrapper_last_error()).find("NULL"), std::string::npos);
  void *block = _mlir_memref_to_llvm_alloc(16);
  EXPECT_EQ(wrapper_array_adopt_block(WRAPPER_DTYPE_F32, WRAPPER_MAX_RANK + 1,
                                      shape, block, &array),
            WRAPPER_ERROR_INVALID_ARGUMENT);
  _mlir_memref_to_llvm_free(block);
  EXPECT_EQ(wrapper_live_blocks(), before);
}

// DLPack v0.8's layout, as a consumer of wrapper_dlpack_arrays sees it.
struct TestDLTensor {
  void *data;
  int32_t deviceType, deviceId;
  int32_t ndim;
  uint8_t code, bits;
  uint16_t lanes;
  int64_t *shape, *strides;
  uint64_t byteOffset;
};
struct TestDLManagedTensor {
  TestDLTensor tensor;
  void *context;
  void (*deleter)(TestDLManagedTensor *);
};

TEST(Runtime, DLPackArraysHandOverBlocks) {
  // A model's outputs handed to a framework in one call: each tensor owns
  // its array's block (the array's data becomes NULL) until its deleter.
  int64_t before = wrapper_live_blocks();
  const int64_t shape[2] = {4, 8};
  wrapper_array arrays[4];
  ASSERT_EQ(wrapper_array_adopt_block(WRAPPER_DTYPE_F32, 2, shape,
                                      _mlir_memref_to_llvm_alloc(128),
                                      &arrays[0]),
            WRAPPER_OK);
  ASSERT_EQ(wrapper_array_adopt_block(WRAPPER_DTYPE_BF16, 0, shape,
                                      _mlir_memref_to_llvm_alloc(2),
                                      &arrays[1]),
            WRAPPER_OK);
  ASSERT_EQ(wrapper_array_adopt_block(WRAPPER_DTYPE_BOOL, 1, shape,
                                      _mlir_memref_to_llvm_alloc(4),
                                      &arrays[2]),
            WRAPPER_OK);
  const int64_t empty[1] = {0};
  ASSERT_EQ(wrapper_array_create(WRAPPER_DTYPE_I64, 1, empty, &arrays[3]),
            WRAPPER_OK);
  void *data[4];
  for (int i = 0; i < 4; ++i)
    data[i] = arrays[i].data;
  void *managed[4];
  ASSERT_EQ(wrapper_dlpack_arrays(arrays, 4, managed), WRAPPER_OK);
  const struct {
    int32_t ndim;
    uint8_t code, bits;
  } expected[4] = {{2, 2, 32}, {0, 4, 16}, {1, 6, 8}, {1, 0, 64}};
  for (int i = 0; i < 4; ++i) {
    auto *tensor = static_cast<TestDLManagedTensor *>(managed[i]);
    ASSERT_NE(tensor, nullptr);
    EXPECT_EQ(arrays[i].data, nullptr);
    EXPECT_EQ(tensor->tensor.data, data[i]);
    EXPECT_EQ(tensor->tensor.deviceType, 1); // kDLCPU
    EXPECT_EQ(tensor->tensor.ndim, expected[i].ndim);
    EXPECT_EQ(tensor->tensor.code, expected[i].code);
    EXPECT_EQ(tensor->tensor.bits, expected[i].bits);
    EXPECT_EQ(tensor->tensor.lanes, 1);
    EXPECT_EQ(tensor->tensor.strides, nullptr);
    EXPECT_EQ(tensor->tensor.byteOffset, 0u);
    for (int d = 0; d < expected[i].ndim; ++d)
      EXPECT_EQ(tensor->tensor.shape[d], i == 3 ? 0 : shape[d]);
    wrapper_array_destroy(&arrays[i]); // owns nothing now: a no-op
  }
  EXPECT_EQ(wrapper_live_blocks(), before + 4);
  for (void *m : managed) {
    auto *tensor = static_cast<TestDLManagedTensor *>(m);
    tensor->deleter(tensor);
  }
  EXPECT_EQ(wrapper_live_blocks(), before);

  // A dtype DLPack lacks (fp8) in the middle: nothing is left, the message
  // names the array.
  for (wrapper_array &array : arrays)
    ASSERT_EQ(wrapper_array_adopt_block(WRAPPER_DTYPE_F32, 1, shape,
                                        _mlir_memref_to_llvm_alloc(16), &array),
              WRAPPER_OK);
  arrays[2].dtype = WRAPPER_DTYPE_F8E4M3FN;
  EXPECT_EQ(wrapper_dlpack_arrays(arrays, 4, managed),
            WRAPPER_ERROR_UNSUPPORTED);
  EXPECT_NE(std::string(wrapper_last_error()).find("array #2"),
            std::string::npos);
  EXPECT_NE(std::string(wrapper_last_error()).find("float8"),
            std::string::npos);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(managed[i], nullptr);
    EXPECT_EQ(arrays[i].data, nullptr);
  }
  EXPECT_EQ(wrapper_live_blocks(), before);
  EXPECT_EQ(wrapper_dlpack_arrays(arrays, -1, managed),
            WRAPPER_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(wrapper_dlpack_arrays(nullptr, 1, managed),
            WRAPPER_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(wrapper_dlpack_arrays(nullptr, 0, nullptr), WRAPPER_OK);
}

TEST(Runtime, CallScopeOfAnExitingThreadIsFreed) {
  int64_t before = wrapper_live_blocks();
  std::thread([] {
    wrapper_call_scope_begin();
    for (int i = 0; i < 100; ++i)
      _mlir_memref_to_llvm_alloc(1000);
    // The thread ends inside its scope (as one calling pthread_exit from a
    // callback would).
  }).join();
  EXPECT_EQ(wrapper_live_blocks(), before);
}

TEST(Runtime, InjectedAllocationFailure) {
  // The countdown lets one allocation through, refuses the next with a
  // message saying so, then disarms. (Compiled code's sites are injected
  // through model.so: test/Tools/wrapper-compile/fault-injection.c.)
  int64_t before = wrapper_live_blocks();
  wrapper_fail_allocation_after(1);
  void *first = nullptr;
  EXPECT_EQ(wrapper_alloc(10, 16, &first), WRAPPER_OK);
  void *second = nullptr;
  EXPECT_EQ(wrapper_alloc(10, 16, &second), WRAPPER_ERROR_OUT_OF_MEMORY);
  EXPECT_NE(std::string(wrapper_last_error())
                .find("injected by wrapper_fail_allocation_after"),
            std::string::npos);
  void *third = nullptr;
  EXPECT_EQ(wrapper_alloc(10, 16, &third), WRAPPER_OK); // disarmed
  wrapper_free(first);
  wrapper_free(third);
  EXPECT_EQ(wrapper_live_blocks(), before);
}

TEST(Runtime, HalfConversions) {
  EXPECT_EQ(wrapper_f32_to_f16(1.0f), 0x3c00);
  EXPECT_EQ(wrapper_f32_to_f16(-2.0f), 0xc000);
  EXPECT_EQ(wrapper_f32_to_f16(65504.0f), 0x7bff);
  EXPECT_EQ(wrapper_f32_to_f16(1e6f), 0x7c00);          // overflow to inf
  EXPECT_EQ(wrapper_f32_to_f16(5.9604645e-8f), 0x0001); // smallest subnormal
  EXPECT_FLOAT_EQ(wrapper_f16_to_f32(0x3555), 0.33325195f);
  EXPECT_TRUE(std::isnan(wrapper_f16_to_f32(wrapper_f32_to_f16(NAN))));
  // Round to nearest even: 1 + 2^-11 is halfway between 1 and 1 + 2^-10.
  EXPECT_EQ(wrapper_f32_to_f16(1.0f + 1.0f / 2048), 0x3c00);
  EXPECT_EQ(wrapper_f32_to_bf16(1.0f), 0x3f80);
  EXPECT_FLOAT_EQ(wrapper_bf16_to_f32(0x4049), 3.140625f);
  for (int bits = 0; bits < 0x7c00; bits += 7)
    EXPECT_EQ(wrapper_f32_to_f16(wrapper_f16_to_f32(bits)), bits);
}

TEST(Runtime, NpyRoundTrip) {
  int64_t shape[] = {2, 3, 4};
  wrapper_array a;
  ASSERT_EQ(wrapper_array_create(WRAPPER_DTYPE_F32, 3, shape, &a), WRAPPER_OK);
  for (int i = 0; i < 24; ++i)
    static_cast<float *>(a.data)[i] = i * 0.5f;
  std::string path = tempPath("roundtrip");
  ASSERT_EQ(wrapper_npy_save(path.c_str(), &a), WRAPPER_OK);
  wrapper_array b;
  ASSERT_EQ(wrapper_npy_load(path.c_str(), &b), WRAPPER_OK)
      << wrapper_last_error();
  EXPECT_EQ(b.dtype, WRAPPER_DTYPE_F32);
  ASSERT_EQ(b.rank, 3);
  EXPECT_EQ(b.shape[2], 4);
  EXPECT_EQ(std::memcmp(a.data, b.data, 24 * sizeof(float)), 0);
  wrapper_array_destroy(&a);
  wrapper_array_destroy(&b);
  // Rank 0 and rank 1 shapes print as () and (n,).
  wrapper_array s;
  ASSERT_EQ(wrapper_array_create(WRAPPER_DTYPE_I64, 0, nullptr, &s),
            WRAPPER_OK);
  ASSERT_EQ(wrapper_npy_save(path.c_str(), &s), WRAPPER_OK);
  wrapper_array t;
  ASSERT_EQ(wrapper_npy_load(path.c_str(), &t), WRAPPER_OK);
  EXPECT_EQ(t.rank, 0);
  wrapper_array_destroy(&s);
  wrapper_array_destroy(&t);
  std::remove(path.c_str());
}

/// Writes a .npy file with `header` (the dict text) and `payload` bytes.
std::string writeNpy(const char *name, const std::string &header,
                     size_t payload) {
  std::string path = tempPath(name);
  FILE *f = std::fopen(path.c_str(), "wb");
  std::string dict = header;
  while ((10 + dict.size() + 1) % 64)
    dict += ' ';
  dict += '\n';
  unsigned char pre[10] = {0x93,
                           'N',
                           'U',
                           'M',
                           'P',
                           'Y',
                           1,
                           0,
                           (unsigned char)(dict.size() & 0xff),
                           (unsigned char)(dict.size() >> 8)};
  std::fwrite(pre, 1, 10, f);
  std::fwrite(dict.data(), 1, dict.size(), f);
  for (size_t i = 0; i < payload; ++i)
    std::fputc(0, f);
  std::fclose(f);
  return path;
}

TEST(Runtime, NpyRefusesWhatItCannotRead) {
  struct Case {
    const char *header;
    size_t payload;
    wrapper_status status;
    const char *message;
  } cases[] = {
      {"{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", 8,
       WRAPPER_ERROR_UNSUPPORTED, "has dtype '>f4'"},
      {"{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", 16,
       WRAPPER_ERROR_UNSUPPORTED, "has dtype '<c8'"},
      {"{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", 16,
       WRAPPER_ERROR_UNSUPPORTED, "is in Fortran order"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }", 12,
       WRAPPER_ERROR_FORMAT,
       "holds 12 bytes of data, but its shape and dtype "
       "need 16"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }", 20,
       WRAPPER_ERROR_FORMAT, "holds 20 bytes"},
      {"{'descr': '<f4', 'fortran_order': False, }", 0, WRAPPER_ERROR_FORMAT,
       "expected the keys"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (x), }", 0,
       WRAPPER_ERROR_FORMAT, "malformed 'shape'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': "
       "(4611686018427387904, 4), }",
       0, WRAPPER_ERROR_LIMIT, "overflows"},
  };
  for (const Case &c : cases) {
    std::string path = writeNpy("bad", c.header, c.payload);
    wrapper_array a;
    EXPECT_EQ(wrapper_npy_load(path.c_str(), &a), c.status) << c.header;
    EXPECT_NE(std::string(wrapper_last_error()).find(c.message),
              std::string::npos)
        << wrapper_last_error();
    EXPECT_EQ(a.data, nullptr);
    std::remove(path.c_str());
  }
  wrapper_array a;
  EXPECT_EQ(wrapper_npy_load("/nonexistent/x.npy", &a), WRAPPER_ERROR_IO);
  EXPECT_EQ(wrapper_npy_load(nullptr, &a), WRAPPER_ERROR_INVALID_ARGUMENT);
  int64_t negative[] = {-1};
  EXPECT_EQ(wrapper_array_create(WRAPPER_DTYPE_F32, 1, negative, &a),
            WRAPPER_ERROR_INVALID_ARGUMENT);
  int64_t shape[] = {2};
  ASSERT_EQ(wrapper_array_create(WRAPPER_DTYPE_BF16, 1, shape, &a), WRAPPER_OK);
  EXPECT_EQ(wrapper_npy_save(tempPath("bf16").c_str(), &a),
            WRAPPER_ERROR_UNSUPPORTED);
  wrapper_array_destroy(&a);
}
} // namespace
