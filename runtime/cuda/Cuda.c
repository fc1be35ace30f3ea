/*===- Cuda.c - the CUDA side of the runtime -----------------------------===*
 *
 * Part of the Wrapper project.
 *
 * Implements include/Wrapper/Runtime/WrapperCuda.h: libcuda loaded with
 * dlopen, one primary context, the runtime's stream and the calling
 * thread's current stream, a caching device allocator with one pool per
 * stream, module and function caches, and the mgpu* entry points of MLIR's
 * gpu-to-llvm host code on top of them.
 *
 *===----------------------------------------------------------------------===*/

#define _GNU_SOURCE
#include "CudaInternal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*===------------------------------------------------------------------===*
 * The driver API, declared by hand (stable ABI; no CUDA headers needed)
 *===------------------------------------------------------------------===*/

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphExec_st *CUgraphExec;

enum {
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
  CU_STREAM_NON_BLOCKING = 1,
  CU_JIT_ERROR_LOG_BUFFER = 5,
  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
  CU_STREAM_CAPTURE_MODE_RELAXED = 2,
  CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2,
  CU_MEMORYTYPE_DEVICE = 2,
};

static struct {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetName)(char *, int, CUdevice);
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuStreamCreate)(CUstream *, unsigned);
  CUresult (*cuStreamSynchronize)(CUstream);
  CUresult (*cuCtxSynchronize)(void);
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr, const void *, size_t, CUstream);
  CUresult (*cuMemcpyDtoHAsync)(void *, CUdeviceptr, size_t, CUstream);
  CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
  CUresult (*cuMemcpyAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
  CUresult (*cuMemsetD32Async)(CUdeviceptr, unsigned, size_t, CUstream);
  CUresult (*cuModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *,
                                 void **);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, unsigned, CUstream,
                             void **, void **);
  CUresult (*cuGetErrorName)(CUresult, const char **);
  CUresult (*cuGetErrorString)(CUresult, const char **);
  CUresult (*cuStreamBeginCapture)(CUstream, int);
  CUresult (*cuStreamEndCapture)(CUstream, CUgraph *);
  CUresult (*cuGraphInstantiateWithFlags)(CUgraphExec *, CUgraph,
                                          unsigned long long);
  CUresult (*cuGraphLaunch)(CUgraphExec, CUstream);
  CUresult (*cuGraphExecDestroy)(CUgraphExec);
  CUresult (*cuGraphDestroy)(CUgraph);
  CUresult (*cuPointerGetAttribute)(void *, int, CUdeviceptr);
} cu;

/* The versioned symbols behind the cuda.h names. */
static const wrapper_cuda_symbol symbols[] = {
    {"cuInit", (void **)&cu.cuInit},
    {"cuDeviceGetCount", (void **)&cu.cuDeviceGetCount},
    {"cuDeviceGet", (void **)&cu.cuDeviceGet},
    {"cuDeviceGetName", (void **)&cu.cuDeviceGetName},
    {"cuDeviceGetAttribute", (void **)&cu.cuDeviceGetAttribute},
    {"cuDevicePrimaryCtxRetain", (void **)&cu.cuDevicePrimaryCtxRetain},
    {"cuCtxSetCurrent", (void **)&cu.cuCtxSetCurrent},
    {"cuStreamCreate", (void **)&cu.cuStreamCreate},
    {"cuStreamSynchronize", (void **)&cu.cuStreamSynchronize},
    {"cuCtxSynchronize", (void **)&cu.cuCtxSynchronize},
    {"cuMemAlloc_v2", (void **)&cu.cuMemAlloc},
    {"cuMemFree_v2", (void **)&cu.cuMemFree},
    {"cuMemcpyHtoDAsync_v2", (void **)&cu.cuMemcpyHtoDAsync},
    {"cuMemcpyDtoHAsync_v2", (void **)&cu.cuMemcpyDtoHAsync},
    {"cuMemcpyDtoDAsync_v2", (void **)&cu.cuMemcpyDtoDAsync},
    {"cuMemcpyAsync", (void **)&cu.cuMemcpyAsync},
    {"cuMemsetD32Async", (void **)&cu.cuMemsetD32Async},
    {"cuModuleLoadDataEx", (void **)&cu.cuModuleLoadDataEx},
    {"cuModuleGetFunction", (void **)&cu.cuModuleGetFunction},
    {"cuLaunchKernel", (void **)&cu.cuLaunchKernel},
    {"cuGetErrorName", (void **)&cu.cuGetErrorName},
    {"cuGetErrorString", (void **)&cu.cuGetErrorString},
    {"cuStreamBeginCapture_v2", (void **)&cu.cuStreamBeginCapture},
    {"cuStreamEndCapture", (void **)&cu.cuStreamEndCapture},
    {"cuGraphInstantiateWithFlags", (void **)&cu.cuGraphInstantiateWithFlags},
    {"cuGraphLaunch", (void **)&cu.cuGraphLaunch},
    {"cuGraphExecDestroy", (void **)&cu.cuGraphExecDestroy},
    {"cuGraphDestroy", (void **)&cu.cuGraphDestroy},
    {"cuPointerGetAttribute", (void **)&cu.cuPointerGetAttribute},
};

/*===------------------------------------------------------------------===*
 * State
 *===------------------------------------------------------------------===*/

typedef struct Block {
  CUdeviceptr ptr;
  size_t size;     /* rounded */
  CUstream stream; /* the stream it was allocated for: its pool */
  int inUse;
  size_t nextFree; /* index + 1 of the next free block of its list; 0: none */
  /* The DLPack tensor that owns it (wrapper_cuda_dlpack), or NULL; and
   * whether that tensor's holder gave it up for the call under way
   * (wrapper_cuda_donate), so that the call frees it at its last use
   * (wrapperCudaReleaseArgument). */
  const void *owner;
  int donated;
} Block;

/* The free blocks of one size and stream: a list through Block.nextFree. */
typedef struct FreeList {
  size_t size; /* 0: an unused slot of the table */
  CUstream stream;
  size_t head; /* index + 1 of its first block; 0: empty */
} FreeList;

typedef struct Module {
  const void *image;
  CUmodule module;
} Module;

typedef struct Function {
  CUmodule module;
  char *name;
  CUfunction function;
} Function;

/* A function found by the name pointer a call site passed (compiled code
 * passes the same constant string at every launch). */
