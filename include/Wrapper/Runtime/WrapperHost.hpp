//===- WrapperHost.hpp - support of C++ host programs -----------*- C++ -*-===//
//
// Part of the Wrapper project.
//
// What the C++ host code of `wrapper-translate --wrapper-to-cpp` calls: a
// memref descriptor with MLIR's layout (so kernels compiled with
// `_mlir_ciface_` wrappers take it by pointer) and one helper per wrapper
// op, on top of the C runtime. Header-only, C++17. A failed allocation
// prints the runtime's message and exits with status 1.
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_RUNTIME_WRAPPERHOST_HPP
#define WRAPPER_RUNTIME_WRAPPERHOST_HPP

#include "Wrapper/Runtime/WrapperRuntime.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <type_traits>

namespace wrapper {

/// Storage of f16 and bf16 elements (bits only).
struct f16 {
  uint16_t bits;
};
struct bf16 {
  uint16_t bits;
};

/// A ranked memref descriptor, laid out as MLIR passes it.
template <typename T, int N> struct MemRef {
  T *allocated;
  T *aligned;
  int64_t offset;
  int64_t sizes[N > 0 ? N : 1];
  int64_t strides[N > 0 ? N : 1];
};

/// The runtime's dtype code of T.
template <typename T> constexpr int32_t dtype() {
  if constexpr (std::is_same_v<T, float>)
    return WRAPPER_DTYPE_F32;
  else if constexpr (std::is_same_v<T, double>)
    return WRAPPER_DTYPE_F64;
  else if constexpr (std::is_same_v<T, f16>)
    return WRAPPER_DTYPE_F16;
  else if constexpr (std::is_same_v<T, bf16>)
    return WRAPPER_DTYPE_BF16;
  else if constexpr (std::is_same_v<T, bool>)
    return WRAPPER_DTYPE_BOOL;
  else if constexpr (std::is_same_v<T, int8_t>)
    return WRAPPER_DTYPE_I8;
  else if constexpr (std::is_same_v<T, int16_t>)
    return WRAPPER_DTYPE_I16;
  else if constexpr (std::is_same_v<T, int32_t>)
    return WRAPPER_DTYPE_I32;
  else if constexpr (std::is_same_v<T, int64_t>)
    return WRAPPER_DTYPE_I64;
  else
    return WRAPPER_DTYPE_U8;
}

[[noreturn]] inline void fail() {
  std::fprintf(stderr, "wrapper host: %s\n", wrapper_last_error());
  std::exit(1);
}

/// A descriptor on `aligned` with `sizes` and row-major strides.
template <typename T, int N>
MemRef<T, N> describe(T *allocated, T *aligned, const int64_t *sizes) {
  MemRef<T, N> m{};
  m.allocated = allocated;
  m.aligned = aligned;
  m.offset = 0;
  int64_t stride = 1;
  for (int d = N - 1; d >= 0; --d) {
    m.sizes[d] = sizes[d];
    m.strides[d] = stride;
    stride *= sizes[d];
  }
  return m;
}

/// wrapper.alloc: 64-byte aligned, row-major; one size per dimension.
template <typename T, int N, typename... S> MemRef<T, N> alloc(S... sizes) {
  static_assert(sizeof...(S) == N, "one size per dimension");
  const int64_t list[N > 0 ? N : 1] = {static_cast<int64_t>(sizes)...};
  size_t count = 1;
  for (int d = 0; d < N; ++d)
    count *= static_cast<size_t>(list[d]);
  void *p = nullptr;
  if (wrapper_alloc(count * sizeof(T), 64, &p) != WRAPPER_OK)
    fail();
  return describe<T, N>(static_cast<T *>(p), static_cast<T *>(p), list);
}

/// wrapper.free.
template <typename T, int N> void free(const MemRef<T, N> &m) {
  wrapper_free(m.allocated);
}

/// wrapper.reuse: the storage of `old` with a new type.
template <typename T, int N, typename U, int M, typename... S>
MemRef<T, N> reuse(const MemRef<U, M> &old, S... sizes) {
  static_assert(sizeof...(S) == N, "one size per dimension");
  const int64_t list[N > 0 ? N : 1] = {static_cast<int64_t>(sizes)...};
  return describe<T, N>(reinterpret_cast<T *>(old.allocated),
                        reinterpret_cast<T *>(old.aligned), list);
}

/// wrapper.view: a buffer `byte_offset` bytes into an i8 pool.
template <typename T, int N, typename... S>
MemRef<T, N> view(const MemRef<int8_t, 1> &pool, int64_t byteOffset,
                  S... sizes) {
  static_assert(sizeof...(S) == N, "one size per dimension");
  const int64_t list[N > 0 ? N : 1] = {static_cast<int64_t>(sizes)...};
  T *start = reinterpret_cast<T *>(pool.aligned + pool.offset + byteOffset);
  return describe<T, N>(start, start, list);
}

/// wrapper.reinterpret: the offset, then N sizes, then N strides, relative
/// to the storage.
template <typename T, int N, int M, typename... S>
MemRef<T, N> reinterpret(const MemRef<T, M> &source, int64_t offset,
                         S... sizesThenStrides) {
  static_assert(sizeof...(S) == 2 * N, "N sizes, then N strides");
  const int64_t list[2 * N > 0 ? 2 * N : 1] = {
      static_cast<int64_t>(sizesThenStrides)...};
  MemRef<T, N> m{};
  m.allocated = source.allocated;
  m.aligned = source.aligned;
  m.offset = offset;
  for (int d = 0; d < N; ++d) {
    m.sizes[d] = list[d];
    m.strides[d] = list[N + d];
  }
  return m;
}

/// wrapper.get_constant: a descriptor on constant data.
template <typename T, int N, typename... S>
MemRef<T, N> constant(const T *data, S... sizes) {
  static_assert(sizeof...(S) == N, "one size per dimension");
  const int64_t list[N > 0 ? N : 1] = {static_cast<int64_t>(sizes)...};
  T *p = const_cast<T *>(data);
  return describe<T, N>(p, p, list);
}

/// memref.dim.
template <typename T, int N> int64_t dim(const MemRef<T, N> &m, int64_t d) {
  return m.sizes[d];
}

/// wrapper.call: a kernel compiled with a C interface takes descriptors by
/// pointer.
template <typename... Ts> void call(void (*kernel)(Ts *...), Ts... args) {
  kernel(&args...);
}

/// A graph result.
template <typename T, int N>
void output(MemRef<T, N> *out, const MemRef<T, N> &m) {
  *out = m;
}

/// wrapper.debug_print, wrapper.debug_save, wrapper.debug_message.
template <typename T, int N>
void debugPrint(const char *label, const MemRef<T, N> &m) {
  int64_t meta[2 * (N > 0 ? N : 1)];
  for (int d = 0; d < N; ++d) {
    meta[d] = m.sizes[d];
    meta[N + d] = m.strides[d];
  }
  wrapper_debug_print(label, dtype<T>(), N, meta, m.aligned, m.offset);
}
template <typename T, int N>
void debugSave(const char *path, const MemRef<T, N> &m) {
  int64_t meta[2 * (N > 0 ? N : 1)];
  for (int d = 0; d < N; ++d) {
    meta[d] = m.sizes[d];
    meta[N + d] = m.strides[d];
  }
  wrapper_debug_save(path, dtype<T>(), N, meta, m.aligned, m.offset);
}
inline void debugMessage(const char *message) {
  wrapper_debug_message(message);
}

} // namespace wrapper

#endif // WRAPPER_RUNTIME_WRAPPERHOST_HPP
