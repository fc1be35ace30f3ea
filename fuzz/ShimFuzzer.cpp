//===- ShimFuzzer.cpp - the extern shim ABI on malformed descriptors ------===//
//
// Part of the Wrapper project.
//
// libFuzzer target: the bytes describe up to four tensors (dtype, rank and
// sizes taken from the bytes, so they can be unknown, out of range,
// negative, NULL or mismatched; the data they point at holds the described
// elements, which the ABI requires of callers) and the scalar arguments of
// one shim entry point, which is called. An error status is fine; a crash,
// a sanitizer report, or a result that fails to describe its own
// allocation is a finding.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Runtime/WrapperShim.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {
/// Reads the fuzzer's bytes, then zeros.
struct Bytes {
  const uint8_t *data;
  size_t size, at = 0;
  uint8_t next() { return at < size ? data[at++] : 0; }
  int64_t small() { return (int64_t)(int8_t)next(); }
};

/// A tensor and the storage it describes.
struct Tensor {
  wrapper_tensor t{};
  int64_t sizes[32] = {}, strides[32] = {};
  std::vector<uint8_t> storage;
  bool null = false;

  void build(Bytes &in) {
    uint8_t flags = in.next();
    null = (flags & 0xf) == 0xf;
    t.dtype = (flags >> 4) < 11 ? (flags >> 4) : 50 + (flags >> 4);
    int rank = in.next() % 20; // may exceed WRAPPER_MAX_RANK
    t.rank = rank;
    int64_t count = 1;
    for (int d = 0; d < rank && d < 32; ++d) {
      int8_t s = (int8_t)in.next();
      sizes[d] = s < -100 ? s : (s & 3) + (s % 5 == 0 ? 0 : 1);
      if (sizes[d] > 0 && count * sizes[d] > 4096)
        sizes[d] = 1; // keep the described storage small
      if (sizes[d] > 0)
        count *= sizes[d];
    }
    int64_t stride = 1;
    for (int d = (rank < 32 ? rank : 32) - 1; d >= 0; --d) {
      strides[d] = stride;
      stride *= sizes[d] > 0 ? sizes[d] : 1;
    }
    size_t elementBytes = wrapper_dtype_size((wrapper_dtype)t.dtype);
    storage.resize((size_t)count * (elementBytes ? elementBytes : 8) + 8);
    for (auto &b : storage)
      b = in.next();
    t.data = storage.data();
    t.sizes = (flags & 0x7) == 0x7 ? nullptr : sizes;
    t.strides = strides;
  }
  const wrapper_tensor *get() const { return null ? nullptr : &t; }
  wrapper_tensor *mut() { return null ? nullptr : &t; }
};

