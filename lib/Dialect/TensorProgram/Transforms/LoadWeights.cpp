//===- LoadWeights.cpp - dense_resource constants from a weights file -----===//
//
// Part of the Wrapper project.
//
// Implements --tensor-program-load-weights: importers write large constants
// as dense_resource<name> with their bytes in a safetensors file, so that
// the IR text of a big model stays small and parses fast; this pass gives
// the constants their values before anything reads them.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Dialect/TensorProgram/Transforms/Passes.h"

#include "Wrapper/Dialect/TensorProgram/IR/TensorProgramOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

namespace mlir {
namespace tensor_program {
#define GEN_PASS_DEF_TENSORPROGRAMLOADWEIGHTSPASS
#include "Wrapper/Dialect/TensorProgram/Transforms/Passes.h.inc"
} // namespace tensor_program
} // namespace mlir

using namespace mlir;
namespace tp = mlir::tensor_program;

namespace {
/// One tensor of a safetensors file.
struct StoredTensor {
  std::string dtype;
  SmallVector<int64_t> shape;
  ArrayRef<char> bytes;
};

/// A safetensors file, mapped.
class WeightsFile {
public:
  static FailureOr<WeightsFile> open(StringRef path, std::string &error) {
    auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
    if (!buffer) {
      error = "cannot read the weights file '" + path.str() +
              "': " + buffer.getError().message();
      return failure();
    }
    WeightsFile file;
    file.buffer = std::move(*buffer);
    if (failed(file.parse(path, error)))
      return failure();
    return file;
  }

  const StoredTensor *lookup(StringRef name) const {
    auto it = tensors.find(name);
    return it == tensors.end() ? nullptr : &it->second;
  }

private:
  std::unique_ptr<llvm::MemoryBuffer> buffer;
  llvm::StringMap<StoredTensor> tensors;

  LogicalResult parse(StringRef path, std::string &error) {
    StringRef data = buffer->getBuffer();
    auto bad = [&](const Twine &why) {
      error = ("'" + path + "' is not a safetensors file: " + why).str();
      return failure();
    };
    if (data.size() < 8)
      return bad("shorter than its 8-byte header length");
    uint64_t headerSize = 0;
    for (int i = 7; i >= 0; --i)
      headerSize = (headerSize << 8) | static_cast<uint8_t>(data[i]);
    if (headerSize > data.size() - 8)
      return bad("its header length " + Twine(headerSize) +
                 " exceeds the file");
    llvm::Expected<llvm::json::Value> header =
        llvm::json::parse(data.substr(8, headerSize));
    if (!header)
      return bad("its header is not JSON (" +
                 llvm::toString(header.takeError()) + ")");
    const llvm::json::Object *entries = header->getAsObject();
    if (!entries)
      return bad("its header is not a JSON object");
    StringRef payload = data.substr(8 + headerSize);
    for (const auto &[key, value] : *entries) {
      if (key == "__metadata__")
        continue;
      const llvm::json::Object *entry = value.getAsObject();
      if (!entry)
        return bad("entry '" + key.str() + "' is not an object");
      std::optional<StringRef> dtype = entry->getString("dtype");
      const llvm::json::Array *shape = entry->getArray("shape");
      const llvm::json::Array *offsets = entry->getArray("data_offsets");
      if (!dtype || !shape || !offsets || offsets->size() != 2)
        return bad("entry '" + key.str() +
                   "' lacks dtype, shape or data_offsets");
      StoredTensor tensor;
      tensor.dtype = dtype->str();
      for (const llvm::json::Value &size : *shape) {
        std::optional<int64_t> s = size.getAsInteger();
        if (!s || *s < 0)
          return bad("entry '" + key.str() + "' has a bad shape");
        tensor.shape.push_back(*s);
      }
      std::optional<int64_t> begin = (*offsets)[0].getAsInteger();
      std::optional<int64_t> end = (*offsets)[1].getAsInteger();
      if (!begin || !end || *begin < 0 || *end < *begin ||
          static_cast<uint64_t>(*end) > payload.size())
        return bad("entry '" + key.str() + "' has data offsets outside the " +
                   "file");
      tensor.bytes = ArrayRef<char>(payload.data() + *begin, *end - *begin);
      tensors[key.str()] = std::move(tensor);
    }
    return success();
  }
};

/// The value of `type` from the file's `stored` tensor, or null with a
/// message.
DenseElementsAttr materialize(RankedTensorType type, const StoredTensor &stored,
                              StringRef name, std::string &error) {
  std::string expected = tp::safetensorsDtypeName(type.getElementType());
  // Unsigned bytes stand for signless i8 (PyTorch's uint8).
  bool dtypeOk =
      stored.dtype == expected || (expected == "I8" && stored.dtype == "U8");
  if (!dtypeOk) {
    error =
        "weight '" + name.str() + "' has dtype " + stored.dtype +
        " in the file, but the constant is " +
        (expected.empty() ? std::string("of an unsupported type") : expected);
    return nullptr;
  }
  if (ArrayRef<int64_t>(stored.shape) != type.getShape()) {
    std::string shape;
    llvm::raw_string_ostream os(shape);
    os << "[";
    llvm::interleaveComma(stored.shape, os);
    os << "]";
    std::string typeText;
    llvm::raw_string_ostream(typeText) << type;
    error = "weight '" + name.str() + "' has shape " + shape +
            " in the file, but the constant's type is " + typeText;
    return nullptr;
  }
  int64_t count = type.getNumElements();
  if (type.getElementType().isInteger(1)) {
    if (static_cast<int64_t>(stored.bytes.size()) != count) {
      error = "weight '" + name.str() + "' has " +
              std::to_string(stored.bytes.size()) + " bytes, expected " +
              std::to_string(count);
      return nullptr;
    }
    SmallVector<bool> values;
    for (char byte : stored.bytes)
      values.push_back(byte != 0);
    return DenseElementsAttr::get(type, values);
  }
  int64_t bytes = count * type.getElementTypeBitWidth() / 8;
  if (static_cast<int64_t>(stored.bytes.size()) != bytes) {
    error = "weight '" + name.str() + "' has " +
            std::to_string(stored.bytes.size()) + " bytes, expected " +
            std::to_string(bytes);
    return nullptr;
  }
  return DenseElementsAttr::getFromRawBuffer(type, stored.bytes);
}

struct LoadWeightsPass
    : public tp::impl::TensorProgramLoadWeightsPassBase<LoadWeightsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<tp::ConstantOp> constants;
    module.walk([&](tp::ConstantOp op) {
      if (isa<DenseResourceElementsAttr>(op.getValue()))
        constants.push_back(op);
    });
    if (constants.empty())
      return;