typedef struct FunctionSlot {
  CUmodule module; /* NULL: an unused slot */
  const char *key;
  size_t index; /* into `functions` */
} FunctionSlot;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int initialized;        /* 1: ready; -1: failed (message below) */
static char initError[512];
static int32_t boundDevice = -1;
static CUcontext context; /* the device's primary context */
/* Whether `context` was made current on this thread (the driver's current
 * context is per thread: a thread that never used CUDA has none). */
static __thread int threadBound;
static CUstream stream; /* the runtime's own */
/* The calling thread's current stream, when wrapper_cuda_set_stream chose
 * one; else the runtime's. */
static __thread int threadHasStream;
static __thread CUstream threadStream;
static Block *blocks;
static size_t blockCount, blockCapacity;
/* The cache's index, so that an allocation or a free costs the same with
 * thousands of blocks as with ten: open-addressing tables of `slotCount`
 * (a power of two, at least twice the blocks and the lists) slots, rebuilt
 * from `blocks` when they fill up or `blocks` is compacted. */
static size_t *addressSlots; /* index + 1 of the block at an address */
static FreeList *freeLists;  /* by size and stream */
static size_t slotCount, listCount;
static Module *modules;
static size_t moduleCount, moduleCapacity;
static Function *functions;
static size_t functionCount, functionCapacity;
static FunctionSlot *functionSlots;
static size_t functionSlotCount, functionSlotsUsed; /* a power of two */
static wrapper_cuda_stats stats;
/* The most stats.bytes_in_use has been since the last reset. */
static uint64_t peakBytesInUse;
/* Donated blocks freed at their last use (wrapperCudaReleaseArgument). */
static uint64_t releasedEarly, bytesReleasedEarly;
/* The first error of an mgpu* call (they return nothing) on this thread,
 * reported by its next wrapper_cuda_synchronize or wrapper_cuda_take_error:
 * a call's errors stay with the thread that made it. */
static __thread wrapper_status stickyStatus = WRAPPER_OK;
static __thread char stickyMessage[512];
/* Stream capture (wrapper_cuda_graph_begin/end): blocks freed meanwhile are
 * kept for the graph instead of going back to the cache. */
static int capturing;
static wrapper_cuda_graph_pool *capturePool; /* of the capture, or NULL */
static CUdeviceptr *held;
static size_t heldCount, heldCapacity;

int32_t wrapper_cuda_abi_version(void) { return WRAPPER_CUDA_ABI_VERSION; }

/* Grows `*array` (of `size`-byte elements) to hold one more. */
static int reserve(void **array, size_t *capacity, size_t count, size_t size) {
  if (count < *capacity)
    return 1;
  size_t grown = *capacity ? *capacity * 2 : 16;
  void *bigger = realloc(*array, grown * size);
  if (!bigger)
    return 0;
  *array = bigger;
  *capacity = grown;
  return 1;
}

static wrapper_status driverError(CUresult result, const char *what) {
  const char *name = "CUDA_ERROR", *text = "";
  if (cu.cuGetErrorName)
    cu.cuGetErrorName(result, &name);
  if (cu.cuGetErrorString)
    cu.cuGetErrorString(result, &text);
  return wrapper_report_error(WRAPPER_ERROR_UNSUPPORTED, "%s: %s (%d): %s%s",
                              what, name ? name : "?", (int)result,
                              text ? text : "", wrapper_cuda_fault_note());
}

/* A driver call that does a model call's work, or the error fault
 * injection puts in its place (CUDA_ERROR_UNKNOWN). */
#define CU_WORK(call) (wrapper_cuda_fault() ? 999 : (call))

#define CU_CHECK(call, what)                                                   \
  do {                                                                         \
    CUresult result_ = (call);                                                 \
    if (result_ != 0)                                                          \
      return driverError(result_, what);                                       \
  } while (0)

const char *wrapper_cuda_resolve(void *library,
                                 const wrapper_cuda_symbol *symbols,
                                 size_t count) {
  for (size_t i = 0; i < count; ++i) {
    *symbols[i].slot = dlsym(library, symbols[i].name);
    if (!*symbols[i].slot)
      return symbols[i].name;
  }
  return NULL;
}

/* Called with the lock held. */
static wrapper_status initLocked(int32_t device) {
  if (initialized == 1 && device != boundDevice)
    return wrapper_report_error(
        WRAPPER_ERROR_UNSUPPORTED,
        "the CUDA runtime is bound to device %d, device %d was asked for "
        "(one device per process; WRAPPER_CUDA_DEVICE chooses it)",
        (int)boundDevice, (int)device);
  if (initialized == 1)
    return WRAPPER_OK;
  if (initialized == -1)
    return wrapper_report_error(WRAPPER_ERROR_UNSUPPORTED, "%s", initError);
  initialized = -1;
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
  if (!library) {
    snprintf(initError, sizeof initError, "CUDA is not available: %s",
             dlerror());
    return wrapper_report_error(WRAPPER_ERROR_UNSUPPORTED, "%s", initError);
  }
  const char *missing =
      wrapper_cuda_resolve(library, symbols, sizeof symbols / sizeof *symbols);
  if (missing) {
    snprintf(initError, sizeof initError,
             "CUDA is not available: libcuda.so.1 has no %s", missing);
    return wrapper_report_error(WRAPPER_ERROR_UNSUPPORTED, "%s", initError);
  }
  CUresult result = cu.cuInit(0);
  int count = 0;
  if (result == 0)
    result = cu.cuDeviceGetCount(&count);
  if (result != 0) {
    const char *name = NULL;
    if (cu.cuGetErrorName(result, &name) != 0 || !name || !*name)
      name = "no error name";
    snprintf(initError, sizeof initError,
             "CUDA is not available: the driver fails with error %d (%s)",
             (int)result, name);
    return wrapper_report_error(WRAPPER_ERROR_UNSUPPORTED, "%s", initError);
  }
  if (device < 0 || device >= count) {
    snprintf(initError, sizeof initError,
             "CUDA is not available: no device %d (%d devices)", (int)device,
             count);
    return wrapper_report_error(WRAPPER_ERROR_UNSUPPORTED, "%s", initError);
  }
  CUdevice handle;
  CU_CHECK(cu.cuDeviceGet(&handle, device), "cuDeviceGet");
  CU_CHECK(cu.cuDevicePrimaryCtxRetain(&context, handle),
           "cuDevicePrimaryCtxRetain");
  CU_CHECK(cu.cuCtxSetCurrent(context), "cuCtxSetCurrent");
  CU_CHECK(cu.cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING),
           "cuStreamCreate");
  boundDevice = device;
  threadBound = 1;
  initialized = 1;
  return WRAPPER_OK;
}

