/*===- MemrefCopy.c - strided copies of compiled CPU code ---------------===*
 *
 * Part of the Wrapper project.
 *
 * `memref.copy` between buffers that are not both contiguous lowers (MLIR's
 * MemRefToLLVM) to a call of `memrefCopy(elementSize, source, target)` with
 * unranked descriptors. MLIR's C runner utilities define it, but Debian's
 * build of that library needs libMLIR.so (through its APFloat wrappers), so
 * a model.so linked against it needed all of MLIR at run time. This is the
 * same function with the same ABI, so that a CPU model.so needs only the
 * runtime (and OpenMP).
 *
 *===--------------------------------------------------------------------===*/

#include <stdint.h>
#include <string.h>

/* MLIR's descriptors (mlir/ExecutionEngine/CRunnerUtils.h): an unranked
 * memref is {rank, pointer to a ranked descriptor}; a ranked descriptor is
 * {allocated, aligned, offset, sizes[rank], strides[rank]}. */
typedef struct {
  int64_t rank;
  void *descriptor;
} wrapper_unranked_memref;

typedef struct {
  char *allocated;
  char *aligned;
  int64_t offset;
  int64_t sizesAndStrides[];
} wrapper_ranked_memref;

__attribute__((visibility("default"))) void
memrefCopy(int64_t elementSize, wrapper_unranked_memref *source,
           wrapper_unranked_memref *target) {
  const wrapper_ranked_memref *from = source->descriptor;
  const wrapper_ranked_memref *to = target->descriptor;
  int64_t rank = source->rank;
  const int64_t *sizes = from->sizesAndStrides;
  const int64_t *fromStrides = from->sizesAndStrides + rank;
  const int64_t *toStrides = to->sizesAndStrides + rank;
  const char *in = from->aligned + from->offset * elementSize;
  char *out = to->aligned + to->offset * elementSize;
  if (rank == 0) {
    memcpy(out, in, (size_t)elementSize);
    return;
  }
  for (int64_t d = 0; d < rank; ++d)
    if (sizes[d] == 0)
      return;
  /* The innermost run of dimensions both sides lay out contiguously is
   * copied with one memcpy. */
  int64_t run = 1;
  int64_t inner = rank;
  while (inner > 0 && fromStrides[inner - 1] == run &&
         toStrides[inner - 1] == run) {
    run *= sizes[inner - 1];
    --inner;
  }
  size_t runBytes = (size_t)(run * elementSize);
  int64_t index[inner > 0 ? inner : 1];
  for (int64_t d = 0; d < inner; ++d)
    index[d] = 0;
  int64_t inOffset = 0, outOffset = 0;
  for (;;) {
    memcpy(out + outOffset * elementSize, in + inOffset * elementSize,
           runBytes);
    /* The next index of the outer `inner` dimensions, odometer-style. */
    int64_t d = inner - 1;
    for (; d >= 0; --d) {
      ++index[d];
      inOffset += fromStrides[d];
      outOffset += toStrides[d];
      if (index[d] < sizes[d])
        break;
      inOffset -= fromStrides[d] * sizes[d];
      outOffset -= toStrides[d] * sizes[d];
      index[d] = 0;
    }
    if (d < 0)
      return;
  }
}
