//===- WeightsFile.cpp - weights outside the model library ----------------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#include "WeightsFile.h"

#include "Wrapper/Dialect/TensorProgram/Transforms/Passes.h"
#include "Wrapper/Dialect/Wrapper/IR/WrapperOps.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <random>

using namespace mlir;
using namespace mlir::wrapper;

/// The safetensors dtype of an element type of the blob; bytes for one
/// safetensors has no name for.
static std::string safetensorsDtype(Type element) {
  std::string name = tensor_program::safetensorsDtypeName(element);
  return name.empty() ? "U8" : name;
}

/// Page alignment of the appended weights in the file (mmap maps from a
/// page boundary), and alignment of each weight within them.
static constexpr uint64_t kFileAlignment = 4096, kWeightAlignment = 64;

/// The bytes of a constant's value in memory order, or nullopt for values
/// that stay embedded (bit-packed i1, unknown attribute kinds).
static std::optional<ArrayRef<char>>
constantBytes(ConstantOp constant, std::vector<char> &splatStorage) {
  MemRefType type = constant.getMemRefType();
  Type element = type.getElementType();
  if (!element.isIntOrFloat() || element.isInteger(1) ||
      element.getIntOrFloatBitWidth() % 8 != 0)
    return std::nullopt;
  auto dense = dyn_cast<DenseElementsAttr>(*constant.getValue());
  if (!dense)
    return std::nullopt;
  ArrayRef<char> raw = dense.getRawData();
  if (!dense.isSplat())
    return raw;
  size_t elementBytes = element.getIntOrFloatBitWidth() / 8;
  splatStorage.clear();
  for (int64_t i = 0; i < type.getNumElements(); ++i)
    splatStorage.insert(splatStorage.end(), raw.begin(),
                        raw.begin() + elementBytes);
  return ArrayRef<char>(splatStorage);
}

/// Moves the values of the module's constants into `blob`: each constant
/// is renamed w<N> (its slot is then __wrapper_slot_w<N>, a C identifier)
/// and left without a value.
LogicalResult mlir::wrapper::takeOutConstants(ModuleOp module,
                                              AppendedWeights &weights,
                                              std::vector<char> &blob,
                                              std::string &error) {
  std::random_device random;
  weights.magic = (uint64_t(random()) << 32) ^ random() ^ 0x57524150ULL;
  std::vector<char> splat;
  unsigned index = 0;
  for (auto constant :
       llvm::make_early_inc_range(module.getOps<ConstantOp>())) {
    if (constant.isExternal())
      continue;
    std::optional<ArrayRef<char>> bytes = constantBytes(constant, splat);
    if (!bytes)
      continue;
    std::string original = constant.getSymName().str();
    std::string name = "w" + std::to_string(index++);
    if (failed(SymbolTable::replaceAllSymbolUses(
            constant, StringAttr::get(module.getContext(), name), module))) {
      error = "cannot rename constant @" + constant.getSymName().str();
      return failure();
    }
    constant.setSymName(name);
    uint64_t offset = llvm::alignTo(blob.size(), kWeightAlignment);
    blob.resize(offset);
    blob.insert(blob.end(), bytes->begin(), bytes->end());
    MemRefType type = constant.getMemRefType();
    weights.weights.push_back(
        {"__wrapper_slot_" + name, offset, static_cast<uint64_t>(bytes->size()),
         original, safetensorsDtype(type.getElementType()),
         std::vector<int64_t>(type.getShape().begin(), type.getShape().end())});
    constant.removeValueAttr();
  }
  weights.totalBytes = blob.size();
  return success();
}

