/*===- WrapperShim.h - the C ABI of extern kernels -----------------*- C -*-===*
 *
 * Part of the Wrapper project.
 *
 * The entry points that compiled programs call for extern kernels
 * (`wrapper.extern_out` / `wrapper.extern_alloc` after
 * --wrapper-lower-extern-abi). One function per kernel and variant the
 * registry (lib/Extern/externs.yaml) lists:
 *
 *   wrapper_shim_<op>          the functional form: allocates its results
 *   wrapper_shim_<op>_out      the out= form: writes caller-owned outputs
 *   wrapper_shim_<op>_inplace  the in-place form: writes `self`
 *
 * with `_v<N>` appended from the kernel's ABI version 2 on. Arguments follow
 * the schema's order:
 *
 *   Tensor           const wrapper_tensor * (never NULL)
 *   Tensor?          const wrapper_tensor * (NULL = None)
 *   int / SymInt     int64_t          int?    const int64_t * (NULL = None)
 *   float / Scalar   double           float?  const double *  (NULL = None)
 *   bool             int32_t (0 or 1) bool?   const int32_t * (NULL = None)
 *   ScalarType       int32_t (a wrapper_dtype code; `?`: by pointer)
 *   int[] / int[N]   const int64_t *values, int64_t length (N-lists also
 *                    take one value, which is repeated)
 *
 * then the outputs: for out= and functional forms one `wrapper_tensor *`
 * per schema return (a `Tensor[]` return: `wrapper_tensor *results,
 * int64_t count`). An out= output holds caller storage that the kernel
 * writes; a functional result has `data` NULL, `rank` and `dtype` set by
 * the caller, `sizes` filled with the expected sizes (-1 where unknown),
 * and `sizes`/`strides` pointing at caller arrays of `rank` elements: the
 * kernel allocates the data (free it with wrapper_shim_free), writes the
 * actual sizes and contiguous strides, and fails if a known size differs.
 *
 * Every function returns a wrapper_status; on an error the message is in
 * wrapper_last_error() and no output has been allocated. Bad arguments (a
 * NULL tensor, a wrong rank, mismatched dtypes or shapes, an index out of
 * range) are WRAPPER_ERROR_INVALID_ARGUMENT; a dtype the kernel does not
 * implement is WRAPPER_ERROR_UNSUPPORTED.
 *
 * Versioning: an entry point never changes. When a kernel's schema gains
 * an argument (appended, with a default), the registry records the old
 * schema, a `_v<N+1>` entry point takes the new argument list, and the old
 * entry points stay, calling the new ones with the default: artifacts
 * compiled against the old header keep linking and running.
 *
 * Compiles as C99 (-std=c99 -Wall -Wextra -Werror -pedantic).
 *
 *===----------------------------------------------------------------------===*/

#ifndef WRAPPER_RUNTIME_WRAPPERSHIM_H
#define WRAPPER_RUNTIME_WRAPPERSHIM_H

#include "Wrapper/Runtime/WrapperRuntime.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A strided view of an array: element (i0, ..., ik) lives at
 * data + sum(i_d * strides[d]) elements. */
typedef struct wrapper_tensor {
  void *data;
  int32_t dtype; /* a wrapper_dtype */
  int32_t rank;  /* 0 .. WRAPPER_MAX_RANK */
  int64_t *sizes;
  int64_t *strides; /* in elements */
} wrapper_tensor;

/* Frees the data of a functional result. */
void wrapper_shim_free(void *data);

/* Linear algebra. */
wrapper_status wrapper_shim_mm(const wrapper_tensor *self,
                               const wrapper_tensor *mat2,
                               wrapper_tensor *result);
wrapper_status wrapper_shim_mm_out(const wrapper_tensor *self,
                                   const wrapper_tensor *mat2,
                                   wrapper_tensor *out);
wrapper_status wrapper_shim_bmm(const wrapper_tensor *self,
                                const wrapper_tensor *mat2,
                                wrapper_tensor *result);
