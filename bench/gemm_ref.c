// The OpenBLAS reference of bench/run.sh gemm: times cblas_sgemm on
// row-major M x K times K x N (best of REPS runs after a warm-up), then,
// with "epilogue", the same followed by a separate bias + gelu pass (what a
// framework does without a fused epilogue).
//
//   gemm_ref M N K THREADS REPS [epilogue]   prints: ms gflops
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void openblas_set_num_threads(int);

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
  if (argc < 6) {
    fprintf(stderr, "usage: gemm_ref M N K THREADS REPS [epilogue]\n");
    return 2;
  }
  long m = atol(argv[1]), n = atol(argv[2]), k = atol(argv[3]);
  int threads = atoi(argv[4]), reps = atoi(argv[5]);
  int epilogue = argc > 6 && strcmp(argv[6], "epilogue") == 0;
  openblas_set_num_threads(threads);
  float *a = malloc(sizeof(float) * m * k), *b = malloc(sizeof(float) * k * n);
  float *c = malloc(sizeof(float) * m * n), *bias = malloc(sizeof(float) * n);
  for (long i = 0; i < m * k; ++i)
    a[i] = (float)((i * 7919) % 1000) / 1000.0f - 0.5f;
  for (long i = 0; i < k * n; ++i)
    b[i] = (float)((i * 104729) % 1000) / 1000.0f - 0.5f;
  for (long i = 0; i < n; ++i)
    bias[i] = (float)i / n;
  double best = 1e30;
  for (int r = 0; r <= reps; ++r) {
    double start = now_ms();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a,
                k, b, n, 0.0f, c, n);
    if (epilogue) {
#pragma omp parallel for num_threads(threads)
      for (long i = 0; i < m; ++i)
        for (long j = 0; j < n; ++j) {
          float x = c[i * n + j] + bias[j];
          c[i * n + j] = 0.5f * x * (1.0f + erff(x * 0.70710678f));
        }
    }
    double ms = now_ms() - start;
    if (r > 0 && ms < best)
      best = ms;
  }
  printf("%.4f %.2f\n", best, 2.0 * m * n * k / (best * 1e6));
  free(a);
  free(b);
  free(c);
  free(bias);
  return 0;
}