/* Makes the context current on the calling thread, once per thread. */
static wrapper_status bindThread(void) {
  if (threadBound)
    return WRAPPER_OK;
  CU_CHECK(cu.cuCtxSetCurrent(context), "cuCtxSetCurrent");
  threadBound = 1;
  return WRAPPER_OK;
}

static int32_t defaultDevice(void) {
  const char *env = getenv("WRAPPER_CUDA_DEVICE");
  return env ? (int32_t)atoi(env) : 0;
}

wrapper_status wrapper_cuda_init(int32_t device) {
  pthread_mutex_lock(&lock);
  wrapper_status status = initLocked(device);
  pthread_mutex_unlock(&lock);
  return status;
}

/* Initializes with the default device when needed, and makes its context
 * current on the calling thread; the lock is held. */
static wrapper_status ready(void) {
  return initialized == 1 ? bindThread() : initLocked(defaultDevice());
}

/* The stream this thread's work goes to. */
static CUstream currentStream(void) {
  return threadHasStream ? threadStream : stream;
}

/* ready() for callers that do not hold the lock. */
static wrapper_status readyUnlocked(void) {
  pthread_mutex_lock(&lock);
  wrapper_status status = ready();
  pthread_mutex_unlock(&lock);
  return status;
}

int32_t wrapper_cuda_available(void) {
  // Bound already: to whichever device that was (a caller may have chosen
  // one with wrapper_cuda_init); else to the default one.
  return readyUnlocked() == WRAPPER_OK;
}

wrapper_status wrapper_cuda_device_info(char *name, size_t name_size,
                                        int32_t *capability) {
  pthread_mutex_lock(&lock);
  wrapper_status status = ready();
  if (status == WRAPPER_OK) {
    CUdevice device;
    int major = 0, minor = 0;
    CUresult result = cu.cuDeviceGet(&device, boundDevice);
    if (result == 0 && name && name_size)
      result = cu.cuDeviceGetName(name, (int)name_size, device);
    if (result == 0)
      result = cu.cuDeviceGetAttribute(
          &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device);
    if (result == 0)
      result = cu.cuDeviceGetAttribute(
          &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device);
    if (result != 0)
      status = driverError(result, "cuDeviceGetAttribute");
    else if (capability)
      *capability = major * 10 + minor;
  }
  pthread_mutex_unlock(&lock);
  return status;
}

/*===------------------------------------------------------------------===*
 * The caching allocator
 *===------------------------------------------------------------------===*/

/* The size class of a request: 512-byte steps below 1 MiB; above, four
 * classes per power of two (1, 1.25, 1.5, 1.75 MiB, 2, 2.5, ... MiB), so
 * that a block holds at most 25% more than asked for (2 MiB steps held up
 * to twice a 1 MiB activation), with few enough classes for the cache to
 * hit. */
static size_t roundSize(size_t bytes) {
  const size_t small = 512;
  if (bytes < ((size_t)1 << 20))
    return bytes == 0 ? small : (bytes + small - 1) / small * small;
  size_t power = (size_t)1 << 20;
  while (power <= bytes / 2)
    power *= 2;
  size_t step = power / 4;
  return (bytes + step - 1) / step * step;
}

/* A 64-bit finalizer (MurmurHash3's): addresses and sizes are multiples of
 * 512, so their low bits alone would collide. */
static size_t mix(uint64_t key) {
  key ^= key >> 33;
  key *= 0xff51afd7ed558ccdULL;
  key ^= key >> 33;
  key *= 0xc4ceb9fe1a85ec53ULL;
  key ^= key >> 33;
  return (size_t)key;
}

/* The address table's slot of `ptr`: the one holding its block, else the
 * empty one where it would go. The tables exist (slotCount > 0). */
static size_t *addressSlot(CUdeviceptr ptr) {
  size_t mask = slotCount - 1;
  for (size_t s = mix(ptr) & mask;; s = (s + 1) & mask)
    if (!addressSlots[s] || blocks[addressSlots[s] - 1].ptr == ptr)
      return &addressSlots[s];
}

/* The free list of `size` on `stream`, made (empty) when there is none. */
static FreeList *freeListOf(size_t size, CUstream stream) {
  size_t mask = slotCount - 1;
  for (size_t s = mix(size ^ mix((uintptr_t)stream)) & mask;;
       s = (s + 1) & mask) {
    FreeList *list = &freeLists[s];
    if (list->size == size && list->stream == stream)
      return list;
    if (!list->size) {
      list->size = size;
      list->stream = stream;
      ++listCount;
      return list;
    }
  }
}

static void pushFree(size_t index) {
  FreeList *list = freeListOf(blocks[index].size, blocks[index].stream);
  blocks[index].nextFree = list->head;
  list->head = index + 1;
}

/* Rebuilds the tables from `blocks` for at least `wanted` blocks and lists;
 * 0 when out of host memory (the old tables are kept). */
static int rebuildIndex(size_t wanted) {
  size_t count = 64;
  while (count < 2 * wanted)
    count *= 2;
  size_t *slots = calloc(count, sizeof *slots);
  FreeList *lists = calloc(count, sizeof *lists);
  if (!slots || !lists) {
    free(slots);
    free(lists);
    return 0;
  }
  free(addressSlots);
  free(freeLists);
  addressSlots = slots;
  freeLists = lists;
  slotCount = count;
  listCount = 0;
  /* Backwards, so that each list hands out its lowest block first. */
  for (size_t i = blockCount; i-- > 0;) {
    *addressSlot(blocks[i].ptr) = i + 1;
    if (!blocks[i].inUse)
      pushFree(i);
  }
  return 1;
}

/* The index of the block at `ptr`, or blockCount when there is none. */
static size_t findBlock(CUdeviceptr ptr) {
  if (!slotCount) /* the tables could not be rebuilt after a compaction */
    for (size_t i = 0; i < blockCount; ++i)
      if (blocks[i].ptr == ptr)
        return i;
  size_t index = slotCount ? *addressSlot(ptr) : 0;
  return index ? index - 1 : blockCount;
}

