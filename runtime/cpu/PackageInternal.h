/*===- PackageInternal.h - the package loader's state --------------*- C -*-===*
 *
 * Part of the Wrapper project.
 *
 * What Package.c reads from a package and PackageWeights.c (swappable
 * packages' weights) uses.
 *
 *===----------------------------------------------------------------------===*/

#ifndef WRAPPER_RUNTIME_PACKAGEINTERNAL_H
#define WRAPPER_RUNTIME_PACKAGEINTERNAL_H

#include "Wrapper/Runtime/WrapperPackage.h"

#define MAX_MODELS 8
#define INDEX_NAME "wrapper-package.index"
#define METADATA_NAME "wrapper-package.json"

typedef struct {
  char *name;
  const unsigned char *data;
  uint64_t size;
  uint32_t crc;
} package_entry;

/* A model input the package fills: a parameter or a prepared value. */
typedef struct {
  int32_t index; /* the model's input */
  int prepared;  /* 0: parameter `which`; 1: prepared value `which` */
  int32_t which;
  int64_t packed; /* > 0: passed as B panels this wide ([ceil(N/nr)][K][nr]) */
} package_input;

/* A parameter of a swappable package: where it lies in the params entry. */
typedef struct {
  char *name;
  wrapper_array view; /* data points into the package */
} package_param;

typedef struct {
  char target[24];
  int library; /* entry index */
  int weights; /* entry index, -1 for none */
  int fd;      /* the memfd holding the library once loaded, else -1 */
  char path[64];
  wrapper_model_api api;
  int loaded;
  package_input *inputs; /* the inputs the package fills */
  int num_inputs;
} package_model;

struct wrapper_package {
  const unsigned char *base;
  uint64_t size;
  void *map; /* the file's mapping (wrapper_package_open), unmapped on close */
  char *metadata;
  package_entry *entries;
  int num_entries;
  package_model models[MAX_MODELS];
  int num_models;
  package_param *params;
  int num_params;
};

/* The model of `target` (exact name), or NULL. */
package_model *wrapper_package_find_model_internal(wrapper_package *package,
                                                   const char *target);

#endif /* WRAPPER_RUNTIME_PACKAGEINTERNAL_H */
