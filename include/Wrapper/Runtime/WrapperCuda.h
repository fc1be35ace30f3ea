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
 * - One device per process, through its primary context (the one PyTorch
 *   and the CUDA runtime API use, so device pointers are shared with them).
 * - Streams: every launch, copy and product of a thread goes to that
 *   thread's current stream, in order: the runtime's own stream (created
 *   at initialization) until wrapper_cuda_set_stream chooses another, such
 *   as the caller's (PyTorch's current stream).
 * - A caching device allocator: freed blocks go to per-size free lists
 *   (sizes rounded up to 512 bytes below 1 MiB, to a quarter of their
 *   power of two above) and are
 *   reused without a driver call; wrapper_cuda_empty_cache() returns them.
 *   A block belongs to the stream that was current when it was allocated
 *   and is only reused for allocations on that stream (as in PyTorch's
 *   allocator), so reuse is ordered after its last use on that stream; a
 *   block used on another stream must be synchronized by its user before
 *   it is freed.
 * - Modules are loaded once per image (keyed by the image's address, which
 *   is a constant of the program) and functions are looked up once per
 *   module and name: a launch makes no allocation and no lookup after the
 *   first.
 * - The `mgpu*` functions that MLIR's gpu-to-llvm lowering calls are
 *   implemented on the same state (mgpuStreamCreate returns the stream,
 *   mgpuMemAlloc allocates from the cache), so upstream's host code runs on
 *   this runtime unchanged.
 *
 * - Matrix products go to cuBLAS, also loaded at run time
 *   (WRAPPER_CUBLAS_LIBRARY, else libcublas.so.13, .so.12, .so), on the
 *   same stream: wrapper_cuda_gemm, and wrapperCudaGemm for compiled code.
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

#define WRAPPER_CUDA_ABI_VERSION 7

int32_t wrapper_cuda_abi_version(void);

/* Loads libcuda, initializes the driver, makes device `device` current
 * (its primary context) and creates the stream. Idempotent; every other
 * function calls it with device 0 (or WRAPPER_CUDA_DEVICE) when needed.
 * Once initialized, the runtime is bound to its device: asking for another
 * fails (WRAPPER_ERROR_UNSUPPORTED). */
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
  uint64_t gemms;            /* wrapper_cuda_gemm calls that reached cuBLAS */
  uint64_t constant_uploads; /* device copies made by wrapperCudaConstant */
  uint64_t graph_launches;   /* wrapper_cuda_graph_launch calls */
  /* Copies between host and device memory, whatever made them (the copy
   * functions, compiled code's gpu.memcpy, constant uploads): a caller
   * that passes device memory can check that a call made none. */
  uint64_t copies_to_device;
  uint64_t copies_to_host;
  uint64_t bytes_to_device;
  uint64_t bytes_to_host;
} wrapper_cuda_stats;
void wrapper_cuda_get_stats(wrapper_cuda_stats *stats);
/* The most bytes_in_use has been since the runtime started or since the
 * last reset (which sets it to bytes_in_use now), like PyTorch's
 * torch.cuda.max_memory_allocated and reset_peak_memory_stats. */
uint64_t wrapper_cuda_peak_bytes_in_use(void); /* ABI version 6 */
void wrapper_cuda_reset_peak_bytes_in_use(void);

/* Copies on the stream; device-to-host copies wait for it. */
wrapper_status wrapper_cuda_copy_to_device(void *device, const void *host,
                                           size_t bytes);
wrapper_status wrapper_cuda_copy_to_host(void *host, const void *device,
                                         size_t bytes);
wrapper_status wrapper_cuda_copy_device(void *dst, const void *src,
                                        size_t bytes);
/* Waits for the calling thread's stream; reports the first error of an
 * asynchronous call this thread made. */
wrapper_status wrapper_cuda_synchronize(void);
/* Waits for all work on the device, on every stream (cuCtxSynchronize):
 * before freeing memory that work on other streams may still read. (ABI
 * version 5.) */
wrapper_status wrapper_cuda_device_synchronize(void);
/* Reports (and clears) the first error of a call this thread made that
 * could not return one (compiled code's mgpu* calls, products), without
 * waiting for the GPU: errors of kernels still running show up later, at
 * the caller's next synchronization. */