/* Marks the block `index` free and gives it back to its list. */
static void releaseBlock(size_t index) {
  blocks[index].inUse = 0;
  blocks[index].owner = NULL;
  blocks[index].donated = 0;
  stats.bytes_in_use -= blocks[index].size;
  if (slotCount)
    pushFree(index);
}

wrapper_status wrapper_cuda_alloc(size_t bytes, void **out) {
  if (!out)
    return wrapper_report_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                                "wrapper_cuda_alloc: NULL result pointer");
  *out = NULL;
  size_t size = roundSize(bytes);
  pthread_mutex_lock(&lock);
  wrapper_status status = ready();
  if (status == WRAPPER_OK && capturePool &&
      (*out = wrapper_cuda_pool_take(capturePool, size))) {
    ++stats.allocations;
    pthread_mutex_unlock(&lock);
    return WRAPPER_OK;
  }
  /* Room for one more block and one more list. */
  if (status == WRAPPER_OK &&
      (2 * (blockCount + 1) > slotCount || 2 * (listCount + 1) > slotCount) &&
      !rebuildIndex(blockCount + listCount + 1))
    status = wrapper_report_error(WRAPPER_ERROR_OUT_OF_MEMORY,
                                  "wrapper_cuda_alloc: no host memory");
  if (status == WRAPPER_OK) {
    ++stats.allocations;
    CUstream pool = currentStream();
    Block *found = NULL;
    FreeList *list = freeListOf(size, pool);
    if (list->head) {
      found = &blocks[list->head - 1];
      list->head = found->nextFree;
      ++stats.cache_hits;
    }
    if (!found) {
      CUdeviceptr ptr = 0;
      CUresult result = CU_WORK(cu.cuMemAlloc(&ptr, size));
      if (result != 0) {
        status = driverError(result, "cuMemAlloc");
      } else if (!reserve((void **)&blocks, &blockCapacity, blockCount,
                          sizeof(Block))) {
        cu.cuMemFree(ptr);
        status = wrapper_report_error(WRAPPER_ERROR_OUT_OF_MEMORY,
                                      "wrapper_cuda_alloc: no host memory");
      } else {
        found = &blocks[blockCount];
        found->ptr = ptr;
        found->size = size;
        found->stream = pool;
        found->nextFree = 0;
        found->owner = NULL;
        found->donated = 0;
        *addressSlot(ptr) = ++blockCount;
        stats.bytes_reserved += size;
      }
    }
    if (found) {
      found->inUse = 1;
      stats.bytes_in_use += size;
      if (stats.bytes_in_use > peakBytesInUse)
        peakBytesInUse = stats.bytes_in_use;
      *out = (void *)(uintptr_t)found->ptr;
      if (capturePool && !wrapper_cuda_pool_add(capturePool, *out, size)) {
        releaseBlock((size_t)(found - blocks));
        *out = NULL;
        status = wrapper_report_error(WRAPPER_ERROR_OUT_OF_MEMORY,
                                      "wrapper_cuda_alloc: no host memory");
      }
    }
  }
  pthread_mutex_unlock(&lock);
  return status;
}

wrapper_status wrapper_cuda_free(void *ptr) {
  if (!ptr)
    return WRAPPER_OK;
  wrapper_status status = WRAPPER_OK;
  pthread_mutex_lock(&lock);
  /* A block of the capture's pool goes back to the pool. */
  if (capturePool && wrapper_cuda_pool_give(capturePool, ptr)) {
    pthread_mutex_unlock(&lock);
    return WRAPPER_OK;
  }
  size_t i = findBlock((CUdeviceptr)(uintptr_t)ptr);
  if (i == blockCount || !blocks[i].inUse) {
    status = wrapper_report_error(
        WRAPPER_ERROR_INVALID_ARGUMENT,
        "wrapper_cuda_free: %p is not a live block of wrapper_cuda_alloc", ptr);
  } else if (capturing) {
    /* Replays of the graph being captured still use the block. */
    if (reserve((void **)&held, &heldCapacity, heldCount, sizeof *held))
      held[heldCount++] = blocks[i].ptr;
    else
      status = wrapper_report_error(WRAPPER_ERROR_OUT_OF_MEMORY,
                                    "wrapper_cuda_free: no host memory");
  } else {
    releaseBlock(i);
  }
  pthread_mutex_unlock(&lock);
  return status;
}

/* The live block at `ptr`, or blockCount; the lock is held. */
static size_t findLiveBlock(const void *ptr) {
  size_t i = findBlock((CUdeviceptr)(uintptr_t)ptr);
  return i < blockCount && blocks[i].inUse ? i : blockCount;
}

int wrapper_cuda_set_owner(void *block, const void *owner) {
  pthread_mutex_lock(&lock);
  size_t i = findLiveBlock(block);
  int recorded = i < blockCount && !blocks[i].owner;
  if (recorded)
    blocks[i].owner = owner;
  pthread_mutex_unlock(&lock);
  return recorded;
}

void wrapper_cuda_free_owned(void *block, const void *owner) {
  pthread_mutex_lock(&lock);
  size_t i = findLiveBlock(block);
  /* Not the owner's any more: freed at its last use in a call. */
  int owned = i < blockCount && blocks[i].owner == owner;
  if (owned)
    blocks[i].owner = NULL;
  pthread_mutex_unlock(&lock);
  if (owned)
    (void)wrapper_cuda_free(block);
}

wrapper_status wrapper_cuda_donate(void *const *ptrs, int32_t count,
                                   int32_t donate, int32_t *donated) {
  if (count < 0 || (count > 0 && !ptrs))
    return wrapper_report_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                                "wrapper_cuda_donate: NULL pointers or "
                                "count %d",
                                (int)count);
  int32_t marked = 0;
  pthread_mutex_lock(&lock);
  for (int32_t k = 0; k < count; ++k) {
    size_t i = findLiveBlock(ptrs[k]);
    if (i == blockCount || !blocks[i].owner)
      continue;
    blocks[i].donated = donate != 0;
    ++marked;
  }
  pthread_mutex_unlock(&lock);
  if (donated)
    *donated = marked;
  return WRAPPER_OK;
}

