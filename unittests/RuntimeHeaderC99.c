/* Compiled with -std=c99 -Wall -Wextra -Werror -pedantic: the public header
 * of the runtime is plain C99. */
#include "Wrapper/Runtime/WrapperRuntime.h"

int wrapper_runtime_header_is_c99(void) {
  wrapper_array array;
  array.rank = 0;
  return (int)wrapper_dtype_size(WRAPPER_DTYPE_F32) + array.rank;
}