/// Appends padding, the weights and the trailer to the library `path`.
LogicalResult mlir::wrapper::appendWeights(StringRef path,
                                           const AppendedWeights &weights,
                                           const std::vector<char> &blob,
                                           std::string &error) {
  if (weights.weights.empty())
    return success();
  uint64_t size = 0;
  if (llvm::sys::fs::file_size(path, size)) {
    error = "cannot read the size of '" + path.str() + "'";
    return failure();
  }
  std::error_code ec;
  llvm::raw_fd_ostream out(path, ec, llvm::sys::fs::OF_Append);
  if (ec) {
    error =
        "cannot append the weights to '" + path.str() + "': " + ec.message();
    return failure();
  }
  uint64_t start = llvm::alignTo(size, kFileAlignment);
  out.write_zeros(start - size);
  out.write(blob.data(), blob.size());
  uint64_t trailer[3] = {start, static_cast<uint64_t>(blob.size()),
                         weights.magic};
  out.write(reinterpret_cast<const char *>(trailer), sizeof(trailer));
  out.close();
  if (out.has_error()) {
    error = "cannot append the weights to '" + path.str() + "'";
    out.clear_error();
    return failure();
  }
  return success();
}

std::string mlir::wrapper::safetensorsMagicText(uint64_t magic) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "\"wrapper.magic\":\"0x" << llvm::format_hex_no_prefix(magic, 16)
     << "\"";
  return text;
}

/// A JSON string literal of `text` (names of constants are symbol names:
/// quotes and backslashes escaped, control characters as \u00XX).
static void writeJSONString(llvm::raw_ostream &os, StringRef text) {
  os << '"';
  for (char c : text) {
    if (c == '"' || c == '\\')
      os << '\\' << c;
    else if (static_cast<unsigned char>(c) < 0x20)
      os << "\\u00" << llvm::format_hex_no_prefix(c, 2);
    else
      os << c;
  }
  os << '"';
}

LogicalResult mlir::wrapper::writeSafetensors(StringRef path,
                                              const AppendedWeights &weights,
                                              const std::vector<char> &blob,
                                              std::string &error) {
  std::string header;
  llvm::raw_string_ostream os(header);
  os << "{\"__metadata__\":{" << safetensorsMagicText(weights.magic)
     << ",\"wrapper.format\":\"wrapper-compile --weights=external\"}";
  uint64_t end = 0;
  unsigned pads = 0;
  llvm::StringSet<> names;
  for (const AppendedWeight &weight : weights.weights) {
    if (weight.offset > end) {
      os << ",\"wrapper.pad." << pads++ << "\":{\"dtype\":\"U8\",\"shape\":["
         << weight.offset - end << "],\"data_offsets\":[" << end << ","
         << weight.offset << "]}";
    }
    // The original symbol name when it is unique, else the slot's.
    std::string name = weight.name;
    if (name.empty() || StringRef(name).starts_with("wrapper.") ||
        !names.insert(name).second)
      name = weight.slot;
    os << ",";
    writeJSONString(os, name);
    os << ":{\"dtype\":\"" << weight.dtype << "\",\"shape\":[";
    llvm::interleave(weight.shape, os, ",");
    os << "],\"data_offsets\":[" << weight.offset << ","
       << weight.offset + weight.bytes << "]}";
    end = weight.offset + weight.bytes;
  }
  if (blob.size() > end)
    os << ",\"wrapper.pad." << pads++ << "\":{\"dtype\":\"U8\",\"shape\":["
       << blob.size() - end << "],\"data_offsets\":[" << end << ","
       << blob.size() << "]}";
  os << "}";
  // The data starts on a page boundary: the header padded with spaces.
  uint64_t padded = llvm::alignTo(8 + header.size(), kFileAlignment) - 8;
  header.append(padded - header.size(), ' ');
  std::error_code ec;
  llvm::raw_fd_ostream out(path, ec, llvm::sys::fs::OF_None);
  if (ec) {
    error = "cannot write '" + path.str() + "': " + ec.message();
    return failure();
  }
  uint64_t length = header.size();
  out.write(reinterpret_cast<const char *>(&length), sizeof(length));
  out << header;
  out.write(blob.data(), blob.size());
  out.close();
  if (out.has_error()) {
    error = "cannot write '" + path.str() + "'";
    out.clear_error();
    return failure();
  }
  return success();
}
