//===- Philox.h - the counter-based generator of tensor_program.uniform ---===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//
//
// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2,
// 3", SC'11) as tensor_program.uniform defines it, for the interpreter and
// the runtime's tests. The compiled code computes the same function from
// arith ops (lib/Conversion/TensorProgramToLinalg).
//
//===----------------------------------------------------------------------===//

#ifndef WRAPPER_SUPPORT_PHILOX_H
#define WRAPPER_SUPPORT_PHILOX_H

#include <cstdint>

namespace mlir {
namespace wrapper {

/// The first word of Philox4x32-10 with `key` and counter (`index`,
/// `stream`), each 64-bit value split into (low, high) 32-bit words.
inline uint32_t philox4x32First(uint64_t key, uint64_t index, uint64_t stream) {
  uint32_t k0 = static_cast<uint32_t>(key),
           k1 = static_cast<uint32_t>(key >> 32);
  uint32_t c[4] = {
      static_cast<uint32_t>(index), static_cast<uint32_t>(index >> 32),
      static_cast<uint32_t>(stream), static_cast<uint32_t>(stream >> 32)};
  for (int round = 0; round < 10; ++round) {
    uint64_t p0 = uint64_t{0xD2511F53u} * c[0];
    uint64_t p1 = uint64_t{0xCD9E8D57u} * c[2];
    uint32_t next[4] = {
        static_cast<uint32_t>(p1 >> 32) ^ c[1] ^ k0, static_cast<uint32_t>(p1),
        static_cast<uint32_t>(p0 >> 32) ^ c[3] ^ k1, static_cast<uint32_t>(p0)};
    for (int i = 0; i < 4; ++i)
      c[i] = next[i];
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return c[0];
}

/// The uniform float in [0, 1) of a Philox word: its top 24 bits * 2^-24.
inline float philoxUniform(uint32_t word) {
  return static_cast<float>(word >> 8) * (1.0f / 16777216.0f);
}

} // namespace wrapper
} // namespace mlir

#endif // WRAPPER_SUPPORT_PHILOX_H