wrapper_status wrapper_shim_bmm_out(const wrapper_tensor *self,
                                    const wrapper_tensor *mat2,
                                    wrapper_tensor *out);
wrapper_status wrapper_shim_addmm(const wrapper_tensor *self,
                                  const wrapper_tensor *mat1,
                                  const wrapper_tensor *mat2, double beta,
                                  double alpha, wrapper_tensor *result);
wrapper_status wrapper_shim_addmm_out(const wrapper_tensor *self,
                                      const wrapper_tensor *mat1,
                                      const wrapper_tensor *mat2, double beta,
                                      double alpha, wrapper_tensor *out);
/* fp8 (e4m3fn) or other floats; scales are one-element float tensors. */
wrapper_status wrapper_shim__scaled_mm(
    const wrapper_tensor *self, const wrapper_tensor *mat2,
    const wrapper_tensor *scale_a, const wrapper_tensor *scale_b,
    const wrapper_tensor *bias, const wrapper_tensor *scale_result,
    const int32_t *out_dtype, int32_t use_fast_accum, wrapper_tensor *result);
wrapper_status wrapper_shim__scaled_mm_out(
    const wrapper_tensor *self, const wrapper_tensor *mat2,
    const wrapper_tensor *scale_a, const wrapper_tensor *scale_b,
    const wrapper_tensor *bias, const wrapper_tensor *scale_result,
    const int32_t *out_dtype, int32_t use_fast_accum, wrapper_tensor *out);

/* Convolution (NCHW input, OIHW weight). */
wrapper_status wrapper_shim_conv2d(
    const wrapper_tensor *input, const wrapper_tensor *weight,
    const wrapper_tensor *bias, const int64_t *stride, int64_t stride_length,
    const int64_t *padding, int64_t padding_length, const int64_t *dilation,
    int64_t dilation_length, int64_t groups, wrapper_tensor *result);

/* Selection and sorting (indices are int64). */
wrapper_status wrapper_shim_topk(const wrapper_tensor *self, int64_t k,
                                 int64_t dim, int32_t largest, int32_t sorted,
                                 wrapper_tensor *values,
                                 wrapper_tensor *indices);
wrapper_status wrapper_shim_topk_out(const wrapper_tensor *self, int64_t k,
                                     int64_t dim, int32_t largest,
                                     int32_t sorted, wrapper_tensor *values,
                                     wrapper_tensor *indices);
wrapper_status wrapper_shim_sort(const wrapper_tensor *self, int64_t dim,
                                 int32_t descending, wrapper_tensor *values,
                                 wrapper_tensor *indices);
wrapper_status wrapper_shim_argmax(const wrapper_tensor *self,
                                   const int64_t *dim, int32_t keepdim,
                                   wrapper_tensor *result);
wrapper_status wrapper_shim_argmax_out(const wrapper_tensor *self,
                                       const int64_t *dim, int32_t keepdim,
                                       wrapper_tensor *out);

/* Scans. Version 1 had no dtype argument. */
wrapper_status wrapper_shim_cumsum(const wrapper_tensor *self, int64_t dim,
                                   wrapper_tensor *result);
wrapper_status wrapper_shim_cumsum_out(const wrapper_tensor *self, int64_t dim,
                                       wrapper_tensor *out);
wrapper_status wrapper_shim_cumsum_inplace(wrapper_tensor *self, int64_t dim);
wrapper_status wrapper_shim_cumsum_v2(const wrapper_tensor *self, int64_t dim,
                                      const int32_t *dtype,
                                      wrapper_tensor *result);
wrapper_status wrapper_shim_cumsum_out_v2(const wrapper_tensor *self,
                                          int64_t dim, const int32_t *dtype,
                                          wrapper_tensor *out);
wrapper_status wrapper_shim_cumsum_inplace_v2(wrapper_tensor *self, int64_t dim,
                                              const int32_t *dtype);

/* Indexing. */
wrapper_status wrapper_shim_index_select(const wrapper_tensor *self,
                                         int64_t dim,
                                         const wrapper_tensor *index,
                                         wrapper_tensor *result);
