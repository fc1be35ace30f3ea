/*===- Runtime.c - errors, profiling, half-precision conversion -----------===*
 *
 * Part of the Wrapper project.
 *
 *===----------------------------------------------------------------------===*/

#define _POSIX_C_SOURCE 200809L

#include "RuntimeInternal.h"
#include "Wrapper/Runtime/WrapperRuntime.h"
#include "Wrapper/Support/HalfPrecision.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/*===------------------------------------------------------------------===*
 * Errors
 *===------------------------------------------------------------------===*/

static _Thread_local char lastError[1024];

static wrapper_status recordError(wrapper_status status, const char *format,
                                  va_list args) {
  vsnprintf(lastError, sizeof(lastError), format, args);
  return status;
}

wrapper_status wrapper_set_error(wrapper_status status, const char *format,
                                 ...) {
  va_list args;
  va_start(args, format);
  status = recordError(status, format, args);
  va_end(args);
  return status;
}

const char *wrapper_last_error(void) { return lastError; }

wrapper_status wrapper_report_error(wrapper_status status, const char *format,
                                    ...) {
  va_list args;
  va_start(args, format);
  status = recordError(status, format, args);
  va_end(args);
  return status;
}

const char *wrapper_status_name(wrapper_status status) {
  switch (status) {
  case WRAPPER_OK:
    return "WRAPPER_OK";
  case WRAPPER_ERROR_INVALID_ARGUMENT:
    return "WRAPPER_ERROR_INVALID_ARGUMENT";
  case WRAPPER_ERROR_OUT_OF_MEMORY:
    return "WRAPPER_ERROR_OUT_OF_MEMORY";
  case WRAPPER_ERROR_LIMIT:
    return "WRAPPER_ERROR_LIMIT";
  case WRAPPER_ERROR_IO:
    return "WRAPPER_ERROR_IO";
  case WRAPPER_ERROR_FORMAT:
    return "WRAPPER_ERROR_FORMAT";
  case WRAPPER_ERROR_UNSUPPORTED:
    return "WRAPPER_ERROR_UNSUPPORTED";
  case WRAPPER_ERROR_EXTERNAL:
    return "WRAPPER_ERROR_EXTERNAL";
  }
  return "WRAPPER_ERROR_UNKNOWN";
}

/*===------------------------------------------------------------------===*
 * Kernel profiling
 *===------------------------------------------------------------------===*/

static uint64_t profileStart[WRAPPER_PROFILE_MAX_KERNELS];
static uint64_t profileTotal[WRAPPER_PROFILE_MAX_KERNELS];
static uint64_t profileCalls[WRAPPER_PROFILE_MAX_KERNELS];
static uint64_t profileBytes[WRAPPER_PROFILE_MAX_KERNELS];

static uint64_t nowNanoseconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

void wrapper_profile_begin(int64_t id) {
  if (id >= 0 && id < WRAPPER_PROFILE_MAX_KERNELS)
    profileStart[id] = nowNanoseconds();
}

void wrapper_profile_end(int64_t id) {
  if (id < 0 || id >= WRAPPER_PROFILE_MAX_KERNELS)
    return;
  profileTotal[id] += nowNanoseconds() - profileStart[id];
  ++profileCalls[id];
}

void wrapper_profile_read(int64_t id, uint64_t *nanoseconds, uint64_t *calls) {
  int valid = id >= 0 && id < WRAPPER_PROFILE_MAX_KERNELS;
  if (nanoseconds)
    *nanoseconds = valid ? profileTotal[id] : 0;
  if (calls)
    *calls = valid ? profileCalls[id] : 0;
}

void wrapper_profile_bytes(int64_t id, int64_t bytes) {
  if (id >= 0 && id < WRAPPER_PROFILE_MAX_KERNELS && bytes > 0)
    profileBytes[id] += (uint64_t)bytes;
}

uint64_t wrapper_profile_read_bytes(int64_t id) {
  return id >= 0 && id < WRAPPER_PROFILE_MAX_KERNELS ? profileBytes[id] : 0;
}

void wrapper_profile_reset(void) {
  memset(profileTotal, 0, sizeof(profileTotal));
  memset(profileCalls, 0, sizeof(profileCalls));
  memset(profileBytes, 0, sizeof(profileBytes));
}

/*===------------------------------------------------------------------===*
 * Half precision
 *===------------------------------------------------------------------===*/

float wrapper_f16_to_f32(uint16_t h) { return wrapper_half_f16_to_f32(h); }

uint16_t wrapper_f32_to_f16(float value) {
  return wrapper_half_f32_to_f16(value);
}

float wrapper_bf16_to_f32(uint16_t h) { return wrapper_half_bf16_to_f32(h); }

uint16_t wrapper_f32_to_bf16(float value) {
  return wrapper_half_f32_to_bf16(value);
}

float wrapper_f8e4m3fn_to_f32(uint8_t bits) {
  int sign = bits >> 7;
  int exponent = (bits >> 3) & 0xf;
  int mantissa = bits & 0x7;
  float magnitude;
  if (exponent == 0xf && mantissa == 0x7)
    magnitude = NAN;
  else if (exponent == 0)
    magnitude = ldexpf((float)mantissa, -9); /* subnormal: m / 8 * 2^-6 */
  else
    magnitude = ldexpf(1.0f + (float)mantissa / 8.0f, exponent - 7);
  return sign ? -magnitude : magnitude;
}

uint8_t wrapper_f32_to_f8e4m3fn(float value) {
  if (isnan(value))
    return 0x7f;
  uint8_t sign = signbit(value) ? 0x80 : 0;
  float magnitude = fabsf(value);
  if (magnitude >= 448.0f)
    return sign | 0x7e; /* saturate to the largest finite value */
  /* The codes 0..0x7e are ordered by value: find the nearest, ties to the
   * even code (an even mantissa). */
  uint8_t low = 0, high = 0x7e;
  while (high - low > 1) {
    uint8_t mid = (uint8_t)((low + high) / 2);
    if (wrapper_f8e4m3fn_to_f32(mid) <= magnitude)
      low = mid;
    else
      high = mid;
  }
  float below = wrapper_f8e4m3fn_to_f32(low);
  float above = wrapper_f8e4m3fn_to_f32(high);
  uint8_t code;
  if (magnitude - below < above - magnitude)
    code = low;
  else if (magnitude - below > above - magnitude)
    code = high;
  else
    code = (low & 1) ? high : low;
  if (wrapper_f8e4m3fn_to_f32(low) == magnitude)
    code = low;
  return sign | code;
}