void wrapperCudaReleaseArgument(uintptr_t ptr) {
  pthread_mutex_lock(&lock);
  size_t i = findLiveBlock((const void *)ptr);
  /* Only on the stream it belongs to (its next user there runs after this
   * call's readers), and not while a graph is captured (its replays would
   * read it). */
  if (i < blockCount && blocks[i].donated && blocks[i].owner &&
      blocks[i].stream == currentStream() && !capturing && !capturePool) {
    ++releasedEarly;
    bytesReleasedEarly += blocks[i].size;
    releaseBlock(i);
  }
  pthread_mutex_unlock(&lock);
}

void wrapper_cuda_release_stats(uint64_t *released, uint64_t *bytes) {
  pthread_mutex_lock(&lock);
  if (released)
    *released = releasedEarly;
  if (bytes)
    *bytes = bytesReleasedEarly;
  pthread_mutex_unlock(&lock);
}

wrapper_status wrapper_cuda_empty_cache(void) {
  wrapper_status status = WRAPPER_OK;
  pthread_mutex_lock(&lock);
  size_t kept = 0;
  for (size_t i = 0; i < blockCount; ++i) {
    if (blocks[i].inUse) {
      blocks[kept++] = blocks[i];
      continue;
    }
    CUresult result = cu.cuMemFree(blocks[i].ptr);
    if (result != 0 && status == WRAPPER_OK)
      status = driverError(result, "cuMemFree");
    stats.bytes_reserved -= blocks[i].size;
  }
  blockCount = kept;
  /* Indices moved: the tables again (or none: findBlock scans). */
  if (!rebuildIndex(blockCount + 1)) {
    free(addressSlots);
    free(freeLists);
    addressSlots = NULL;
    freeLists = NULL;
    slotCount = listCount = 0;
  }
  pthread_mutex_unlock(&lock);
  return status;
}

void wrapper_cuda_get_stats(wrapper_cuda_stats *out) {
  pthread_mutex_lock(&lock);
  if (out)
    *out = stats;
  pthread_mutex_unlock(&lock);
}

uint64_t wrapper_cuda_peak_bytes_in_use(void) {
  pthread_mutex_lock(&lock);
  uint64_t peak = peakBytesInUse;
  pthread_mutex_unlock(&lock);
  return peak;
}

void wrapper_cuda_reset_peak_bytes_in_use(void) {
  pthread_mutex_lock(&lock);
  peakBytesInUse = stats.bytes_in_use;
  pthread_mutex_unlock(&lock);
}

/*===------------------------------------------------------------------===*
 * Copies and synchronization
 *===------------------------------------------------------------------===*/

/* Counts a copy between host and device memory (wrapper_cuda_stats). */
static void countCopy(int toDevice, size_t bytes) {
  if (toDevice) {
    __atomic_add_fetch(&stats.copies_to_device, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&stats.bytes_to_device, bytes, __ATOMIC_RELAXED);
  } else {
    __atomic_add_fetch(&stats.copies_to_host, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&stats.bytes_to_host, bytes, __ATOMIC_RELAXED);
  }
}

/* Whether `ptr` is host memory (the driver does not know it as device or
 * managed memory). */
static int onHost(const void *ptr) {
  unsigned type = 0;
  CUresult result = cu.cuPointerGetAttribute(
      &type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)(uintptr_t)ptr);
  return result != 0 || type != CU_MEMORYTYPE_DEVICE;
}

wrapper_status wrapper_cuda_copy_to_device(void *device, const void *host,
                                           size_t bytes) {
  wrapper_status status = readyUnlocked();
  if (status != WRAPPER_OK || bytes == 0)
    return status;
  CU_CHECK(CU_WORK(cu.cuMemcpyHtoDAsync((CUdeviceptr)(uintptr_t)device, host,
                                        bytes, currentStream())),
           "cuMemcpyHtoDAsync");
  countCopy(1, bytes);
  return WRAPPER_OK;
}

wrapper_status wrapper_cuda_copy_to_host(void *host, const void *device,
                                         size_t bytes) {
  wrapper_status status = readyUnlocked();
  if (status != WRAPPER_OK)
    return status;
  if (__atomic_load_n(&capturing, __ATOMIC_RELAXED))
    return wrapper_report_error(
        WRAPPER_ERROR_UNSUPPORTED,
        "wrapper_cuda_copy_to_host: the stream is captured into a CUDA graph "
        "(between wrapper_cuda_graph_begin and _end); copies to the host "
        "wait for the GPU");
  if (bytes)
    CU_CHECK(CU_WORK(cu.cuMemcpyDtoHAsync(host, (CUdeviceptr)(uintptr_t)device,
                                          bytes, currentStream())),
             "cuMemcpyDtoHAsync");
  countCopy(0, bytes);
  return wrapper_cuda_synchronize();
}

wrapper_status wrapper_cuda_copy_device(void *dst, const void *src,
                                        size_t bytes) {
  wrapper_status status = readyUnlocked();
  if (status != WRAPPER_OK || bytes == 0)
    return status;
  CU_CHECK(CU_WORK(cu.cuMemcpyDtoDAsync((CUdeviceptr)(uintptr_t)dst,
                                        (CUdeviceptr)(uintptr_t)src, bytes,
                                        currentStream())),
           "cuMemcpyDtoDAsync");
  return WRAPPER_OK;
}

/* Whether the runtime may wait for the GPU now (initialized, not
 * capturing); with `reportSticky`, also reports (and clears) this thread's
 * pending error. */
static wrapper_status readyToWait(int reportSticky) {
  pthread_mutex_lock(&lock);
  wrapper_status status = ready();
  if (status == WRAPPER_OK && capturing)
    status = wrapper_report_error(
        WRAPPER_ERROR_UNSUPPORTED,
        "waiting for the GPU while its stream is captured into a CUDA graph "
        "(between wrapper_cuda_graph_begin and _end)");
  if (status == WRAPPER_OK && reportSticky && stickyStatus != WRAPPER_OK) {
    status = wrapper_report_error(stickyStatus, "%s", stickyMessage);
    stickyStatus = WRAPPER_OK;
  }
  pthread_mutex_unlock(&lock);
  return status;
}

wrapper_status wrapper_cuda_synchronize(void) {
  wrapper_status status = readyToWait(/*reportSticky=*/1);
  if (status != WRAPPER_OK)
    return status;
  CU_CHECK(cu.cuStreamSynchronize(currentStream()), "cuStreamSynchronize");
  return WRAPPER_OK;
}

wrapper_status wrapper_cuda_device_synchronize(void) {
  wrapper_status status = readyToWait(/*reportSticky=*/0);
  if (status != WRAPPER_OK)
    return status;
  CU_CHECK(cu.cuCtxSynchronize(), "cuCtxSynchronize");
  return WRAPPER_OK;
}

