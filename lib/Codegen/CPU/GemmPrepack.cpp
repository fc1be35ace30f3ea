//===- GemmPrepack.cpp - constant weights packed at compile time ----------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//
//
// Frozen weights for --wrapper-gemm-template: the wrapper.constant that a
// kernel's only call passes as A or B is rewritten into the micro-kernel's
// panel layout, so that no packing of that operand happens at run time.
//
//===----------------------------------------------------------------------===//

#include "GemmTemplate.h"

#include "Wrapper/Dialect/Wrapper/IR/WrapperOps.h"

#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/ScopedPrinter.h"

using namespace mlir;
using namespace mlir::wrapper;
using namespace mlir::wrapper::gemm;
/// Retypes argument `arg` of kernel function `func` to `type`.
static void retypeArgument(func::FuncOp func, BlockArgument arg, Type type) {
  arg.setType(type);
  SmallVector<Type> inputs(func.getArgumentTypes());
  inputs[arg.getArgNumber()] = type;
  func.setType(
      FunctionType::get(func.getContext(), inputs, func.getResultTypes()));
}

/// The B panels of a graph argument that the caller packs (see
/// prepackConstantB): `value`, passed to the kernel as `arg`, is an argument of
/// the wrapper.graph listed in `graphArguments`.
static Value prepackGraphArgument(func::FuncOp func, BlockArgument arg,
                                  Value value, int64_t width,
                                  ArrayRef<int64_t> graphArguments,
                                  std::string &why) {
  auto input = dyn_cast<BlockArgument>(value);
  auto graph = input
                   ? dyn_cast<wrapper::GraphOp>(input.getOwner()->getParentOp())
                   : nullptr;
  if (!graph || input.getOwner() != &graph.getBody().front()) {
    why = "B is not a wrapper.constant or an argument of the graph";
    return nullptr;
  }
  unsigned position = input.getArgNumber();
  if (!llvm::is_contained(graphArguments, (int64_t)position)) {
    why = ("B is argument #" + Twine(position) +
           " of the graph, not one of prepack-arguments")
              .str();
    return nullptr;
  }
  if (!input.hasOneUse()) {
    why = ("graph argument #" + Twine(position) + " has other uses").str();
    return nullptr;
  }
  auto type = dyn_cast<MemRefType>(input.getType());
  if (!type || type.getRank() != 2 || !type.hasStaticShape() ||
      !type.getLayout().isIdentity() || !type.getElementType().isF32()) {
    why = ("graph argument #" + Twine(position) +
           " is not a static row-major 2-d f32 memref")
              .str();
    return nullptr;
  }
  int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
  auto packedType = MemRefType::get({(cols + width - 1) / width, rows, width},
                                    type.getElementType());
  input.setType(packedType);
  SmallVector<Type> inputs(graph.getArgumentTypes());
  inputs[position] = packedType;
  graph.setFunctionTypeAttr(TypeAttr::get(
      FunctionType::get(graph.getContext(), inputs, graph.getResultTypes())));
  graph.setArgAttr(
      position, "wrapper.packed_b",
      IntegerAttr::get(IntegerType::get(graph.getContext(), 64), width));
  retypeArgument(func, arg, packedType);
  why =
      ("packed by the caller (graph argument #" + Twine(position) + ")").str();
  return arg;
}

