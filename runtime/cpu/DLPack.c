/*===- DLPack.c - host arrays as DLPack tensors ---------------------------===*
 *
 * Part of the Wrapper project.
 *
 * wrapper_dlpack_arrays: a compiled model's host outputs (wrapper_array,
 * each owning its runtime block) handed to a framework as DLManagedTensors
 * in one call, so that PyTorch's from_dlpack takes them without a copy and
 * gives each block back (wrapper_free) when its tensor goes: per output one
 * allocation and no Python objects besides the tensor itself.
 *
 *===----------------------------------------------------------------------===*/

#include "DLPack.h"
#include "RuntimeInternal.h"
#include "Wrapper/Runtime/WrapperRuntime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The tensor and its shape, one allocation; strides NULL (compact, row
 * major, as DLPack v0.8 allows). */
static void deleter(DLManagedTensor *self) {
  if (!self)
    return;
  wrapper_free(self->manager_ctx);
  free(self);
}

wrapper_status wrapper_dlpack_arrays(wrapper_array *arrays, int32_t count,
                                     void **managed) {
  if (count < 0 || (count > 0 && (!arrays || !managed)))
    return wrapper_set_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                             "wrapper_dlpack_arrays: NULL arrays or results, "
                             "or count %d",
                             (int)count);
  for (int32_t i = 0; i < count; ++i)
    managed[i] = NULL;
  wrapper_status status = WRAPPER_OK;
  char message[256] = "";
  int32_t made = 0;
  for (; made < count; ++made) {
    wrapper_array *array = &arrays[made];
    DLDataType type;
    if (!wrapperDLPackType(array->dtype, &type)) {
      status = WRAPPER_ERROR_UNSUPPORTED;
      snprintf(message, sizeof message, "DLPack has no %s",
               wrapper_dtype_name(array->dtype));
      break;
    }
    if (array->rank < 0 || array->rank > WRAPPER_MAX_RANK) {
      status = WRAPPER_ERROR_INVALID_ARGUMENT;
      snprintf(message, sizeof message, "rank %d out of range",
               (int)array->rank);
      break;
    }
    size_t dims = (size_t)(array->rank ? array->rank : 1);
    DLManagedTensor *tensor = malloc(sizeof *tensor + dims * sizeof(int64_t));
    if (!tensor) {
      status = WRAPPER_ERROR_OUT_OF_MEMORY;
      snprintf(message, sizeof message, "no host memory");
      break;
    }
    int64_t *shape = (int64_t *)(tensor + 1);
    memcpy(shape, array->shape, (size_t)array->rank * sizeof(int64_t));
    tensor->dl_tensor.data = array->data;
    tensor->dl_tensor.device.device_type = kDLCPU;
    tensor->dl_tensor.device.device_id = 0;
    tensor->dl_tensor.ndim = array->rank;
    tensor->dl_tensor.dtype = type;
    tensor->dl_tensor.shape = shape;
    tensor->dl_tensor.strides = NULL;
    tensor->dl_tensor.byte_offset = 0;
    /* The block goes with the tensor: the array no longer owns it. */
    tensor->manager_ctx = array->data;
    tensor->deleter = deleter;
    array->data = NULL;
    managed[made] = tensor;
  }
  if (status == WRAPPER_OK)
    return WRAPPER_OK;
  /* Nothing is left: the tensors made are deleted (their blocks freed), the
   * other arrays destroyed. */
  for (int32_t j = 0; j < made; ++j) {
    DLManagedTensor *tensor = managed[j];
    tensor->deleter(tensor);
    managed[j] = NULL;
  }
  for (int32_t j = made; j < count; ++j)
    wrapper_array_destroy(&arrays[j]);
  return wrapper_set_error(status, "wrapper_dlpack_arrays: array #%d: %s",
                           (int)made, message);
}