wrapper_status wrapper_cuda_take_error(void) {
  if (stickyStatus == WRAPPER_OK)
    return WRAPPER_OK;
  wrapper_status status =
      wrapper_report_error(stickyStatus, "%s", stickyMessage);
  stickyStatus = WRAPPER_OK;
  return status;
}

void *wrapper_cuda_stream(void) {
  wrapper_status status = readyUnlocked();
  return status == WRAPPER_OK ? (void *)currentStream() : NULL;
}

wrapper_status wrapper_cuda_set_stream(void *next, void **previous) {
  wrapper_status status = readyUnlocked();
  if (status != WRAPPER_OK)
    return status;
  if (previous)
    *previous = (void *)currentStream();
  threadHasStream = 1;
  threadStream = (CUstream)next;
  return WRAPPER_OK;
}

int32_t wrapper_cuda_device(void) {
  return readyUnlocked() == WRAPPER_OK ? boundDevice : -1;
}

/*===------------------------------------------------------------------===*
 * Modules, functions, launches
 *===------------------------------------------------------------------===*/

wrapper_status wrapper_cuda_module(const void *image, void **out) {
  if (!image || !out)
    return wrapper_report_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                                "wrapper_cuda_module: NULL image or result");
  pthread_mutex_lock(&lock);
  wrapper_status status = ready();
  *out = NULL;
  for (size_t i = 0; status == WRAPPER_OK && i < moduleCount; ++i)
    if (modules[i].image == image)
      *out = modules[i].module;
  if (status == WRAPPER_OK && !*out) {
    CUmodule module;
    /* The PTX JIT's error log goes into the message. */
    char log[1024] = "";
    int options[] = {CU_JIT_ERROR_LOG_BUFFER,
                     CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {log, (void *)(uintptr_t)sizeof log};
    CUresult result = cu.cuModuleLoadDataEx(&module, image, 2, options, values);
    if (result != 0) {
      log[sizeof log - 1] = 0;
      status = driverError(result, "cuModuleLoadData");
      if (log[0]) {
        char message[1536];
        snprintf(message, sizeof message, "%s; the PTX JIT says: %s",
                 wrapper_last_error(), log);
        status = wrapper_report_error(status, "%s", message);
      }
    }
    else if (!reserve((void **)&modules, &moduleCapacity, moduleCount,
                      sizeof(Module)))
      status = wrapper_report_error(WRAPPER_ERROR_OUT_OF_MEMORY,
                                    "wrapper_cuda_module: no host memory");
    else {
      modules[moduleCount].image = image;
      modules[moduleCount++].module = module;
      ++stats.modules_loaded;
      *out = module;
    }
  }
  pthread_mutex_unlock(&lock);
  return status;
}

/* The slot of (module, key) in functionSlots: the one holding it, else the
 * empty one where it would go. functionSlotCount > 0. */
static FunctionSlot *functionSlot(CUmodule module, const char *key) {
  size_t mask = functionSlotCount - 1;
  for (size_t s = mix((uintptr_t)key ^ mix((uintptr_t)module)) & mask;;
       s = (s + 1) & mask) {
    FunctionSlot *slot = &functionSlots[s];
    if (!slot->module || (slot->module == module && slot->key == key))
      return slot;
  }
}

/* Remembers that `key` (a name) of `module` is functions[index]; a cache
 * only, so running out of host memory just leaves it out. */
static void rememberFunction(CUmodule module, const char *key, size_t index) {
  if (2 * (functionSlotsUsed + 1) > functionSlotCount) {
    size_t count = functionSlotCount ? 2 * functionSlotCount : 64;
    FunctionSlot *slots = calloc(count, sizeof *slots);
    if (!slots)
      return;
    FunctionSlot *old = functionSlots;
    size_t oldCount = functionSlotCount;
    functionSlots = slots;
    functionSlotCount = count;
    for (size_t s = 0; s < oldCount; ++s)
      if (old[s].module)
        *functionSlot(old[s].module, old[s].key) = old[s];
    free(old);
  }
  FunctionSlot *slot = functionSlot(module, key);
  if (!slot->module)
    ++functionSlotsUsed;
  slot->module = module;
  slot->key = key;
  slot->index = index;
}

wrapper_status wrapper_cuda_function(void *module, const char *name,
                                     void **out) {
  if (!module || !name || !out)
    return wrapper_report_error(
        WRAPPER_ERROR_INVALID_ARGUMENT,
        "wrapper_cuda_function: NULL module, name or result");
  pthread_mutex_lock(&lock);
  wrapper_status status = WRAPPER_OK;
  *out = NULL;
  /* Compiled code asks before every launch, with the call site's constant
   * name: found by that pointer first (the name compared, in case a
   * library unloaded left its address to another). */
  if (functionSlotCount) {
    FunctionSlot *slot = functionSlot((CUmodule)module, name);
    if (slot->module && strcmp(functions[slot->index].name, name) == 0) {
      *out = functions[slot->index].function;
      pthread_mutex_unlock(&lock);
      return WRAPPER_OK;
    }
  }
  size_t index = functionCount;
  for (size_t i = 0; i < functionCount && index == functionCount; ++i)
    if (functions[i].module == (CUmodule)module &&
        strcmp(functions[i].name, name) == 0)
      index = i;
  if (index == functionCount) {
    CUfunction function;
    CUresult result = cu.cuModuleGetFunction(&function, (CUmodule)module, name);
    char *copy = result == 0 ? strdup(name) : NULL;
    if (result != 0)
      status = driverError(result, name);
    else if (!copy || !reserve((void **)&functions, &functionCapacity,
                               functionCount, sizeof(Function))) {
      free(copy);
      status = wrapper_report_error(WRAPPER_ERROR_OUT_OF_MEMORY,
                                    "wrapper_cuda_function: no host memory");
    } else {
      functions[functionCount].module = (CUmodule)module;
      functions[functionCount].name = copy;
      functions[functionCount++].function = function;
      ++stats.function_lookups;
    }
  }
  if (status == WRAPPER_OK) {
    *out = functions[index].function;
    rememberFunction((CUmodule)module, name, index);
  }
  pthread_mutex_unlock(&lock);
  return status;
}

