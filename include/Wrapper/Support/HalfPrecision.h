/*===- HalfPrecision.h - f16 and bf16 bit conversions -----------*- C -*-===*
 *
 * Part of the Wrapper project.
 *
 * Conversions between IEEE half / bfloat16 bits and float, round to nearest
 * even, NaN kept quiet. Header-only (static inline, C and C++), so that the
 * runtime (wrapper_f16_to_f32 and friends) and the reference interpreter
 * round alike without the interpreter linking the runtime.
 *
 *===----------------------------------------------------------------------===*/

#ifndef WRAPPER_SUPPORT_HALFPRECISION_H
#define WRAPPER_SUPPORT_HALFPRECISION_H

#include <stdint.h>
#include <string.h>

static inline float wrapper_half_f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000) << 16;
  uint32_t exponent = (h >> 10) & 0x1f;
  uint32_t mantissa = h & 0x3ff;
  uint32_t bits;
  if (exponent == 0) {
    if (mantissa == 0) {
      bits = sign;
    } else {
      /* Subnormal: normalize. */
      exponent = 127 - 15 + 1;
      while ((mantissa & 0x400) == 0) {
        mantissa <<= 1;
        --exponent;
      }
      mantissa &= 0x3ff;
      bits = sign | (exponent << 23) | (mantissa << 13);
    }
  } else if (exponent == 0x1f) {
    bits = sign | 0x7f800000 | (mantissa << 13);
  } else {
    bits = sign | ((exponent + 127 - 15) << 23) | (mantissa << 13);
  }
  float f;
  memcpy(&f, &bits, sizeof(f));
  return f;
}

static inline uint16_t wrapper_half_f32_to_f16(float value) {
  uint32_t bits;
  memcpy(&bits, &value, sizeof(bits));
  uint16_t sign = (uint16_t)((bits >> 16) & 0x8000);
  uint32_t exponent = (bits >> 23) & 0xff;
  uint32_t mantissa = bits & 0x7fffff;
  if (exponent == 0xff) /* inf or NaN (keep NaN quiet) */
    return (uint16_t)(sign | 0x7c00 |
                      (mantissa ? 0x200 | (mantissa >> 13) : 0));
  int32_t e = (int32_t)exponent - 127 + 15;
  if (e >= 0x1f)
    return (uint16_t)(sign | 0x7c00); /* overflow to inf */
  if (e <= 0) {
    if (e < -10)
      return sign; /* underflow to zero */
    /* Subnormal, round to nearest even. */
    mantissa |= 0x800000;
    uint32_t shift = (uint32_t)(14 - e);
    uint32_t half = mantissa >> shift;
    uint32_t rest = mantissa & ((1u << shift) - 1);
    uint32_t halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (half & 1)))
      ++half;
    return (uint16_t)(sign | half);
  }
  uint32_t half = ((uint32_t)e << 10) | (mantissa >> 13);
  uint32_t rest = mantissa & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1)))
    ++half; /* may carry into the exponent, which is right */
  return (uint16_t)(sign | half);
}

static inline float wrapper_half_bf16_to_f32(uint16_t h) {
  uint32_t bits = (uint32_t)h << 16;
  float f;
  memcpy(&f, &bits, sizeof(f));
  return f;
}

static inline uint16_t wrapper_half_f32_to_bf16(float value) {
  uint32_t bits;
  memcpy(&bits, &value, sizeof(bits));
  if ((bits & 0x7f800000) == 0x7f800000 && (bits & 0x7fffff))
    return (uint16_t)((bits >> 16) | 0x40); /* quiet NaN */
  uint32_t rounding = 0x7fff + ((bits >> 16) & 1);
  return (uint16_t)((bits + rounding) >> 16);
}

#endif /* WRAPPER_SUPPORT_HALFPRECISION_H */