wrapper_status wrapper_cuda_take_error(void);
/* Fault injection for tests: lets `count` more of the driver calls that do
 * a call's work (cuMemAlloc, cuLaunchKernel, the cuMemcpy* and cuMemset
 * calls, in any thread) through, then fails the next one with
 * CUDA_ERROR_UNKNOWN without making it, with a message saying it was
 * injected, then disarms; a negative count disarms it. After an error of
 * an mgpu* call, the rest of that thread's device work (launches, copies,
 * memsets, products, allocations) is skipped until the error is reported,
 * so no kernel runs on a buffer whose allocation failed; frees still
 * happen, so a failed call gives its blocks back. */
void wrapper_cuda_fail_call_after(int64_t count);

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

/* The calling thread's current stream (a CUstream), for code that
 * launches by itself; NULL when CUDA cannot be initialized. */
void *wrapper_cuda_stream(void);
/* Makes `stream` (a CUstream of the device's primary context; NULL is the
 * legacy default stream, as in the driver API) the calling thread's
 * current stream, and stores the previous one in `*previous` (NULL
 * allowed) so that the caller can restore it. */
wrapper_status wrapper_cuda_set_stream(void *stream, void **previous);
/* The device the runtime is bound to (initializing it if needed), -1 when
 * CUDA cannot be used. */
int32_t wrapper_cuda_device(void);

/* A DLPack tensor (dlpack.h's DLManagedTensor, the unversioned ABI that
 * torch.utils.dlpack.from_dlpack takes in a "dltensor" capsule) over
 * device memory: `data` is its first element, `shape` and `strides` (in
 * elements) have `rank` entries. It owns `block` (from
 * wrapper_cuda_alloc, or NULL): its deleter frees it with
 * wrapper_cuda_free. On failure nothing is taken. */
wrapper_status wrapper_cuda_dlpack(void *block, void *data, wrapper_dtype dtype,
                                   int32_t rank, const int64_t *shape,
                                   const int64_t *strides, void **managed);
/* wrapper_cuda_dlpack for each of `count` arrays (a model's outputs from
 * wrapper_model_run_device, WrapperModel.h), in one call: `managed[i]`
 * over `arrays[i].data`, owning `arrays[i].allocated` when `owned` (else
 * a view that owns nothing). On failure no tensor is left and, when
 * `owned`, every block has been freed; the message names the array. */
struct wrapper_strided_array;
wrapper_status
wrapper_cuda_dlpack_arrays(const struct wrapper_strided_array *arrays,
                           int32_t count, int32_t owned, void **managed);

/* Donation (ABI version 7): the holder of DLPack tensors that own their
 * blocks (wrapper_cuda_dlpack with a block) and will drop them when the
 * next call returns gives the blocks up for that call, so that the call
 * frees each after its last reader (a program compiled with
 * --cuda-release-arguments calls wrapperCudaReleaseArgument there): a
 * training step's backward frees the activations the forward saved as it
 * consumes them. `donate` 1 donates the blocks at `ptrs` (their first
 * bytes), 0 takes them back (after the call, for those it did not free);
 * pointers that are not such blocks are skipped, `*donated` (when not
 * NULL) counts the others. A block freed early is not freed again by its
 * tensor's deleter; the tensor must not be read after the call. */
wrapper_status wrapper_cuda_donate(void *const *ptrs, int32_t count,
                                   int32_t donate, int32_t *donated);
/* For compiled code, after the last reader of an argument: frees the block
 * at `ptr` if it is donated and belongs to the current stream (not while a
 * graph is captured); else nothing. */
void wrapperCudaReleaseArgument(uintptr_t ptr);
/* Donated blocks freed early so far, and their bytes. */
void wrapper_cuda_release_stats(uint64_t *released, uint64_t *bytes);

/* CUDA graphs. The work queued on the stream between
 * wrapper_cuda_graph_begin and wrapper_cuda_graph_end is recorded, not run,
 * into a graph that wrapper_cuda_graph_launch replays on the stream (one
 * driver call for the whole sequence). Blocks freed during the capture
 * stay reserved for the graph (its replays use them) until
 * wrapper_cuda_graph_destroy; blocks allocated and not freed (the results
 * of a captured call) are rewritten by every replay. Waiting for the GPU
 * (wrapper_cuda_synchronize, copies to the host) inside a capture fails;
 * so does a call that failed during it (reported by _end). */
