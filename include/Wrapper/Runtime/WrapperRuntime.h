/*===- WrapperRuntime.h - the Wrapper runtime C ABI ----------------*- C -*-===*
 *
 * Part of the Wrapper project.
 *
 * The C ABI that compiled programs and tools call: error codes with
 * messages, aligned allocation under a configurable limit, and NumPy .npy
 * reading and writing. No MLIR dependency; compiles as C99.
 *
 *===----------------------------------------------------------------------===*/

#ifndef WRAPPER_RUNTIME_WRAPPERRUNTIME_H
#define WRAPPER_RUNTIME_WRAPPERRUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Every fallible function returns one of these; WRAPPER_OK is 0. */
typedef enum wrapper_status {
  WRAPPER_OK = 0,
  WRAPPER_ERROR_INVALID_ARGUMENT = 1,
  WRAPPER_ERROR_OUT_OF_MEMORY = 2,
  WRAPPER_ERROR_LIMIT = 3,
  WRAPPER_ERROR_IO = 4,
  WRAPPER_ERROR_FORMAT = 5,
  WRAPPER_ERROR_UNSUPPORTED = 6,
  /* An op run outside the compiled code failed (a proxy call's handler). */
  WRAPPER_ERROR_EXTERNAL = 7
} wrapper_status;

/* The message of the last error on the calling thread ("" if none). */
const char *wrapper_last_error(void);
/* Records an error message for wrapper_last_error() (printf format) and
 * returns `status`: for code built on the runtime, such as model.so. */
wrapper_status wrapper_report_error(wrapper_status status, const char *format,
                                    ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* The name of a status code ("WRAPPER_ERROR_IO"). */
const char *wrapper_status_name(wrapper_status status);

/*===------------------------------------------------------------------===*
 * Allocation
 *===------------------------------------------------------------------===*/

/* Allocates `bytes` (0 allowed) aligned to `alignment` (a power of two, at
 * least sizeof(void *)). Fails with WRAPPER_ERROR_LIMIT when the bytes live
 * would exceed the limit. */
wrapper_status wrapper_alloc(size_t bytes, size_t alignment, void **out);
/* Frees what wrapper_alloc returned; NULL is allowed. */
void wrapper_free(void *ptr);
/* Sets the limit on bytes live at once (0 = no limit). */
void wrapper_set_alloc_limit(uint64_t bytes);
/* Bytes currently allocated through wrapper_alloc, and the peak. */
uint64_t wrapper_allocated_bytes(void);
uint64_t wrapper_peak_allocated_bytes(void);
/* Freed blocks are kept per size class (four per power of two) and handed
 * out again, so that a model called repeatedly does not map and fault in
 * its buffers on every call. The bytes kept are bounded by a limit:
 * WRAPPER_ALLOC_CACHE_BYTES in the environment when the first allocation
 * happens, 1 GiB by default, 0 under AddressSanitizer; 0 keeps nothing.
 * Setting a lower limit frees kept blocks down to it. */
void wrapper_set_alloc_cache_limit(uint64_t bytes);
/* Frees every kept block; returns the bytes freed. */
uint64_t wrapper_release_cached_memory(void);
/* The bytes kept now, and how many allocations a kept block served (hits)
 * or went to malloc (misses) since the process started; NULL skips one. */
void wrapper_alloc_cache_stats(uint64_t *kept_bytes, uint64_t *hits,
                               uint64_t *misses);
/* The allocator of compiled code: memref.alloc lowered with
 * finalize-memref-to-llvm's generic functions (the pipelines' option
 * runtime-allocator, which wrapper-compile and wrapper-run set) calls
 * these, which hand out blocks of the same cache. They are outside the
 * live count, the limit and fault injection; out of memory jumps to the
 * caller's error jump (wrapper_set_error_jump) or exits with a message.
 * What compiled code returns (a model's outputs before they are copied
 * out) is freed with _mlir_memref_to_llvm_free. */
void *_mlir_memref_to_llvm_alloc(size_t bytes);
void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment, size_t bytes);
void _mlir_memref_to_llvm_free(void *ptr);
/* Fault injection for tests: lets `count` more block allocations (in any
 * thread) succeed, then refuses the next one as if malloc had failed, then
 * disarms. Every allocation of the runtime counts: wrapper_alloc, compiled
 * code's buffers (_mlir_memref_to_llvm_alloc) and extern kernels'
 * results. The refusal is reported as WRAPPER_ERROR_OUT_OF_MEMORY with a
 * message saying it was injected. A negative count disarms it. Every
 * caller must return the error and free what it held
 * (test/Tools/wrapper-compile/fault-injection.c and
 * python/tests/test_reliability.py inject a failure at each allocation of
 * a call in turn). */