    std::optional<WeightsFile> weights;
    auto openFile = [&](tp::ConstantOp op) -> LogicalResult {
      if (weights)
        return success();
      std::string path = file;
      if (path.empty())
        if (auto attr =
                module->getAttrOfType<StringAttr>("tensor_program.weights"))
          path = attr.str();
      if (path.empty())
        return op.emitOpError()
               << "has no value: its resource has no data in the IR and no "
                  "weights file is given (module attribute "
                  "tensor_program.weights or the pass's file option)";
      std::string error;
      FailureOr<WeightsFile> opened = WeightsFile::open(path, error);
      if (failed(opened))
        return op.emitOpError() << "has no value: " << error;
      weights = std::move(*opened);
      return success();
    };

    for (tp::ConstantOp op : constants) {
      auto resource = cast<DenseResourceElementsAttr>(op.getValue());
      auto type = cast<RankedTensorType>(resource.getType());
      StringRef name = resource.getRawHandle().getKey();
      DenseElementsAttr value;
      std::string error;
      if (AsmResourceBlob *blob = resource.getRawHandle().getBlob()) {
        // Carried by the IR: keep it, as a plain dense attribute.
        StoredTensor stored{tp::safetensorsDtypeName(type.getElementType()),
                            SmallVector<int64_t>(type.getShape()),
                            blob->getData()};
        value = materialize(type, stored, name, error);
      } else {
        if (failed(openFile(op)))
          return signalPassFailure();
        const StoredTensor *stored = weights->lookup(name);
        if (!stored) {
          op.emitOpError() << "has no value: the weights file has no tensor "
                              "named '"
                           << name << "'";
          return signalPassFailure();
        }
        value = materialize(type, *stored, name, error);
      }
      if (!value) {
        op.emitOpError() << error;
        return signalPassFailure();
      }
      op.setValueAttr(value);
      ++numLoaded;
    }
  }
};
} // namespace

std::string tp::safetensorsDtypeName(Type type) {
  if (type.isF64())
    return "F64";
  if (type.isF32())
    return "F32";
  if (type.isF16())
    return "F16";
  if (type.isBF16())
    return "BF16";
  if (isa<Float8E4M3FNType>(type))
    return "F8_E4M3";
  if (type.isInteger(1))
    return "BOOL";
  if (auto integer = dyn_cast<IntegerType>(type))
    switch (integer.getWidth()) {
    case 8:
      return integer.isUnsigned() ? "U8" : "I8";
    case 16:
      return "I16";
    case 32:
      return "I32";
    case 64:
      return "I64";
    }
  return "";
}