typedef struct wrapper_cuda_graph wrapper_cuda_graph;
wrapper_status wrapper_cuda_graph_begin(void);
wrapper_status wrapper_cuda_graph_end(wrapper_cuda_graph **graph);
wrapper_status wrapper_cuda_graph_launch(wrapper_cuda_graph *graph);
/* Waits for the stream, then frees the graph (NULL allowed). */
wrapper_status wrapper_cuda_graph_destroy(wrapper_cuda_graph *graph);
/* A memory pool shared by graphs whose replays never overlap (ordered on
 * the GPU, each graph's outputs copied out before another graph of the pool
 * replays): a capture begun with wrapper_cuda_graph_begin_in(pool) takes
 * its allocations from the pool's free blocks (the smallest that fits),
 * frees back into it, and adds a block only when none fits; after the
 * capture all of them are free for the next. The pool owns its blocks (its
 * graphs' results included: do not free those) until
 * wrapper_cuda_graph_pool_destroy, which waits for the stream first; its
 * graphs must not be launched after that. Memory is that of the largest
 * captured run when larger runs are captured first, at most the sum
 * otherwise. wrapper_cuda_graph_begin_in(NULL) is wrapper_cuda_graph_begin.
 */
typedef struct wrapper_cuda_graph_pool wrapper_cuda_graph_pool;
wrapper_status wrapper_cuda_graph_pool_create(wrapper_cuda_graph_pool **out);
wrapper_status wrapper_cuda_graph_pool_destroy(wrapper_cuda_graph_pool *pool);
wrapper_status wrapper_cuda_graph_begin_in(wrapper_cuda_graph_pool *pool);
/* The bytes and blocks the pool holds. */
void wrapper_cuda_graph_pool_stats(const wrapper_cuda_graph_pool *pool,
                                   uint64_t *bytes, uint64_t *blocks);

/* The device copy of the host constant at `host` (`bytes` long), for
 * compiled code (--wrapper-cuda-place-buffers): `slot` is the constant's
 * two-pointer slot in the compiled module (zero-initialized: host pointer,
 * device copy). The first call, or a call with another host pointer (a
 * model created again with other weights), queues the copy on the stream
 * and fills the slot; later calls return the copy. Copies live until the
 * process ends. NULL on failure, reported by the next
 * wrapper_cuda_synchronize. */
void *wrapperCudaConstant(void **slot, uintptr_t host, int64_t bytes);

/*===------------------------------------------------------------------===*
 * Matrix products through cuBLAS
 *===------------------------------------------------------------------===*/

/* Whether cuBLAS can be used (loading it and CUDA if needed); on 0,
 * wrapper_last_error() says why. */
int32_t wrapper_cuda_blas_available(void);

/* c[i] = a[i] x b[i] (or c[i] += with `accumulate`) for i < batch, on
 * row-major device matrices: a is [m, k] ([k, m] with transpose_a), b is
 * [k, n] ([n, k] with transpose_b), c is [m, n], each batch `stride_*`
 * elements after the previous one (0: one matrix for every batch).
 * Element types: a and b both f32, f16 or bf16; c the same or f32.
 * Products accumulate in f32 (TF32 tensor cores only with allow_tf32).
 * Queued on the stream; sizes above INT32_MAX are refused. */
typedef struct wrapper_cuda_gemm_args {
  int64_t batch, m, n, k;
  const void *a, *b;
  void *c;
  int64_t stride_a, stride_b, stride_c;
  wrapper_dtype a_dtype, b_dtype, c_dtype;
  int32_t transpose_a, transpose_b;
  int32_t accumulate;
  int32_t allow_tf32;
} wrapper_cuda_gemm_args;
wrapper_status wrapper_cuda_gemm(const wrapper_cuda_gemm_args *args);

/* wrapper_cuda_gemm for compiled code (--wrapper-cuda-pipeline's matmuls):
 * pointers as integers, the dtypes packed as a | b << 8 | c << 16 and the
 * flags as WRAPPER_CUDA_GEMM_*; a failure is reported by the next
 * wrapper_cuda_synchronize, like the mgpu* calls'. */
enum {
  WRAPPER_CUDA_GEMM_TRANSPOSE_A = 1,
  WRAPPER_CUDA_GEMM_TRANSPOSE_B = 2,
  WRAPPER_CUDA_GEMM_ACCUMULATE = 4,
  WRAPPER_CUDA_GEMM_ALLOW_TF32 = 8,
};
void wrapperCudaGemm(int64_t batch, int64_t m, int64_t n, int64_t k,
                     uintptr_t a, int64_t stride_a, uintptr_t b,
                     int64_t stride_b, uintptr_t c, int64_t stride_c,
                     int32_t dtypes, int32_t flags);

#ifdef __cplusplus
}
#endif

#endif /* WRAPPER_RUNTIME_WRAPPERCUDA_H */