wrapper_status wrapper_cuda_launch(void *function, const uint32_t grid[3],
                                   const uint32_t block[3],
                                   uint32_t shared_bytes, void **params) {
  if (!function || !grid || !block)
    return wrapper_report_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                                "wrapper_cuda_launch: NULL function or size");
  if (!grid[0] || !grid[1] || !grid[2])
    return WRAPPER_OK; /* an empty grid launches nothing */
  if (!threadBound) {
    wrapper_status status = readyUnlocked();
    if (status != WRAPPER_OK)
      return status;
  }
  __atomic_add_fetch(&stats.launches, 1, __ATOMIC_RELAXED);
  CU_CHECK(
      CU_WORK(cu.cuLaunchKernel((CUfunction)function, grid[0], grid[1], grid[2],
                                block[0], block[1], block[2], shared_bytes,
                                currentStream(), params, NULL)),
      "cuLaunchKernel");
  return WRAPPER_OK;
}

/*===------------------------------------------------------------------===*
 * MLIR's gpu-to-llvm entry points (mgpu*) on this state
 *===------------------------------------------------------------------===*/

void *wrapperCudaConstant(void **slot, uintptr_t host, int64_t bytes) {
  if (!slot || !host || bytes < 0) {
    wrapper_cuda_sticky(wrapper_report_error(
        WRAPPER_ERROR_INVALID_ARGUMENT,
        "wrapperCudaConstant: slot %p, host %p, %lld bytes", (void *)slot,
        (void *)host, (long long)bytes));
    return NULL;
  }
  /* The slot is read without the lock after it was filled: compiled code
   * calls this once per constant per call. */
  if (__atomic_load_n(&slot[0], __ATOMIC_ACQUIRE) == (void *)host)
    return slot[1];
  if (__atomic_load_n(&capturing, __ATOMIC_RELAXED)) {
    wrapper_cuda_sticky(wrapper_report_error(
        WRAPPER_ERROR_UNSUPPORTED,
        "wrapperCudaConstant: the first use of a constant is inside a CUDA "
        "graph capture; run the program once before capturing it"));
    return NULL;
  }
  void *device = NULL;
  wrapper_status status = wrapper_cuda_alloc((size_t)bytes, &device);
  if (status == WRAPPER_OK)
    status = wrapper_cuda_copy_to_device(device, (const void *)host,
                                         (size_t)bytes);
  if (status != WRAPPER_OK) {
    wrapper_cuda_free(device);
    wrapper_cuda_sticky(status);
    return NULL;
  }
  pthread_mutex_lock(&lock);
  ++stats.constant_uploads;
  pthread_mutex_unlock(&lock);
  /* A copy for an earlier host pointer stays allocated: a kernel queued
   * before may still read it. */
  slot[1] = device;
  __atomic_store_n(&slot[0], (void *)host, __ATOMIC_RELEASE);
  return device;
}

/*===------------------------------------------------------------------===*
 * CUDA graphs
 *===------------------------------------------------------------------===*/

struct wrapper_cuda_graph {
  CUgraphExec exec;
  CUdeviceptr *held; /* blocks freed during the capture */
  size_t heldCount;
};

wrapper_status wrapper_cuda_graph_begin(void) {
  return wrapper_cuda_graph_begin_in(NULL);
}

wrapper_status wrapper_cuda_graph_begin_in(wrapper_cuda_graph_pool *pool) {
  pthread_mutex_lock(&lock);
  wrapper_status status = ready();
  if (status == WRAPPER_OK && capturing)
    status = wrapper_report_error(
        WRAPPER_ERROR_INVALID_ARGUMENT,
        "wrapper_cuda_graph_begin: a capture is already under way");
  if (status == WRAPPER_OK && stickyStatus != WRAPPER_OK) {
    status = wrapper_report_error(stickyStatus, "%s", stickyMessage);
    stickyStatus = WRAPPER_OK;
  }
  if (status == WRAPPER_OK) {
    /* Relaxed: the caching allocator may still call cuMemAlloc. */
    CUresult result = cu.cuStreamBeginCapture(currentStream(),
                                              CU_STREAM_CAPTURE_MODE_RELAXED);
    if (result != 0)
      status = driverError(result, "cuStreamBeginCapture");
    else
      capturing = 1;
    heldCount = 0;
    capturePool = capturing ? pool : NULL;
  }
  pthread_mutex_unlock(&lock);
  return status;
}

/* Gives the blocks in `ptrs` back to the cache. Called with the lock
 * held. */
static void releaseHeld(const CUdeviceptr *ptrs, size_t count) {
  for (size_t h = 0; h < count; ++h) {
    size_t i = findBlock(ptrs[h]);
    if (i < blockCount && blocks[i].inUse)
      releaseBlock(i);
  }
}

wrapper_status wrapper_cuda_graph_end(wrapper_cuda_graph **out) {
  if (!out)
    return wrapper_report_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                                "wrapper_cuda_graph_end: NULL result pointer");
  *out = NULL;
  pthread_mutex_lock(&lock);
  if (!capturing) {
    pthread_mutex_unlock(&lock);
    return wrapper_report_error(
        WRAPPER_ERROR_INVALID_ARGUMENT,
        "wrapper_cuda_graph_end: no capture is under way "
        "(wrapper_cuda_graph_begin first)");
  }
  capturing = 0;
  if (capturePool)
    wrapper_cuda_pool_release_all(capturePool);
  capturePool = NULL;
  CUgraph graph = NULL;
  CUgraphExec exec = NULL;
  wrapper_status status = WRAPPER_OK;
  CUresult result = cu.cuStreamEndCapture(currentStream(), &graph);
  if (stickyStatus != WRAPPER_OK) {
    /* A call inside the capture failed (an mgpu* call, a product). */
    status = wrapper_report_error(stickyStatus, "%s", stickyMessage);
    stickyStatus = WRAPPER_OK;
  } else if (result != 0) {
    status = driverError(result, "cuStreamEndCapture");
  } else {
    result = cu.cuGraphInstantiateWithFlags(&exec, graph, 0);
    if (result != 0)
      status = driverError(result, "cuGraphInstantiateWithFlags");
  }
  if (graph)
    cu.cuGraphDestroy(graph);
  wrapper_cuda_graph *made = NULL;
  if (status == WRAPPER_OK) {
    made = calloc(1, sizeof *made);
    if (!made) {
      cu.cuGraphExecDestroy(exec);
      status = wrapper_report_error(WRAPPER_ERROR_OUT_OF_MEMORY,
                                    "wrapper_cuda_graph_end: no host memory");
    }
  }
  if (made) {
    /* The graph takes the blocks freed during the capture. */
    made->exec = exec;
    made->held = held;
    made->heldCount = heldCount;
    held = NULL;
    heldCapacity = 0;
  } else {
    /* Without a graph they are the cache's again. */
    releaseHeld(held, heldCount);
  }
  heldCount = 0;
  pthread_mutex_unlock(&lock);
  *out = made;
  return status;
}