void wrapper_fail_allocation_after(int64_t count);
/* Blocks the allocator has handed out and not taken back (wrapper_alloc's,
 * compiled code's, extern kernels'), for tests that a failed call left
 * nothing behind. Exact when compiled code is built with the
 * runtime-allocator option (wrapper-compile always builds it so). */
int64_t wrapper_live_blocks(void);

/* Call scopes. Between wrapper_call_scope_begin and wrapper_call_scope_end
 * on one thread, the runtime records every block it hands out on that
 * thread to compiled code or extern kernels (not wrapper_alloc's, which
 * belong to the caller) until the block is freed. A model's container runs
 * its compiled entry inside a scope: a failure jumps out of the compiled
 * code past the frees of the buffers it held.
 *
 * wrapper_call_scope_end(status) ends the innermost scope of the thread.
 * With a failure status (the call failed), it frees the blocks the scope
 * still records and returns the status. With WRAPPER_OK (the call
 * returned), it returns WRAPPER_OK and forgets them (they are the call's
 * results), unless a failure was deferred meanwhile: an injected
 * allocation failure inside an OpenMP parallel region, where no jump is
 * possible, is reported here (the allocation itself was served), and the
 * blocks are freed as for a failure. Scopes nest (8 levels record; deeper
 * ones record nothing). A thread that exits inside a scope frees what the
 * scope holds. Blocks of OpenMP worker threads are not recorded: each
 * worker frees its own before its parallel region ends. */
void wrapper_call_scope_begin(void);
wrapper_status wrapper_call_scope_end(wrapper_status status);
/* Calls at once share the cores. Each calling thread runs its parallel
 * loops on an OpenMP team of its own, so 8 calls at once on 2 cores ran 16
 * threads. While N calls are in flight in the process (open outermost
 * scopes), a call that starts sets its thread's OpenMP thread count to the
 * cores divided by N (at least 1, at most what it was: OMP_NUM_THREADS
 * stays a bound) and restores it when it ends. WRAPPER_SHARE_THREADS=0 in
 * the environment, or wrapper_set_thread_sharing(0), turns this off.
 * wrapper_call_threads() is the thread count the calling thread's
 * parallel loops get now (1 without OpenMP in the process). */
void wrapper_set_thread_sharing(int on);
int wrapper_call_threads(void);

/*===------------------------------------------------------------------===*
 * Kernel profiling
 *===------------------------------------------------------------------===*/

#define WRAPPER_PROFILE_MAX_KERNELS 4096

/* Bracket one call of kernel `id` (0 <= id < WRAPPER_PROFILE_MAX_KERNELS);
 * host programs compiled with profiling call these around every kernel. */
void wrapper_profile_begin(int64_t id);
void wrapper_profile_end(int64_t id);
/* Total nanoseconds and calls recorded for kernel `id` since the last
 * reset; 0 calls for an id never seen. */
void wrapper_profile_read(int64_t id, uint64_t *nanoseconds, uint64_t *calls);
/* Adds `bytes` to kernel `id`'s bytes moved: host programs compiled with
 * profiling call it after each kernel call with the bytes of the buffers
 * the call passes (each read or written once, at their run-time sizes). */
void wrapper_profile_bytes(int64_t id, int64_t bytes);
/* The bytes recorded for kernel `id` since the last reset. */
uint64_t wrapper_profile_read_bytes(int64_t id);
void wrapper_profile_reset(void);

/*===------------------------------------------------------------------===*
 * Arrays and .npy files
 *===------------------------------------------------------------------===*/

typedef enum wrapper_dtype {
  WRAPPER_DTYPE_BOOL = 0,
  WRAPPER_DTYPE_I8 = 1,
  WRAPPER_DTYPE_I16 = 2,
  WRAPPER_DTYPE_I32 = 3,
  WRAPPER_DTYPE_I64 = 4,
  WRAPPER_DTYPE_U8 = 5,
  WRAPPER_DTYPE_F16 = 6,
  WRAPPER_DTYPE_F32 = 7,
  WRAPPER_DTYPE_F64 = 8,
  WRAPPER_DTYPE_BF16 = 9,
  WRAPPER_DTYPE_F8E4M3FN = 10 /* fp8: 4 exponent bits, 3 mantissa bits */
} wrapper_dtype;

