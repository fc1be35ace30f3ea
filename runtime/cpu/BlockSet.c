/*===- BlockSet.c - sets of block addresses -------------------------------===*
 *
 * Part of the Wrapper project.
 *
 * An open-addressing hash set of block addresses (linear probing, deletion
 * by backward shift): the call scopes' records of what a call holds
 * (CallScope.c) and the blocks of compiled code handed to callers as
 * arrays (Allocator.c). Not thread safe: its users lock or keep one per
 * thread.
 *
 *===----------------------------------------------------------------------===*/

#include "RuntimeInternal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { kMinSlots = 64 };

static size_t home(const WrapperBlockSet *set, const void *block) {
  uint64_t h = (uint64_t)(uintptr_t)block >> 4;
  h *= 0x9E3779B97F4A7C15ull;
  return (size_t)(h >> 32) & set->mask;
}

static int grow(WrapperBlockSet *set) {
  size_t capacity = set->slots ? (set->mask + 1) * 2 : kMinSlots;
  void **slots = (void **)calloc(capacity, sizeof(void *));
  if (!slots)
    return 0;
  WrapperBlockSet bigger = {slots, capacity - 1, 0};
  for (size_t i = 0; set->slots && i <= set->mask; ++i) {
    void *block = set->slots[i];
    if (!block)
      continue;
    size_t j = home(&bigger, block);
    while (slots[j])
      j = (j + 1) & bigger.mask;
    slots[j] = block;
    ++bigger.count;
  }
  free(set->slots);
  *set = bigger;
  return 1;
}

int wrapper_block_set_insert(WrapperBlockSet *set, void *block) {
  if (!block)
    return 1;
  if ((set->count + 1) * 2 > (set->slots ? set->mask + 1 : 0) && !grow(set))
    return 0;
  size_t i = home(set, block);
  while (set->slots[i]) {
    if (set->slots[i] == block)
      return 1;
    i = (i + 1) & set->mask;
  }
  set->slots[i] = block;
  ++set->count;
  return 1;
}

int wrapper_block_set_erase(WrapperBlockSet *set, void *block) {
  if (!block || set->count == 0)
    return 0;
  size_t i = home(set, block);
  while (set->slots[i] != block) {
    if (!set->slots[i])
      return 0;
    i = (i + 1) & set->mask;
  }
  /* Backward shift: move later members of the probe run into the hole
   * unless their home lies cyclically in (hole, member]. */
  set->slots[i] = NULL;
  --set->count;
  for (size_t j = (i + 1) & set->mask; set->slots[j]; j = (j + 1) & set->mask) {
    size_t k = home(set, set->slots[j]);
    int stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
    if (stays)
      continue;
    set->slots[i] = set->slots[j];
    set->slots[j] = NULL;
    i = j;
  }
  return 1;
}

void wrapper_block_set_clear(WrapperBlockSet *set, int release) {
  if (!set->slots || set->count == 0)
    return;
  for (size_t i = 0; i <= set->mask; ++i) {
    if (release && set->slots[i])
      wrapper_block_release(set->slots[i]);
    set->slots[i] = NULL;
  }
  set->count = 0;
}

void wrapper_block_set_destroy(WrapperBlockSet *set) {
  free(set->slots);
  set->slots = NULL;
  set->mask = set->count = 0;
}
