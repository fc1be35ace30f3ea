//===- PackageFuzzer.cpp - package and safetensors readers on any bytes ---===//
//
// Part of the Wrapper project.
//
// libFuzzer target: the bytes are read as a safetensors file
// (wrapper_safetensors_read) and opened as a package from memory
// (wrapper_package_open_memory, then its index, parameters and entries are
// listed; no library is loaded). An error status is fine; a crash, a
// sanitizer report, or a tensor or entry reported outside the bytes is a
// finding.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Runtime/WrapperPackage.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>

static bool inside(const void *at, uint64_t bytes, const uint8_t *base,
                   size_t size) {
  auto p = reinterpret_cast<const uint8_t *>(at);
  return p >= base && bytes <= size && p - base <= (ptrdiff_t)(size - bytes);
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  wrapper_safetensors_tensor *tensors;
  int32_t count;
  if (wrapper_safetensors_read(data, size, &tensors, &count) == WRAPPER_OK) {
    for (int32_t i = 0; i < count; ++i) {
      const wrapper_array &view = tensors[i].view;
      uint64_t bytes =
          (uint64_t)wrapper_array_numel(&view) * wrapper_dtype_size(view.dtype);
      if (!tensors[i].name || !inside(view.data, bytes, data, size))
        std::abort();
    }
    wrapper_safetensors_free(tensors, count);
  }
  // Packages are opened from 64-byte aligned memory (their contract).
  void *copy = nullptr;
  if (posix_memalign(&copy, 64, size ? size : 1) != 0)
    return 0;
  if (size)
    std::memcpy(copy, data, size);
  auto *base = static_cast<const uint8_t *>(copy);
  wrapper_package *package;
  if (wrapper_package_open_memory(copy, size, &package) == WRAPPER_OK) {
    (void)wrapper_package_metadata(package);
    for (int32_t i = 0; i < wrapper_package_num_models(package); ++i)
      if (!wrapper_package_model_target(package, i))
        std::abort();
    for (int32_t i = 0; i < wrapper_package_num_params(package); ++i) {
      wrapper_array view;
      if (!wrapper_package_param_name(package, i) ||
          wrapper_package_param(package, i, &view) != WRAPPER_OK)
        std::abort();
      uint64_t bytes =
          (uint64_t)wrapper_array_numel(&view) * wrapper_dtype_size(view.dtype);
      if (!inside(view.data, bytes, base, size))
        std::abort();
    }
    const void *entry;
    uint64_t entrySize;
    if (wrapper_package_entry(package, "params.safetensors", &entry,
                              &entrySize) == WRAPPER_OK &&
        !inside(entry, entrySize, base, size))
      std::abort();
    wrapper_package_close(package);
  }
  std::free(copy);
  return 0;
}