/// Replaces argument `position` of `call`, `get` of `constant`, by the
/// constant packed into panels (see prepackConstant); returns its type.
static Type packConstantOperand(ModuleOp module, wrapper::CallOp call,
                                unsigned position, wrapper::GetConstantOp get,
                                wrapper::ConstantOp constant, int64_t panelDim,
                                int64_t width, const PanelFormat &format) {
  auto value = cast<DenseElementsAttr>(constant.getValueAttr());
  auto valueType = cast<ShapedType>(value.getType());
  // Element (i, j) of the value goes to panel p = x / width of the panel
  // dimension's index x, at (p, y / kp, x % width, y % kp) for the other
  // index y (zero where nothing goes: past the end of either).
  int64_t rows = valueType.getDimSize(0), cols = valueType.getDimSize(1);
  int64_t along = panelDim == 0 ? rows : cols;
  int64_t other = panelDim == 0 ? cols : rows;
  int64_t panels = (along + width - 1) / width;
  int64_t kp = format.kp;
  int64_t depth = (other + kp - 1) / kp;
  const llvm::fltSemantics &semantics =
      cast<FloatType>(format.panel).getFloatSemantics();
  std::vector<APFloat> packed(panels * depth * width * kp,
                              APFloat::getZero(semantics));
  auto values = value.getValues<APFloat>();
  auto it = values.begin();
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j, ++it) {
      int64_t x = panelDim == 0 ? i : j, y = panelDim == 0 ? j : i;
      APFloat element = *it;
      bool lost;
      element.convert(semantics, APFloat::rmNearestTiesToEven, &lost);
      packed[(((x / width) * depth + y / kp) * width + x % width) * kp +
             y % kp] = element;
    }

  SmallVector<int64_t> packedShape = {panels, depth, width * kp};
  auto packedType = MemRefType::get(packedShape, format.panel);
  auto packedValue = DenseElementsAttr::get(
      RankedTensorType::get(packedShape, format.panel), ArrayRef(packed));
  OpBuilder builder(constant);
  builder.setInsertionPointAfter(constant);
  // f32 panels keep the plain name; others say their type and pairing.
  std::string suffix;
  if (format.panel != format.operand || kp != 1)
    suffix = "_" + llvm::to_string(format.panel) + "x" + std::to_string(kp);
  std::string packedName =
      (constant.getSymName() + "_packed" + (panelDim == 0 ? "A" : "") +
       llvm::Twine(width) + suffix)
          .str();
  // Another kernel may have packed the same weights the same way already.
  auto packedConstant = module.lookupSymbol<wrapper::ConstantOp>(packedName);
  if (!packedConstant || packedConstant.getType() != packedType ||
      packedConstant.getValueAttr() != packedValue) {
    packedConstant = wrapper::ConstantOp::create(
        builder, constant.getLoc(), packedName, packedType, packedValue);
    SymbolTable(module).insert(packedConstant);
  }
  builder.setInsertionPoint(call);
  auto packedGet = wrapper::GetConstantOp::create(
      builder, get.getLoc(), packedType, packedConstant.getSymName());
  call->setOperand(call.getArgs().getBeginOperandIndex() + position, packedGet);
  if (get->use_empty())
    get->erase();
  // The unpacked constant goes when nothing else reads it.
  std::optional<SymbolTable::UseRange> constantUses =
      SymbolTable::getSymbolUses(constant.getSymNameAttr(),
                                 module.getOperation());
  if (constantUses && constantUses->empty())
    constant->erase();
  return packedType;
}

