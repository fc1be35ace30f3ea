//===- NpyFuzzer.cpp - the .npy reader on arbitrary bytes -----------------===//
//
// Part of the Wrapper project.
//
// libFuzzer target: the bytes are written to a file and read with
// wrapper_npy_load; an error status is fine, a crash, a sanitizer report or
// an allocation beyond the runtime's limit is a finding. A file that loads
// is saved again and must load back to the same array.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Runtime/WrapperRuntime.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>

static std::string scratch(const char *what) {
  return "/tmp/wrapper-npy-fuzz-" + std::to_string(getpid()) + what;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static bool limited = [] {
    wrapper_set_alloc_limit(64ull << 20);
    return true;
  }();
  (void)limited;
  std::string path = scratch(".npy");
  FILE *file = std::fopen(path.c_str(), "wb");
  if (!file)
    return 0;
  std::fwrite(data, 1, size, file);
  std::fclose(file);
  wrapper_array array;
  if (wrapper_npy_load(path.c_str(), &array) != WRAPPER_OK)
    return 0;
  // Round trip: what loads must save and load back identically.
  std::string again = scratch("-again.npy");
  wrapper_array back;
  if (array.dtype != WRAPPER_DTYPE_BF16 &&
      wrapper_npy_save(again.c_str(), &array) == WRAPPER_OK) {
    if (wrapper_npy_load(again.c_str(), &back) != WRAPPER_OK)
      std::abort();
    int64_t bytes =
        wrapper_array_numel(&array) * (int64_t)wrapper_dtype_size(array.dtype);
    if (back.dtype != array.dtype || back.rank != array.rank ||
        std::memcmp(back.shape, array.shape,
                    sizeof(int64_t) * (size_t)array.rank) != 0 ||
        (bytes > 0 && std::memcmp(back.data, array.data, (size_t)bytes) != 0))
      std::abort();
    wrapper_array_destroy(&back);
  }
  wrapper_array_destroy(&array);
  return 0;
}