wrapper_status wrapper_shim_index_select_out(const wrapper_tensor *self,
                                             int64_t dim,
                                             const wrapper_tensor *index,
                                             wrapper_tensor *out);
wrapper_status wrapper_shim_gather(const wrapper_tensor *self, int64_t dim,
                                   const wrapper_tensor *index,
                                   int32_t sparse_grad, wrapper_tensor *result);
wrapper_status wrapper_shim_gather_out(const wrapper_tensor *self, int64_t dim,
                                       const wrapper_tensor *index,
                                       int32_t sparse_grad,
                                       wrapper_tensor *out);
wrapper_status wrapper_shim_scatter_add(const wrapper_tensor *self, int64_t dim,
                                        const wrapper_tensor *index,
                                        const wrapper_tensor *src,
                                        wrapper_tensor *result);
wrapper_status wrapper_shim_scatter_add_inplace(wrapper_tensor *self,
                                                int64_t dim,
                                                const wrapper_tensor *index,
                                                const wrapper_tensor *src);
wrapper_status wrapper_shim_embedding(const wrapper_tensor *weight,
                                      const wrapper_tensor *indices,
                                      int64_t padding_idx,
                                      int32_t scale_grad_by_freq,
                                      int32_t sparse, wrapper_tensor *result);
/* A list result: `count` views of `self` along `dim`, copied. */
wrapper_status wrapper_shim_unbind(const wrapper_tensor *self, int64_t dim,
                                   wrapper_tensor *results, int64_t count);

/* Elementwise (broadcasting `other` to `self`'s shape). */
wrapper_status wrapper_shim_relu(const wrapper_tensor *self,
                                 wrapper_tensor *result);
wrapper_status wrapper_shim_relu_inplace(wrapper_tensor *self);
wrapper_status wrapper_shim_add(const wrapper_tensor *self,
                                const wrapper_tensor *other, double alpha,
                                wrapper_tensor *result);
wrapper_status wrapper_shim_add_out(const wrapper_tensor *self,
                                    const wrapper_tensor *other, double alpha,
                                    wrapper_tensor *out);
wrapper_status wrapper_shim_add_inplace(wrapper_tensor *self,
                                        const wrapper_tensor *other,
                                        double alpha);
wrapper_status wrapper_shim_mul(const wrapper_tensor *self,
                                const wrapper_tensor *other,
                                wrapper_tensor *result);
wrapper_status wrapper_shim_mul_out(const wrapper_tensor *self,
                                    const wrapper_tensor *other,
                                    wrapper_tensor *out);
wrapper_status wrapper_shim_mul_inplace(wrapper_tensor *self,
                                        const wrapper_tensor *other);

/* What compiled programs call after each shim: on a status other than
 * WRAPPER_OK, jumps back to the caller that set an error jump on this
 * thread (wrapper_set_error_jump: model.so's wrapper_model_run, which then
 * returns the error); without one, prints "error: extern kernel <callee>
 * failed: <message>" on stderr and exits with status 1. */
void wrapper_shim_check(int32_t status, const char *callee);

/* Sets the jmp_buf (a `jmp_buf *`, or NULL to clear) that
 * wrapper_shim_check longjmps to on this thread, with the failed status as
 * the value (the message is in wrapper_last_error()); returns the previous
 * one, for the caller to restore. What the call allocated before the
 * failure is not freed. */
void *wrapper_set_error_jump(void *jump);

/*===------------------------------------------------------------------===*
 * Ops run by the embedding program (proxy calls)
 *
 * An op the compiler has no kernel for can be compiled as a proxy call:
 * the compiled code calls wrapper_proxy_call with a key the compiler chose,
 * the op's description, its tensor inputs and one empty descriptor per
 * result (rank and sizes as the program expects them, -1 for dynamic
 * sizes), and the handler registered for the process runs the op (the
 * Python package runs it in PyTorch, as AOTInductor's ProxyExecutor
 * does). The handler fills each result with wrapper_proxy_output, which
 * allocates as functional shims do (the program frees with
 * wrapper_shim_free).
 *===------------------------------------------------------------------===*/