/// Packs the constant operand `operand` ("A" or "B") of the matmul in
/// kernel function `func` into `width`-wide panels along `panelDim` of its
/// value ([outer][inner][width], zero past the end): A ([M, K]) panels of
/// mr rows, B ([K, N]) panels of nr columns. See prepackConstantB.
static Value prepackConstant(ModuleOp module, func::FuncOp func, Value operand,
                             StringRef name, int64_t panelDim, int64_t width,
                             const PanelFormat &format,
                             ArrayRef<int64_t> graphArguments,
                             std::string &why) {
  auto arg = dyn_cast<BlockArgument>(operand);
  if (!arg || arg.getOwner() != &func.getBody().front()) {
    why = (name + (operand.getDefiningOp<memref::TransposeOp>()
                       ? " is read transposed (a view)"
                       : " is not an argument of the kernel"))
              .str();
    return nullptr;
  }
  if (!arg.hasOneUse()) {
    why = (name + " has other uses in the kernel").str();
    return nullptr;
  }
  // The kernel definitions naming this function (several after
  // --wrapper-dedupe-kernels merged the same code of several layers), and
  // their calls: every call must pass a constant here (each is packed), or
  // the only call a graph argument.
  std::optional<SymbolTable::UseRange> uses =
      SymbolTable::getSymbolUses(func.getSymNameAttr(), module.getOperation());
  if (!uses || uses->empty()) {
    why = "the kernel function is not defined by a wrapper.kernel";
    return nullptr;
  }
  if (!llvm::all_of(*uses, [](SymbolTable::SymbolUse use) {
        return isa<wrapper::KernelOp>(use.getUser());
      })) {
    why = "the kernel function is used other than by wrapper.kernel";
    return nullptr;
  }
  SmallVector<wrapper::CallOp> calls;
  llvm::SmallDenseSet<StringRef> kernelNames;
  for (SymbolTable::SymbolUse use : *uses) {
    auto kernel = cast<wrapper::KernelOp>(use.getUser());
    std::optional<SymbolTable::UseRange> kernelUses =
        SymbolTable::getSymbolUses(kernel.getSymNameAttr(),
                                   module.getOperation());
    if (!kernelUses) {
      why = "the kernel's uses are unknown";
      return nullptr;
    }
    for (SymbolTable::SymbolUse kernelUse : *kernelUses) {
      if (!isa<wrapper::CallOp>(kernelUse.getUser())) {
        why = ("kernel @" + kernel.getSymName() + " is used by " +
               kernelUse.getUser()->getName().getStringRef() +
               ", not only by wrapper.call")
                  .str();
        return nullptr;
      }
    }
    kernelNames.insert(kernel.getSymName());
  }
  // One walk for the calls of all of them.
  module.walk([&](wrapper::CallOp call) {
    if (kernelNames.contains(call.getKernel()))
      calls.push_back(call);
  });
  if (calls.empty()) {
    why = "the kernel is never called";
    return nullptr;
  }
  Value first = calls.front().getArgs()[arg.getArgNumber()];
  if (calls.size() == 1 && !first.getDefiningOp<wrapper::GetConstantOp>() &&
      panelDim == 1 && !graphArguments.empty() &&
      format.panel == format.operand && format.kp == 1)
    return prepackGraphArgument(func, arg, first, width, graphArguments, why);
  // Every constant passed, with its value (all checked before any is
  // packed).
  SmallVector<std::pair<wrapper::GetConstantOp, wrapper::ConstantOp>> passed;
  for (wrapper::CallOp call : calls) {
    auto get = call.getArgs()[arg.getArgNumber()]
                   .getDefiningOp<wrapper::GetConstantOp>();
    if (!get) {
      why = (name + " is not a wrapper.constant" +
             (calls.size() > 1 ? " in every call" : ""))
                .str();
      return nullptr;
    }
    auto constant =
        module.lookupSymbol<wrapper::ConstantOp>(get.getConstantAttr());
    auto value =
        constant ? dyn_cast_or_null<DenseElementsAttr>(constant.getValueAttr())
                 : nullptr;
    auto valueType = value ? dyn_cast<ShapedType>(value.getType()) : nullptr;
    if (!valueType || valueType.getRank() != 2 ||
        valueType.getElementType() != format.operand) {
      why = ("the constant " + name + " has no " +
             llvm::to_string(format.operand) + " value at compile time")
                .str();
      return nullptr;
    }
    passed.push_back({get, constant});
  }
  Type packedType;
  for (auto [call, constantPassed] : llvm::zip_equal(calls, passed)) {
    packedType = packConstantOperand(
        module, call, arg.getArgNumber(), constantPassed.first,
        constantPassed.second, panelDim, width, format);
  }
  retypeArgument(func, arg, packedType);
  return arg;
}

Value gemm::prepackConstantA(ModuleOp module, func::FuncOp func, Value a,
                             int64_t mr, const PanelFormat &format,
                             std::string &why) {
  return prepackConstant(module, func, a, "A", /*panelDim=*/0, mr, format, {},
                         why);
}

Value gemm::prepackConstantB(ModuleOp module, func::FuncOp func, Value b,
                             int64_t nr, const PanelFormat &format,
                             ArrayRef<int64_t> graphArguments,
                             std::string &why) {
  return prepackConstant(module, func, b, "B", /*panelDim=*/1, nr, format,
                         graphArguments, why);
}
