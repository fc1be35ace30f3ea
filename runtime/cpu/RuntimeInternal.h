/*===- RuntimeInternal.h - private helpers of the runtime ------*- C -*-===*
 *
 * Part of the Wrapper project.
 *
 *===----------------------------------------------------------------------===*/

#ifndef WRAPPER_LIB_RUNTIME_RUNTIMEINTERNAL_H
#define WRAPPER_LIB_RUNTIME_RUNTIMEINTERNAL_H

#include "Wrapper/Runtime/WrapperRuntime.h"

/* Records the message of an error on the calling thread; returns status. */
wrapper_status wrapper_set_error(wrapper_status status, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/* Element `index` (in elements from `data`) of `dtype` as a double (0 for
 * an unknown dtype). */
double wrapper_load_element(int32_t dtype, const void *data, int64_t index);

#endif /* WRAPPER_LIB_RUNTIME_RUNTIMEINTERNAL_H */
