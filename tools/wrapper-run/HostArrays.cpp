//===- HostArrays.cpp - wrapper-run's arrays, files and call frames -------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#include "HostArrays.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <random>

#include "Wrapper/Runtime/WrapperCuda.h"

#include "Wrapper/Runtime/WrapperRuntime.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/Format.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <set>

using namespace mlir;
using namespace mlir::wrapper;

std::string mlir::wrapper::formatShape(ArrayRef<int64_t> shape) {
  std::string text = "[";
  llvm::interleave(
      shape, [&](int64_t s) { text += std::to_string(s); },
      [&] { text += ", "; });
  return text + "]";
}

std::string mlir::wrapper::typeToString(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

/// The runtime dtype of an element type, if it has one.
static std::optional<wrapper_dtype> dtypeOf(Type type) {
  if (type.isF32())
    return WRAPPER_DTYPE_F32;
  if (type.isF64())
    return WRAPPER_DTYPE_F64;
  if (type.isF16())
    return WRAPPER_DTYPE_F16;
  if (type.isBF16())
    return WRAPPER_DTYPE_BF16;
  if (isa<Float8E4M3FNType>(type))
    return WRAPPER_DTYPE_F8E4M3FN;
  if (type.isInteger(1))
    return WRAPPER_DTYPE_BOOL;
  if (type.isInteger(8))
    return WRAPPER_DTYPE_I8;
  if (type.isInteger(16))
    return WRAPPER_DTYPE_I16;
  if (type.isInteger(32))
    return WRAPPER_DTYPE_I32;
  if (type.isInteger(64) || type.isIndex())
    return WRAPPER_DTYPE_I64;
  return std::nullopt;
}

static size_t elementBytes(Type type) {
  std::optional<wrapper_dtype> dtype = dtypeOf(type);
  return dtype ? wrapper_dtype_size(*dtype) : 0;
}

uint64_t mlir::wrapper::hostBytes(const HostTensor &tensor) {
  return static_cast<uint64_t>(tensor.numel()) *
         elementBytes(tensor.elementType);
}

/// Reads element `i` of raw storage of `dtype` as a double.
static double readElement(const void *data, wrapper_dtype dtype, int64_t i) {
  switch (dtype) {
  case WRAPPER_DTYPE_BOOL:
    return static_cast<const uint8_t *>(data)[i] != 0;
  case WRAPPER_DTYPE_I8:
    return static_cast<const int8_t *>(data)[i];
  case WRAPPER_DTYPE_U8:
    return static_cast<const uint8_t *>(data)[i];
  case WRAPPER_DTYPE_I16:
    return static_cast<const int16_t *>(data)[i];
  case WRAPPER_DTYPE_I32:
    return static_cast<const int32_t *>(data)[i];
  case WRAPPER_DTYPE_I64:
    return static_cast<double>(static_cast<const int64_t *>(data)[i]);
  case WRAPPER_DTYPE_F16:
    return wrapper_f16_to_f32(static_cast<const uint16_t *>(data)[i]);
  case WRAPPER_DTYPE_BF16:
    return wrapper_bf16_to_f32(static_cast<const uint16_t *>(data)[i]);
  case WRAPPER_DTYPE_F8E4M3FN:
    return wrapper_f8e4m3fn_to_f32(static_cast<const uint8_t *>(data)[i]);
  case WRAPPER_DTYPE_F32:
    return static_cast<const float *>(data)[i];
  case WRAPPER_DTYPE_F64:
    return static_cast<const double *>(data)[i];
  }
  return 0;
}

static void writeElement(void *data, wrapper_dtype dtype, int64_t i, double v) {
  switch (dtype) {
  case WRAPPER_DTYPE_BOOL:
    static_cast<uint8_t *>(data)[i] = v != 0;
    return;
  case WRAPPER_DTYPE_I8:
    static_cast<int8_t *>(data)[i] = static_cast<int8_t>(v);
    return;
  case WRAPPER_DTYPE_U8:
    static_cast<uint8_t *>(data)[i] = static_cast<uint8_t>(v);
    return;
  case WRAPPER_DTYPE_I16:
    static_cast<int16_t *>(data)[i] = static_cast<int16_t>(v);
    return;
  case WRAPPER_DTYPE_I32:
    static_cast<int32_t *>(data)[i] = static_cast<int32_t>(v);
    return;
  case WRAPPER_DTYPE_I64:
    static_cast<int64_t *>(data)[i] = static_cast<int64_t>(v);
    return;
  case WRAPPER_DTYPE_F16:
    static_cast<uint16_t *>(data)[i] =
        wrapper_f32_to_f16(static_cast<float>(v));
    return;
  case WRAPPER_DTYPE_BF16:
    static_cast<uint16_t *>(data)[i] =
        wrapper_f32_to_bf16(static_cast<float>(v));
    return;
  case WRAPPER_DTYPE_F8E4M3FN:
    static_cast<uint8_t *>(data)[i] =
        wrapper_f32_to_f8e4m3fn(static_cast<float>(v));
    return;
  case WRAPPER_DTYPE_F32:
    static_cast<float *>(data)[i] = static_cast<float>(v);
    return;
  case WRAPPER_DTYPE_F64:
    static_cast<double *>(data)[i] = v;
    return;
  }
}

FailureOr<HostTensor> mlir::wrapper::loadInput(StringRef path, Type expected,
                                               size_t index, std::string &error,
                                               StringRef what) {
  std::string where =
      (what + " '" + path + "' (for argument #" + std::to_string(index) + ")")
          .str();
  wrapper_array array;
  if (wrapper_npy_load(path.str().c_str(), &array) != WRAPPER_OK) {
    error = wrapper_last_error();
    return failure();
  }
  llvm::scope_exit cleanup([&] { wrapper_array_destroy(&array); });
  Type element = expected;
  ArrayRef<int64_t> shape;
  if (auto tensor = dyn_cast<RankedTensorType>(expected)) {
    element = tensor.getElementType();
    shape = tensor.getShape();
  }
  std::optional<wrapper_dtype> dtype = dtypeOf(element);
  if (!dtype) {
    error = where + ": element type " + typeToString(element) +
            " cannot be read from .npy";
    return failure();
  }
  // NumPy has no fp8: f8E4M3FN arguments are read from uint8 files that
  // hold the bits.
  if (*dtype == WRAPPER_DTYPE_F8E4M3FN && array.dtype == WRAPPER_DTYPE_U8)
    array.dtype = WRAPPER_DTYPE_F8E4M3FN;
  if (array.dtype != *dtype) {
    error = where + " has dtype " + wrapper_dtype_name(array.dtype) +
            ", expected " + wrapper_dtype_name(*dtype) + " (" +
            typeToString(expected) + ")";
    return failure();
  }
  ArrayRef<int64_t> actual(array.shape, array.rank);
  if (actual.size() != shape.size()) {
    error = where + " has shape " + formatShape(actual) + " of rank " +
            std::to_string(actual.size()) + ", expected rank " +
            std::to_string(shape.size()) + " (" + typeToString(expected) + ")";
    return failure();
  }
  for (auto [dim, size] : llvm::enumerate(shape))
    if (!ShapedType::isDynamic(size) && actual[dim] != size) {
      error = where + " has shape " + formatShape(actual) + ", but dimension " +
              std::to_string(dim) + " must be " + std::to_string(size) + " (" +
              typeToString(expected) + ")";
      return failure();
    }
  HostTensor t;
  t.elementType = element;
  t.shape.assign(actual.begin(), actual.end());
  t.values.resize(t.numel());
  for (int64_t i = 0; i < t.numel(); ++i)
    t.values[i] = readElement(array.data, array.dtype, i);
  return t;
}

LogicalResult mlir::wrapper::saveOutput(StringRef path,
                                        const HostTensor &tensor,
                                        std::string &error) {
  std::optional<wrapper_dtype> dtype = dtypeOf(tensor.elementType);
  wrapper_array array;
  if (!dtype ||
      wrapper_array_create(*dtype, tensor.shape.size(), tensor.shape.data(),
                           &array) != WRAPPER_OK) {
    error = "cannot save " + typeToString(tensor.elementType) + " data to '" +
            path.str() + "': " + wrapper_last_error();
    return failure();
  }
  for (int64_t i = 0; i < tensor.numel(); ++i)
    writeElement(array.data, array.dtype, i, tensor.values[i]);
  // NumPy has no fp8: save the bits as uint8 (what loadInput reads back).
  if (array.dtype == WRAPPER_DTYPE_F8E4M3FN)
    array.dtype = WRAPPER_DTYPE_U8;
  wrapper_status status = wrapper_npy_save(path.str().c_str(), &array);
  wrapper_array_destroy(&array);
  if (status != WRAPPER_OK) {
    error = wrapper_last_error();
    return failure();
  }
  return success();
}

void mlir::wrapper::printTensor(llvm::raw_ostream &os, StringRef name,
                                const HostTensor &t) {
  os << name << ": " << typeToString(t.elementType) << " "
     << formatShape(t.shape);
  if (!t.values.empty()) {
    double min = INFINITY, max = -INFINITY, sum = 0;
    for (double v : t.values) {
      min = std::min(min, v);
      max = std::max(max, v);
      sum += v;
    }
    os << " min " << llvm::format("%.6g", min) << " max "
       << llvm::format("%.6g", max) << " mean "
       << llvm::format("%.6g", sum / t.values.size());
  }
  os << "\n";
  if (t.values.size() > 64)
    return;
  os << "  [";
  llvm::interleave(
      t.values, [&](double v) { os << llvm::format("%.6g", v); },
      [&] { os << ", "; });
  os << "]\n";
}

//===----------------------------------------------------------------------===//
// CallFrame
//===----------------------------------------------------------------------===//

struct CallFrame::Buffer {
  void *data = nullptr;
  bool device = false;
  ~Buffer() {
    if (device)
      (void)wrapper_cuda_free(data);
    else
      std::free(data);
  }
};

/// The last status's message, prefixed with `what`.
static std::string cudaError(const char *what) {
  return std::string(what) + ": " + wrapper_last_error();
}

/// Words of a ranked memref descriptor: two pointers, offset, sizes and
/// strides.
static size_t descriptorWords(int64_t rank) { return 3 + 2 * rank; }

CallFrame::CallFrame(ArrayRef<HostTensor> args, TypeRange argTypes,
                     TypeRange types, bool device)
    : resultTypes(types.begin(), types.end()), device(device) {
  descriptors.reserve(args.size());
  scalars.reserve(args.size());
  // The result struct comes first.
  size_t words = 0;
  for (Type type : resultTypes) {
    resultOffsets.push_back(words);
    words += descriptorWords(cast<RankedTensorType>(type).getRank());
  }
  resultStruct.assign(words, 0);
  resultPointer = resultStruct.data();
  if (!resultTypes.empty())
    packedArgs.push_back(&resultPointer);

  // Scalars are passed by value: the packed argument points at the value.
  for (auto [arg, type] : llvm::zip(args, argTypes)) {
    if (!isa<RankedTensorType>(type)) {
      int64_t bits = 0;
      if (type.isF32()) {
        float f = static_cast<float>(arg.values.front());
        std::memcpy(&bits, &f, sizeof(f));
      } else if (type.isF64()) {
        double f = arg.values.front();
        std::memcpy(&bits, &f, sizeof(f));
      } else {
        bits = static_cast<int64_t>(arg.values.front());
      }
      scalars.push_back(bits);
      argKinds.push_back(-1 - static_cast<int>(scalars.size() - 1));
      continue;
    }
    argKinds.push_back(static_cast<int>(descriptors.size()));
    wrapper_dtype dtype = *dtypeOf(arg.elementType);
    auto buffer = std::make_unique<Buffer>();
    size_t bytes = std::max<size_t>(1, arg.numel() * wrapper_dtype_size(dtype));
    buffer->data = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
    for (int64_t i = 0; i < arg.numel(); ++i)
      writeElement(buffer->data, dtype, i, arg.values[i]);
    if (device) {
      void *onDevice = nullptr;
      if (wrapper_cuda_alloc(bytes, &onDevice) != WRAPPER_OK ||
          wrapper_cuda_copy_to_device(onDevice, buffer->data, bytes) !=
              WRAPPER_OK) {
        if (deviceError.empty())
          deviceError = cudaError("copying an argument to the GPU");
        (void)wrapper_cuda_free(onDevice);
        onDevice = nullptr;
      }
      std::free(buffer->data);
      buffer->data = onDevice;
      buffer->device = true;
    }
    std::vector<int64_t> d(descriptorWords(arg.shape.size()));
    d[0] = reinterpret_cast<int64_t>(buffer->data);
    d[1] = d[0];
    d[2] = 0;
    int64_t stride = 1;
    for (int64_t dim = arg.shape.size() - 1; dim >= 0; --dim) {
      d[3 + dim] = arg.shape[dim];
      d[3 + arg.shape.size() + dim] = stride;
      stride *= arg.shape[dim];
    }
    inputs.push_back(std::move(buffer));
    descriptors.push_back(std::move(d));
  }
  descriptorPointers.resize(descriptors.size());
  for (size_t i = 0; i < descriptors.size(); ++i)
    descriptorPointers[i] = descriptors[i].data();
  for (int kind : argKinds)
    packedArgs.push_back(kind >= 0
                             ? static_cast<void *>(&descriptorPointers[kind])
                             : static_cast<void *>(&scalars[-1 - kind]));
}

CallFrame::~CallFrame() { releaseResults(); }

void CallFrame::reset() {
  releaseResults();
  std::fill(resultStruct.begin(), resultStruct.end(), 0);
}

SmallVector<HostTensor> CallFrame::takeResults() {
  SmallVector<HostTensor> results = readResults();
  releaseResults();
  return results;
}

SmallVector<HostTensor> CallFrame::readResults() {
  SmallVector<HostTensor> results;
  for (auto [type, offset] : llvm::zip(resultTypes, resultOffsets)) {
    auto tensor = cast<RankedTensorType>(type);
    int64_t rank = tensor.getRank();
    const int64_t *d = &resultStruct[offset];
    auto *aligned = reinterpret_cast<char *>(d[1]);
    int64_t elementOffset = d[2];
    HostTensor t;
    t.elementType = tensor.getElementType();
    t.shape.assign(d + 3, d + 3 + rank);
    wrapper_dtype dtype = *dtypeOf(t.elementType);
    size_t size = wrapper_dtype_size(dtype);
    t.values.resize(t.numel());
    // A device result: the span its strides reach, copied to the host.
    std::vector<char> staged;
    if (device && t.numel() > 0) {
      int64_t last = elementOffset;
      for (int64_t dim = 0; dim < rank; ++dim)
        last += (t.shape[dim] - 1) * d[3 + rank + dim];
      staged.resize((last + 1) * size);
      if (wrapper_cuda_copy_to_host(staged.data(), aligned, staged.size()) !=
          WRAPPER_OK) {
        if (deviceError.empty())
          deviceError = cudaError("copying a result from the GPU");
        t.values.assign(t.numel(), 0);
        results.push_back(std::move(t));
        continue;
      }
      aligned = staged.data();
    }
    for (int64_t flat = 0; flat < t.numel(); ++flat) {
      int64_t rest = flat, position = elementOffset;
      for (int64_t dim = rank - 1; dim >= 0; --dim) {
        position += (rest % t.shape[dim]) * d[3 + rank + dim];
        rest /= t.shape[dim];
      }
      t.values[flat] = readElement(aligned + position * size, dtype, 0);
    }
    results.push_back(std::move(t));
  }
  return results;
}

void CallFrame::releaseResults() {
  // Free each buffer the call allocated once: not inputs returned as they
  // are, not constants (MLIR marks their allocated pointer 0xdeadbeef).
  std::set<int64_t> freed;
  for (const std::unique_ptr<Buffer> &input : inputs)
    freed.insert(reinterpret_cast<int64_t>(input->data));
  freed.insert(0);
  freed.insert(0xdeadbeef);
  for (size_t offset : resultOffsets) {
    int64_t allocated = resultStruct[offset];
    if (freed.insert(allocated).second) {
      if (device)
        (void)wrapper_cuda_free(reinterpret_cast<void *>(allocated));
      else
        _mlir_memref_to_llvm_free(reinterpret_cast<void *>(allocated));
    }
    resultStruct[offset] = 0;
  }
}

/// Default tolerances by element type.
static std::pair<double, double> tolerances(Type element, Tolerances given) {
  double r = 1e-4, a = 1e-5;
  if (element.isF16())
    r = 1e-2, a = 1e-3;
  else if (element.isBF16())
    r = 2e-2, a = 1e-2;
  else if (element.isF64())
    r = 1e-9, a = 1e-12;
  else if (isa<IntegerType>(element))
    r = 0, a = 0;
  return {given.relative >= 0 ? given.relative : r,
          given.absolute >= 0 ? given.absolute : a};
}

/// Compares `actual` with `expected`; prints a line; returns whether close.
bool mlir::wrapper::compareTensors(StringRef what, const HostTensor &actual,
                                   const HostTensor &expected,
                                   Tolerances given) {
  if (actual.shape != expected.shape) {
    llvm::outs() << what << ": shape " << formatShape(actual.shape)
                 << " differs from the reference's "
                 << formatShape(expected.shape) << ": FAIL\n";
    return false;
  }
  auto [r, a] = tolerances(actual.elementType, given);
  double maxAbs = 0, maxRel = 0;
  int64_t bad = 0, firstBad = -1;
  for (size_t i = 0; i < actual.values.size(); ++i) {
    double x = actual.values[i], y = expected.values[i];
    if (std::isnan(x) && std::isnan(y))
      continue;
    double diff = std::fabs(x - y);
    if (std::isinf(x) && std::isinf(y) && (x > 0) == (y > 0))
      diff = 0;
    if (std::isnan(diff))
      diff = INFINITY;
    maxAbs = std::max(maxAbs, diff);
    if (y != 0)
      maxRel = std::max(maxRel, diff / std::fabs(y));
    if (diff > a + r * std::fabs(y)) {
      if (firstBad < 0)
        firstBad = i;
      ++bad;
    }
  }
  llvm::outs() << what << ": max abs error " << llvm::format("%.3g", maxAbs)
               << ", max rel error " << llvm::format("%.3g", maxRel)
               << " (rtol " << llvm::format("%g", r) << ", atol "
               << llvm::format("%g", a) << "): ";
  if (bad) {
    llvm::outs() << "FAIL, " << bad << " of " << actual.values.size()
                 << " elements differ; first at flat index " << firstBad << ": "
                 << actual.values[firstBad] << " vs "
                 << expected.values[firstBad] << "\n";
    return false;
  }
  llvm::outs() << "ok\n";
  return true;
}

/// Random inputs for `types`: floats uniform in [-1, 1), integers in
/// [-5, 5], booleans fair coins.
FailureOr<SmallVector<HostTensor>>
mlir::wrapper::randomInputs(TypeRange types, const RandomInputOptions &options,
                            std::string &error) {
  std::mt19937_64 rng(options.seed);
  SmallVector<HostTensor> result;
  for (auto [index, type] : llvm::enumerate(types)) {
    HostTensor t;
    if (auto tensor = dyn_cast<RankedTensorType>(type)) {
      t.elementType = tensor.getElementType();
      for (int64_t size : tensor.getShape())
        t.shape.push_back(ShapedType::isDynamic(size) ? options.dynamicSize
                                                      : size);
    } else if (type.isIntOrIndexOrFloat()) {
      t.elementType = type;
    } else {
      error = "argument #" + std::to_string(index) + " has type " +
              typeToString(type) + ", which wrapper-run cannot generate";
      return failure();
    }
    // Count before allocating: a huge shape must be refused, not overflow.
    int64_t count = 1;
    bool overflow = false;
    for (int64_t size : t.shape)
      overflow |= llvm::MulOverflow<int64_t>(count, size, count);
    int64_t bytes = 0;
    int64_t width =
        t.elementType.isIntOrFloat()
            ? std::max<int64_t>(1,
                                (t.elementType.getIntOrFloatBitWidth() + 7) / 8)
            : 8;
    overflow |= llvm::MulOverflow<int64_t>(count, width, bytes);
    if (overflow || uint64_t(bytes) > options.maxBytes) {
      error =
          "argument #" + std::to_string(index) + " of type " +
          typeToString(type) + " needs " +
          (overflow ? std::string("more than 2^63") : std::to_string(bytes)) +
          " bytes, more than --max-alloc-bytes=" +
          std::to_string(options.maxBytes);
      return failure();
    }
    t.values.resize(count);
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    std::uniform_int_distribution<int> integers(-5, 5);
    for (double &v : t.values) {
      if (isa<FloatType>(t.elementType))
        v = roundToElementType(uniform(rng), t.elementType);
      else if (t.elementType.isInteger(1))
        v = rng() & 1;
      else if (isa<IndexType>(t.elementType))
        v = options.dynamicSize;
      else
        v = integers(rng);
    }
    result.push_back(std::move(t));
  }
  return result;
}