/// An empty result descriptor whose rank and dtype come from the bytes.
struct Result {
  wrapper_tensor t{};
  int64_t sizes[32], strides[32];
  void build(Bytes &in) {
    t.data = nullptr;
    t.dtype = in.next() % 12;
    t.rank = in.next() % 6;
    for (int d = 0; d < 32; ++d)
      sizes[d] = (in.next() & 1) ? -1 : in.next() % 6;
    t.sizes = sizes;
    t.strides = strides;
  }
  /// A successful call must describe a usable allocation.
  void check() {
    if (!t.data)
      std::abort();
    size_t bytes = wrapper_dtype_size((wrapper_dtype)t.dtype);
    for (int d = 0; d < t.rank; ++d) {
      if (t.sizes[d] < 0)
        std::abort();
      bytes *= (size_t)t.sizes[d];
    }
    if (bytes)
      std::memset(t.data, 0, bytes); // ASan: the whole result is owned
    wrapper_shim_free(t.data);
  }
};
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Bytes in{data, size};
  uint8_t entry = in.next() % 24;
  Tensor a, b, c, d;
  a.build(in);
  b.build(in);
  c.build(in);
  d.build(in);
  Result r0, r1;
  r0.build(in);
  r1.build(in);
  int64_t k = in.small(), dim = in.small();
  int32_t flag = in.next() & 1;
  // stride, padding, dilation: lengths 0 to 2 (the caller provides as many
  // values as it says).
  int64_t lists[3][2] = {{in.small(), in.small()},
                         {in.small(), in.small()},
                         {in.small(), in.small()}};
  int64_t listLength = in.next() % 3;
  const int64_t *dimPtr = (in.next() & 1) ? &dim : nullptr;
  int32_t dtype = in.next() % 14;
  const int32_t *dtypePtr = (in.next() & 1) ? &dtype : nullptr;
  double scalar = in.small() / 4.0;

  wrapper_status s = WRAPPER_OK;
  bool twoResults = false, result = true;
  switch (entry) {
  case 0:
    s = wrapper_shim_mm(a.get(), b.get(), &r0.t);
    break;
  case 1:
    s = wrapper_shim_mm_out(a.get(), b.get(), c.mut());
    result = false;
    break;
  case 2:
    s = wrapper_shim_bmm(a.get(), b.get(), &r0.t);
    break;
  case 3:
    s = wrapper_shim_addmm(a.get(), b.get(), c.get(), scalar, 1.0, &r0.t);
    break;
  case 4:
    s = wrapper_shim__scaled_mm(a.get(), b.get(), c.get(), d.get(),
                                flag ? nullptr : c.get(), nullptr, dtypePtr, 0,
                                &r0.t);
    break;
  case 5:
    s = wrapper_shim_conv2d(a.get(), b.get(), flag ? c.get() : nullptr,
                            lists[0], listLength, lists[1], listLength,
                            lists[2], listLength, k, &r0.t);
    break;
  case 6:
    s = wrapper_shim_topk(a.get(), k, dim, flag, 1, &r0.t, &r1.t);
    twoResults = true;
    break;
  case 7:
    s = wrapper_shim_sort(a.get(), dim, flag, &r0.t, &r1.t);
    twoResults = true;
    break;
  case 8:
    s = wrapper_shim_argmax(a.get(), dimPtr, flag, &r0.t);
    break;
  case 9:
    s = wrapper_shim_cumsum_v2(a.get(), dim, dtypePtr, &r0.t);
    break;
  case 10:
    s = wrapper_shim_cumsum_inplace_v2(a.mut(), dim, dtypePtr);
    result = false;
    break;
  case 11:
    s = wrapper_shim_index_select(a.get(), dim, b.get(), &r0.t);
    break;
  case 12:
    s = wrapper_shim_gather(a.get(), dim, b.get(), 0, &r0.t);
    break;
  case 13:
    s = wrapper_shim_scatter_add(a.get(), dim, b.get(), c.get(), &r0.t);
    break;
  case 14:
    s = wrapper_shim_scatter_add_inplace(a.mut(), dim, b.get(), c.get());
    result = false;
    break;
  case 15:
    s = wrapper_shim_embedding(a.get(), b.get(), -1, 0, 0, &r0.t);
    break;
  case 16: {
    Result parts[4];
    for (Result &p : parts)
      p.build(in);
    wrapper_tensor list4[4] = {parts[0].t, parts[1].t, parts[2].t, parts[3].t};
    int64_t count = k & 3;
    if (wrapper_shim_unbind(a.get(), dim, list4, count) == WRAPPER_OK)
      for (int64_t i = 0; i < count; ++i) {
        parts[i].t = list4[i];
        parts[i].check();
      }
    return 0;
  }
  case 17:
    s = wrapper_shim_relu(a.get(), &r0.t);
    break;
  case 18:
    s = wrapper_shim_relu_inplace(a.mut());
    result = false;
    break;
  case 19:
    s = wrapper_shim_add(a.get(), b.get(), scalar, &r0.t);
    break;
  case 20:
    s = wrapper_shim_add_out(a.get(), b.get(), scalar, c.mut());
    result = false;
    break;
  case 21:
    s = wrapper_shim_mul_inplace(a.mut(), b.get());
    result = false;
    break;
  case 22:
    s = wrapper_shim_topk_out(a.get(), k, dim, flag, 0, b.mut(), c.mut());
    result = false;
    break;
  default:
    s = wrapper_shim_argmax_out(a.get(), dimPtr, flag, b.mut());
    result = false;
    break;
  }
  if (s != WRAPPER_OK || !result)
    return 0;
  r0.check();
  if (twoResults)
    r1.check();
  return 0;
}
