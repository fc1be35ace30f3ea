/*===- WrapperCuda.h - the Wrapper CUDA runtime C ABI --------------*- C -*-===*
 *
 * Part of the Wrapper project.
 *
 * The device side of the runtime (libwrapper_cuda_runtime): the CUDA
 * driver API behind a small C ABI, for compiled programs and tools.
 *
 * - libcuda is loaded at run time (dlopen "libcuda.so.1"), never linked:
 *   programs and tools built with this library run on machines without a
 *   GPU and fail only when they use the device, with
 *   WRAPPER_ERROR_UNSUPPORTED and the reason ("libcuda.so.1: cannot open
 *   shared object file", "no CUDA device").
 * - One context (the device's primary context) and one stream per process;
 *   every launch and copy goes to that stream, in order.
 * - A caching device allocator: freed blocks go to per-size free lists
 *   (sizes rounded up to 512 bytes below 1 MiB, to 2 MiB above) and are
 *   reused without a driver call; wrapper_cuda_empty_cache() returns them.
 * - Modules are loaded once per image (keyed by the image's address, which
 *   is a constant of the program) and functions are looked up once per
 *   module and name: a launch makes no allocation and no lookup after the
 *   first.
 * - The `mgpu*` functions that MLIR's gpu-to-llvm lowering calls are
 *   implemented on the same state (mgpuStreamCreate returns the stream,
 *   mgpuMemAlloc allocates from the cache), so upstream's host code runs on
 *   this runtime unchanged.
 *
 * Errors are wrapper_status codes with wrapper_last_error() messages (the
 * driver's error name and string). No MLIR or CUDA headers are needed to
 * build it: the few driver entry points are declared here by hand (their
 * ABI is stable).
 *
 *===----------------------------------------------------------------------===*/

#ifndef WRAPPER_RUNTIME_WRAPPERCUDA_H
#define WRAPPER_RUNTIME_WRAPPERCUDA_H

#include "Wrapper/Runtime/WrapperRuntime.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define WRAPPER_CUDA_ABI_VERSION 1

int32_t wrapper_cuda_abi_version(void);

/* Loads libcuda, initializes the driver, makes device `device` current
 * (its primary context) and creates the stream. Idempotent; every other
 * function calls it with device 0 (or WRAPPER_CUDA_DEVICE) when needed. */
wrapper_status wrapper_cuda_init(int32_t device);
/* Whether a CUDA device can be used (initializing if needed); on 0,
 * wrapper_last_error() says why. */
int32_t wrapper_cuda_available(void);
/* The device's name and compute capability (major * 10 + minor). */
wrapper_status wrapper_cuda_device_info(char *name, size_t name_size,
                                        int32_t *capability);

/* Device memory from the caching allocator; `bytes` may be 0 (a valid,
 * unique pointer to no memory). Aligned to 256 bytes. */
wrapper_status wrapper_cuda_alloc(size_t bytes, void **out);
/* Returns a block to the cache (NULL allowed); pointers not from
 * wrapper_cuda_alloc are an error. */
wrapper_status wrapper_cuda_free(void *ptr);
/* Frees the cached blocks to the driver. */
wrapper_status wrapper_cuda_empty_cache(void);

typedef struct wrapper_cuda_stats {
  uint64_t allocations;      /* wrapper_cuda_alloc calls */
  uint64_t cache_hits;       /* ... served from the cache */
  uint64_t bytes_in_use;     /* in blocks handed out */
  uint64_t bytes_reserved;   /* in blocks from the driver (in use + cached) */
  uint64_t modules_loaded;   /* driver module loads */
  uint64_t function_lookups; /* driver function lookups */
  uint64_t launches;
} wrapper_cuda_stats;
void wrapper_cuda_get_stats(wrapper_cuda_stats *stats);

/* Copies on the stream; device-to-host copies wait for it. */
wrapper_status wrapper_cuda_copy_to_device(void *device, const void *host,
                                           size_t bytes);
wrapper_status wrapper_cuda_copy_to_host(void *host, const void *device,
                                         size_t bytes);
wrapper_status wrapper_cuda_copy_device(void *dst, const void *src,
                                        size_t bytes);
/* Waits for the stream; reports the first error of an asynchronous call. */
wrapper_status wrapper_cuda_synchronize(void);

/* The module of a PTX (NUL-terminated) or cubin/fatbin image, loaded once
 * per image address. */
wrapper_status wrapper_cuda_module(const void *image, void **module);
/* A kernel of a module, looked up once per (module, name). */
wrapper_status wrapper_cuda_function(void *module, const char *name,
                                     void **function);
/* Launches on the stream; `params` as cuLaunchKernel takes them (one
 * pointer per kernel parameter). */
wrapper_status wrapper_cuda_launch(void *function, const uint32_t grid[3],
                                   const uint32_t block[3],
                                   uint32_t shared_bytes, void **params);

/* The stream (a CUstream), for code that launches by itself. */
void *wrapper_cuda_stream(void);

#ifdef __cplusplus
}
#endif

#endif /* WRAPPER_RUNTIME_WRAPPERCUDA_H */
