/*===- CudaDLPack.c - device arrays as DLPack tensors --------------------===*
 *
 * Part of the Wrapper project.
 *
 * wrapper_cuda_dlpack: a DLManagedTensor over a block of the caching
 * allocator, so that frameworks (PyTorch's from_dlpack) take a compiled
 * model's device outputs without a copy and give the block back when they
 * are done with it.
 *
 *===----------------------------------------------------------------------===*/

#include "CudaInternal.h"
#include "DLPack.h"
#include "Wrapper/Runtime/WrapperModel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What wrapper_cuda_dlpack allocates: the tensor, whether the runtime
 * recorded it as its block's owner, then the shape and strides. */
typedef struct Export {
  DLManagedTensor tensor;
  int64_t recorded;
} Export;

static void deleter(DLManagedTensor *self) {
  if (!self)
    return;
  /* A block the tensor owns: freed unless a call freed it at its last use
   * (wrapper_cuda_donate). A deleter cannot fail; a bad block would be a
   * bug of this file. */
  if (((Export *)self)->recorded)
    wrapper_cuda_free_owned(self->manager_ctx, self);
  else
    (void)wrapper_cuda_free(self->manager_ctx);
  free(self);
}

wrapper_status wrapper_cuda_dlpack(void *block, void *data, wrapper_dtype dtype,
                                   int32_t rank, const int64_t *shape,
                                   const int64_t *strides, void **managed) {
  if (!managed || rank < 0 || rank > WRAPPER_MAX_RANK ||
      (rank > 0 && (!shape || !strides)))
    return wrapper_report_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                                "wrapper_cuda_dlpack: NULL result, shape or "
                                "strides, or rank %d out of range",
                                (int)rank);
  *managed = NULL;
  DLDataType type;
  if (!wrapperDLPackType(dtype, &type))
    return wrapper_report_error(WRAPPER_ERROR_UNSUPPORTED,
                                "wrapper_cuda_dlpack: DLPack has no %s",
                                wrapper_dtype_name(dtype));
  int32_t device = wrapper_cuda_device();
  if (device < 0)
    return WRAPPER_ERROR_UNSUPPORTED; /* the message says why */
  /* One allocation: the tensor, then its shape and strides. */
  size_t dims = (size_t)(rank ? rank : 1);
  Export *export = malloc(sizeof(Export) + 2 * dims * sizeof(int64_t));
  if (!export)
    return wrapper_report_error(WRAPPER_ERROR_OUT_OF_MEMORY,
                                "wrapper_cuda_dlpack: no host memory");
  DLManagedTensor *tensor = &export->tensor;
  int64_t *sizes = (int64_t *)(export + 1);
  int64_t *steps = sizes + dims;
  if (rank) {
    memcpy(sizes, shape, (size_t)rank * sizeof(int64_t));
    memcpy(steps, strides, (size_t)rank * sizeof(int64_t));
  }
  tensor->dl_tensor.data = data;
  tensor->dl_tensor.device.device_type = kDLCUDA;
  tensor->dl_tensor.device.device_id = device;
  tensor->dl_tensor.ndim = rank;
  tensor->dl_tensor.dtype = type;
  tensor->dl_tensor.shape = sizes;
  tensor->dl_tensor.strides = steps;
  tensor->dl_tensor.byte_offset = 0;
  tensor->manager_ctx = block;
  tensor->deleter = deleter;
  /* A block of the allocator (not one of a graph's pool) has its owner
   * recorded, so that a call can free it early when donated. */
  export->recorded = block && wrapper_cuda_set_owner(block, tensor);
  *managed = tensor;
  return WRAPPER_OK;
}

wrapper_status wrapper_cuda_dlpack_arrays(const wrapper_strided_array *arrays,
                                          int32_t count, int32_t owned,
                                          void **managed) {
  if (count < 0 || (count > 0 && (!arrays || !managed)))
    return wrapper_report_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                                "wrapper_cuda_dlpack_arrays: NULL arrays or "
                                "results, or count %d",
                                (int)count);
  for (int32_t i = 0; i < count; ++i)
    managed[i] = NULL;
  for (int32_t i = 0; i < count; ++i) {
    const wrapper_strided_array *array = &arrays[i];
    wrapper_status status = wrapper_cuda_dlpack(
        owned ? array->allocated : NULL, array->data, array->dtype, array->rank,
        array->shape, array->strides, &managed[i]);
    if (status == WRAPPER_OK)
      continue;
    /* Nothing is left: the tensors made are deleted (their deleters free
     * their blocks), the other blocks freed. */
    char message[512];
    snprintf(message, sizeof message, "%s", wrapper_last_error());
    for (int32_t j = 0; j < i; ++j) {
      DLManagedTensor *made = managed[j];
      made->deleter(made);
      managed[j] = NULL;
    }
    for (int32_t j = i; owned && j < count; ++j)
      (void)wrapper_cuda_free(arrays[j].allocated);
    return wrapper_report_error(status, "array #%d: %s", (int)i, message);
  }
  return WRAPPER_OK;
}
