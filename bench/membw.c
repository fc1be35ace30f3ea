/* Copy bandwidth reference for bench/run.sh: copies a float32 buffer of
 * `elements` elements into another with memcpy, on `threads` threads (each
 * a contiguous slice), and prints the best time of `reps` copies in ms and
 * the bandwidth in GB/s (bytes read + bytes written per second).
 *
 *   membw <elements> <threads> <reps>
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
  float *src, *dst;
  size_t begin, end;
} Slice;

static void *copySlice(void *arg) {
  Slice *s = (Slice *)arg;
  memcpy(s->dst + s->begin, s->src + s->begin,
         (s->end - s->begin) * sizeof(float));
  return NULL;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: membw <elements> <threads> <reps>\n");
    return 2;
  }
  size_t n = strtoull(argv[1], NULL, 10);
  int threads = atoi(argv[2]), reps = atoi(argv[3]);
  if (n == 0 || threads < 1 || threads > 1024 || reps < 1) {
    fprintf(stderr, "membw: bad arguments\n");
    return 2;
  }
  float *src = aligned_alloc(64, (n * sizeof(float) + 63) / 64 * 64);
  float *dst = aligned_alloc(64, (n * sizeof(float) + 63) / 64 * 64);
  if (!src || !dst) {
    fprintf(stderr, "membw: out of memory\n");
    return 1;
  }
  for (size_t i = 0; i < n; ++i) {
    src[i] = (float)i;
    dst[i] = 0;
  }
  pthread_t *ids = malloc(sizeof(pthread_t) * threads);
  Slice *slices = malloc(sizeof(Slice) * threads);
  double best = 1e300;
  for (int r = 0; r < reps + 1; ++r) {
    double t0 = now();
    for (int t = 0; t < threads; ++t) {
      slices[t] = (Slice){src, dst, n * t / threads, n * (t + 1) / threads};
      pthread_create(&ids[t], NULL, copySlice, &slices[t]);
    }
    for (int t = 0; t < threads; ++t)
      pthread_join(ids[t], NULL);
    double ms = now() - t0;
    if (r > 0 && ms < best) /* the first copy touches the pages */
      best = ms;
  }
  printf("%.4f %.3f\n", best, 2.0 * n * sizeof(float) / (best * 1e6));
  free(ids);
  free(slices);
  free(src);
  free(dst);
  return dst == src;
}