wrapper_status wrapper_cuda_graph_launch(wrapper_cuda_graph *graph) {
  if (!graph)
    return wrapper_report_error(WRAPPER_ERROR_INVALID_ARGUMENT,
                                "wrapper_cuda_graph_launch: NULL graph");
  wrapper_status status = readyUnlocked();
  if (status != WRAPPER_OK)
    return status;
  CU_CHECK(cu.cuGraphLaunch(graph->exec, currentStream()), "cuGraphLaunch");
  __atomic_add_fetch(&stats.graph_launches, 1, __ATOMIC_RELAXED);
  return WRAPPER_OK;
}

wrapper_status wrapper_cuda_graph_destroy(wrapper_cuda_graph *graph) {
  if (!graph)
    return WRAPPER_OK;
  /* Replays still queued may use the graph's blocks. */
  wrapper_status status = wrapper_cuda_synchronize();
  pthread_mutex_lock(&lock);
  CUresult result = cu.cuGraphExecDestroy(graph->exec);
  if (result != 0 && status == WRAPPER_OK)
    status = driverError(result, "cuGraphExecDestroy");
  releaseHeld(graph->held, graph->heldCount);
  pthread_mutex_unlock(&lock);
  free(graph->held);
  free(graph);
  return status;
}

int wrapper_cuda_failed(void) { return stickyStatus != WRAPPER_OK; }

void wrapper_cuda_count_gemm(void) {
  __atomic_add_fetch(&stats.gemms, 1, __ATOMIC_RELAXED);
}

/* Records the first failure of an mgpu* call (which cannot return one) for
 * wrapper_cuda_synchronize, and says it on stderr. */
void wrapper_cuda_sticky(wrapper_status status) {
  if (status == WRAPPER_OK)
    return;
  pthread_mutex_lock(&lock);
  if (stickyStatus == WRAPPER_OK) {
    stickyStatus = status;
    snprintf(stickyMessage, sizeof stickyMessage, "%s", wrapper_last_error());
    fprintf(stderr, "wrapper cuda runtime: %s\n", stickyMessage);
  }
  pthread_mutex_unlock(&lock);
}

void *mgpuModuleLoad(void *data, size_t size) {
  (void)size;
  void *module = NULL;
  wrapper_cuda_sticky(wrapper_cuda_module(data, &module));
  return module;
}

void *mgpuModuleLoadJIT(void *data, int optLevel) {
  (void)optLevel;
  return mgpuModuleLoad(data, 0);
}

void mgpuModuleUnload(void *module) {
  (void)module; /* modules live as long as the process (cached) */
}

void *mgpuModuleGetFunction(void *module, const char *name) {
  void *function = NULL;
  wrapper_cuda_sticky(wrapper_cuda_function(module, name, &function));
  return function;
}

void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t smem, void *streamArg,
                      void **params, void **extra, size_t paramsCount) {
  (void)streamArg;
  (void)extra;
  (void)paramsCount;
  if (wrapper_cuda_failed())
    return;
  uint32_t grid[3] = {(uint32_t)gridX, (uint32_t)gridY, (uint32_t)gridZ};
  uint32_t block[3] = {(uint32_t)blockX, (uint32_t)blockY, (uint32_t)blockZ};
  wrapper_cuda_sticky(
      wrapper_cuda_launch(function, grid, block, (uint32_t)smem, params));
}

void *mgpuStreamCreate(void) { return wrapper_cuda_stream(); }

void mgpuStreamDestroy(void *streamArg) { (void)streamArg; }

void mgpuStreamSynchronize(void *streamArg) {
  (void)streamArg;
  wrapper_cuda_sticky(wrapper_cuda_synchronize());
}

void *mgpuMemAlloc(uint64_t bytes, void *streamArg, int8_t isHostShared) {
  (void)streamArg;
  void *ptr = NULL;
  if (isHostShared) {
    wrapper_cuda_sticky(wrapper_report_error(WRAPPER_ERROR_UNSUPPORTED,
                                "mgpuMemAlloc: host-shared memory"));
    return NULL;
  }
  if (!wrapper_cuda_failed())
    wrapper_cuda_sticky(wrapper_cuda_alloc((size_t)bytes, &ptr));
  return ptr;
}

void mgpuMemFree(void *ptr, void *streamArg) {
  (void)streamArg;
  wrapper_cuda_sticky(wrapper_cuda_free(ptr));
}

/* Either direction (host or device pointers, told apart by unified
 * addressing), as gpu.memcpy means. */
void mgpuMemcpy(void *dst, void *src, size_t bytes, void *streamArg) {
  (void)streamArg;
  if (wrapper_cuda_failed())
    return;
  wrapper_status status = readyUnlocked();
  if (status == WRAPPER_OK && bytes) {
    CUresult result = CU_WORK(cu.cuMemcpyAsync((CUdeviceptr)(uintptr_t)dst,
                                               (CUdeviceptr)(uintptr_t)src,
                                               bytes, currentStream()));
    if (result != 0)
      status = driverError(result, "cuMemcpyAsync");
    else if (onHost(src) != onHost(dst))
      countCopy(onHost(src), bytes);
  }
  wrapper_cuda_sticky(status);
}

void mgpuMemset32(void *dst, unsigned int value, size_t count,
                  void *streamArg) {
  (void)streamArg;
  if (wrapper_cuda_failed())
    return;
  wrapper_status status = readyUnlocked();
  if (status == WRAPPER_OK && count) {
    CUresult result = CU_WORK(cu.cuMemsetD32Async(
        (CUdeviceptr)(uintptr_t)dst, value, count, currentStream()));
    if (result != 0)
      status = driverError(result, "cuMemsetD32Async");
  }
  wrapper_cuda_sticky(status);
}

void mgpuSetDefaultDevice(int32_t device) {
  wrapper_cuda_sticky(wrapper_cuda_init(device));
}