#define WRAPPER_MAX_RANK 16

/* A dense row-major array that owns `data` (allocated by the runtime). */
typedef struct wrapper_array {
  wrapper_dtype dtype;
  int32_t rank;
  int64_t shape[WRAPPER_MAX_RANK];
  void *data;
} wrapper_array;

/* Size in bytes of one element of `dtype` (0 for an unknown dtype). */
size_t wrapper_dtype_size(wrapper_dtype dtype);
/* NumPy's name of a dtype ("float32"). */
const char *wrapper_dtype_name(wrapper_dtype dtype);
/* The number of elements of `array`, or -1 if it overflows. */
int64_t wrapper_array_numel(const wrapper_array *array);

/* Allocates an array of the given dtype and shape (zero-filled). */
wrapper_status wrapper_array_create(wrapper_dtype dtype, int32_t rank,
                                    const int64_t *shape, wrapper_array *out);
/* An array over `block`, a dense row-major buffer that compiled code
 * allocated (_mlir_memref_to_llvm_alloc): the array owns it from then on
 * and wrapper_array_destroy gives it back. For model containers, which
 * hand a program's results to the caller this way instead of copying
 * them. */
wrapper_status wrapper_array_adopt_block(wrapper_dtype dtype, int32_t rank,
                                         const int64_t *shape, void *block,
                                         wrapper_array *out);
void wrapper_array_destroy(wrapper_array *array);
/* Hands `count` arrays to a framework without a copy: managed[i] becomes a
 * DLPack v0.8 DLManagedTensor (on the CPU, compact row-major: NULL
 * strides) over arrays[i]'s data, which it owns from then on (its deleter
 * frees the block) while arrays[i].data becomes NULL. On failure (a dtype
 * DLPack lacks, fp8; no memory) nothing is left: the tensors made are
 * deleted and the other arrays destroyed, and every managed[i] is NULL. */
wrapper_status wrapper_dlpack_arrays(wrapper_array *arrays, int32_t count,
                                     void **managed);

/* Reads a .npy file (format 1.0, 2.0 or 3.0; little-endian; C order;
 * dtypes above; bfloat16 as written by ml_dtypes is not recognized). */
wrapper_status wrapper_npy_load(const char *path, wrapper_array *out);
/* Writes a .npy file (format 1.0). bf16 arrays are refused (NumPy has no
 * bfloat16). */
wrapper_status wrapper_npy_save(const char *path, const wrapper_array *array);

/*===------------------------------------------------------------------===*
 * Debug output (what wrapper.debug_print, debug_save and debug_message
 * lower to). Errors are reported on stderr and do not stop the program.
 *===------------------------------------------------------------------===*/

/* A view is given as: its dtype and rank; `sizes_and_strides`, the rank
 * sizes then the rank strides (in elements); `data`, the first element of
 * the storage; `offset`, the view's first element (in elements). */

/* Prints `label`, the shape, dtype, min, max, mean and standard deviation
 * of the view, and its values when it has 64 elements or fewer, on stdout. */
void wrapper_debug_print(const char *label, int32_t dtype, int32_t rank,
                         const int64_t *sizes_and_strides, const void *data,
                         int64_t offset);
/* Writes the view to the .npy file `path` (dense, row-major). */
void wrapper_debug_save(const char *path, int32_t dtype, int32_t rank,
                        const int64_t *sizes_and_strides, const void *data,
                        int64_t offset);
/* Prints one line on stdout. */
void wrapper_debug_message(const char *message);

/* Conversions between half/bfloat16 bits and float. */
float wrapper_f16_to_f32(uint16_t bits);
uint16_t wrapper_f32_to_f16(float value);
float wrapper_bf16_to_f32(uint16_t bits);
uint16_t wrapper_f32_to_bf16(float value);
/* fp8 e4m3fn (no infinities; 0x7f/0xff are NaN; largest finite 448):
 * decoding is exact; encoding rounds to nearest even and saturates. */
float wrapper_f8e4m3fn_to_f32(uint8_t bits);
uint8_t wrapper_f32_to_f8e4m3fn(float value);

#ifdef __cplusplus
}
#endif

#endif /* WRAPPER_RUNTIME_WRAPPERRUNTIME_H */