typedef wrapper_status (*wrapper_proxy_handler)(
    int64_t key, int32_t num_inputs, const wrapper_tensor *const *inputs,
    int32_t num_outputs, wrapper_tensor *outputs);

/* Sets the process's handler (NULL removes it). */
void wrapper_set_proxy_handler(wrapper_proxy_handler handler);

/* Runs proxy `key` (`name` describes the op for messages): the handler's
 * status, or WRAPPER_ERROR_UNSUPPORTED when none is registered. */
wrapper_status wrapper_proxy_call(int64_t key, const char *name,
                                  int32_t num_inputs,
                                  const wrapper_tensor *const *inputs,
                                  int32_t num_outputs, wrapper_tensor *outputs);

/* Allocates result `t` of a proxy call with `dtype` and `sizes` (checked
 * against the sizes the program expects) and fills its sizes and
 * row-major strides; the caller copies the data in. */
wrapper_status wrapper_proxy_output(wrapper_tensor *t, int32_t dtype,
                                    int32_t rank, const int64_t *sizes);

/*===------------------------------------------------------------------===*
 * Collectives (wrapper.collective_start / collective_wait)
 *
 * A compiled graph starts a collective of PyTorch's _c10d_functional ops
 * with wrapper_collective_start and finishes it with wrapper_collective_wait
 * on the handle it got. Both go to the handlers the embedding program
 * registered: the Python package runs them on the torch.distributed process
 * group of that name (gloo on the CPU, NCCL on CUDA). `device` is -1 for
 * host buffers and the CUDA ordinal for device buffers.
 *===------------------------------------------------------------------===*/

typedef enum wrapper_collective {
  WRAPPER_ALL_REDUCE = 0,             /* outputs reduced in place */
  WRAPPER_ALL_GATHER_INTO_TENSOR = 1, /* input i of every rank -> output i */
  WRAPPER_REDUCE_SCATTER_TENSOR = 2,  /* chunk `rank` of input i -> output i */
} wrapper_collective;

typedef enum wrapper_reduce_op {
  WRAPPER_REDUCE_NONE = -1,
  WRAPPER_REDUCE_SUM = 0,
  WRAPPER_REDUCE_AVG = 1,
  WRAPPER_REDUCE_PRODUCT = 2,
  WRAPPER_REDUCE_MIN = 3,
  WRAPPER_REDUCE_MAX = 4,
} wrapper_reduce_op;

typedef wrapper_status (*wrapper_collective_start_handler)(
    int32_t collective, const char *group, int32_t reduce_op,
    int64_t group_size, int32_t device, int32_t num_inputs,
    const wrapper_tensor *const *inputs, int32_t num_outputs,
    const wrapper_tensor *const *outputs, int64_t *work);
typedef wrapper_status (*wrapper_collective_wait_handler)(int64_t work);

/* Sets the process's collective handlers (NULL removes them). */
void wrapper_set_collective_handlers(wrapper_collective_start_handler start,
                                     wrapper_collective_wait_handler wait);

/* Starts a collective through the handler and stores its handle in
 * `work`; WRAPPER_ERROR_UNSUPPORTED when no handler is registered. */
wrapper_status wrapper_collective_start(int32_t collective, const char *group,
                                        int32_t reduce_op, int64_t group_size,
                                        int32_t device, int32_t num_inputs,
                                        const wrapper_tensor *const *inputs,
                                        int32_t num_outputs,
                                        const wrapper_tensor *const *outputs,
                                        int64_t *work);

/* Waits for the collective `work` names. */
wrapper_status wrapper_collective_wait(int64_t work);

/* How many collectives this process started and waited for through the
 * runtime (for tests). */
int64_t wrapper_collectives_started(void);
int64_t wrapper_collectives_waited(void);

#ifdef __cplusplus
}
#endif

#endif /* WRAPPER_RUNTIME_WRAPPERSHIM_H */
