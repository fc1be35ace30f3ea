/*===- DLPack.h - DLPack's tensor layout, for the runtimes' exports ------===*
 *
 * Part of the Wrapper project.
 *
 * The structs of dlpack.h v0.8 (the unversioned DLManagedTensor), declared
 * here because the layout is a stable ABI and the runtimes have no
 * dependency to take them from; and the DLPack type of a wrapper_dtype.
 * Private to runtime/ (cpu/DLPack.c, cuda/CudaDLPack.c).
 *
 *===----------------------------------------------------------------------===*/

#ifndef WRAPPER_RUNTIME_COMMON_DLPACK_H
#define WRAPPER_RUNTIME_COMMON_DLPACK_H

#include "Wrapper/Runtime/WrapperRuntime.h"

#include <stdint.h>

typedef struct {
  int32_t device_type;
  int32_t device_id;
} DLDevice;

typedef struct {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
} DLDataType;

typedef struct {
  void *data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t *shape;
  int64_t *strides;
  uint64_t byte_offset;
} DLTensor;

typedef struct DLManagedTensor {
  DLTensor dl_tensor;
  void *manager_ctx;
  void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;

enum {
  kDLCPU = 1,
  kDLCUDA = 2,
  kDLInt = 0,
  kDLUInt = 1,
  kDLFloat = 2,
  kDLBfloat = 4,
  kDLBool = 6,
};

/* The DLPack type of a dtype; 0 when DLPack has none we write (fp8). */
static inline int wrapperDLPackType(wrapper_dtype dtype, DLDataType *out) {
  static const struct {
    wrapper_dtype dtype;
    uint8_t code, bits;
  } table[] = {
      {WRAPPER_DTYPE_BOOL, kDLBool, 8},  {WRAPPER_DTYPE_I8, kDLInt, 8},
      {WRAPPER_DTYPE_I16, kDLInt, 16},   {WRAPPER_DTYPE_I32, kDLInt, 32},
      {WRAPPER_DTYPE_I64, kDLInt, 64},   {WRAPPER_DTYPE_U8, kDLUInt, 8},
      {WRAPPER_DTYPE_F16, kDLFloat, 16}, {WRAPPER_DTYPE_F32, kDLFloat, 32},
      {WRAPPER_DTYPE_F64, kDLFloat, 64}, {WRAPPER_DTYPE_BF16, kDLBfloat, 16},
  };
  for (unsigned i = 0; i < sizeof table / sizeof *table; ++i)
    if (table[i].dtype == dtype) {
      out->code = table[i].code;
      out->bits = table[i].bits;
      out->lanes = 1;
      return 1;
    }
  return 0;
}

#endif /* WRAPPER_RUNTIME_COMMON_DLPACK_H */
