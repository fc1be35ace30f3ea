//===- GemmPrepack.cpp - constant weights packed at compile time ----------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//
//
// Frozen weights for --wrapper-gemm-template: the wrapper.constant that a
// kernel's only call passes as B is rewritten into the micro-kernel's panel
// layout, so that no B packing happens at run time.
//
//===----------------------------------------------------------------------===//

#include "GemmTemplate.h"

#include "Wrapper/Dialect/Wrapper/IR/WrapperOps.h"

#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace mlir::wrapper;
using namespace mlir::wrapper::gemm;
Value gemm::prepackConstantB(ModuleOp module, func::FuncOp func, Value b,
                             int64_t nr, std::string &why) {
  auto arg = dyn_cast<BlockArgument>(b);
  if (!arg || arg.getOwner() != &func.getBody().front()) {
    why = "B is not an argument of the kernel";
    return nullptr;
  }
  if (!arg.hasOneUse()) {
    why = "B has other uses in the kernel";
    return nullptr;
  }
  // The kernel definitions naming this function, and their calls.
  SmallVector<wrapper::KernelOp> kernels;
  module.walk([&](wrapper::KernelOp kernel) {
    if (kernel.getImpl().getLeafReference() == func.getSymNameAttr())
      kernels.push_back(kernel);
  });
  if (kernels.size() != 1) {
    why = "the kernel function is not defined by exactly one wrapper.kernel";
    return nullptr;
  }
  SmallVector<wrapper::CallOp> calls;
  module.walk([&](wrapper::CallOp call) {
    if (call.getKernel() == kernels.front().getSymName())
      calls.push_back(call);
  });
  std::optional<SymbolTable::UseRange> uses =
      SymbolTable::getSymbolUses(func.getSymNameAttr(), module.getOperation());
  if (calls.size() != 1 || !uses || !llvm::hasSingleElement(*uses)) {
    why = "the kernel is not called exactly once";
    return nullptr;
  }
  wrapper::CallOp call = calls.front();
  auto get = call.getArgs()[arg.getArgNumber()]
                 .getDefiningOp<wrapper::GetConstantOp>();
  if (!get) {
    why = "B is not a wrapper.constant";
    return nullptr;
  }
  auto constant =
      module.lookupSymbol<wrapper::ConstantOp>(get.getConstantAttr());
  auto value =
      constant ? dyn_cast_or_null<DenseElementsAttr>(constant.getValueAttr())
               : nullptr;
  auto valueType = value ? dyn_cast<ShapedType>(value.getType()) : nullptr;
  if (!valueType || valueType.getRank() != 2 ||
      !valueType.getElementType().isF32()) {
    why = "the constant B has no f32 value at compile time";
    return nullptr;
  }
  int64_t k = valueType.getDimSize(0), n = valueType.getDimSize(1);
  int64_t panels = (n + nr - 1) / nr;
  std::vector<float> packed(panels * k * nr, 0.0f);
  auto values = value.getValues<float>();
  auto it = values.begin();
  for (int64_t row = 0; row < k; ++row)
    for (int64_t col = 0; col < n; ++col, ++it)
      packed[((col / nr) * k + row) * nr + col % nr] = *it;

  MLIRContext *context = module.getContext();
  Type f32 = Float32Type::get(context);
  auto packedType = MemRefType::get({panels, k, nr}, f32);
  auto packedValue = DenseElementsAttr::get(
      RankedTensorType::get({panels, k, nr}, f32), ArrayRef<float>(packed));
  OpBuilder builder(constant);
  builder.setInsertionPointAfter(constant);
  std::string name =
      (constant.getSymName() + "_packed" + llvm::Twine(nr)).str();
  // Another kernel may have packed the same weights the same way already.
  auto packedConstant = module.lookupSymbol<wrapper::ConstantOp>(name);
  if (!packedConstant || packedConstant.getType() != packedType ||
      packedConstant.getValueAttr() != packedValue) {
    packedConstant = wrapper::ConstantOp::create(builder, constant.getLoc(),
                                                 name, packedType, packedValue);
    SymbolTable(module).insert(packedConstant);
  }
  builder.setInsertionPoint(call);
  auto packedGet = wrapper::GetConstantOp::create(
      builder, get.getLoc(), packedType, packedConstant.getSymName());
  call->setOperand(call.getArgs().getBeginOperandIndex() + arg.getArgNumber(),
                   packedGet);
  if (get->use_empty())
    get->erase();
  // The unpacked constant goes when nothing else reads it.
  std::optional<SymbolTable::UseRange> constantUses =
      SymbolTable::getSymbolUses(constant.getSymNameAttr(),
                                 module.getOperation());
  if (constantUses && constantUses->empty())
    constant->erase();

  arg.setType(packedType);
  SmallVector<Type> inputs(func.getArgumentTypes());
  inputs[arg.getArgNumber()] = packedType;
  func.setType(FunctionType::get(context, inputs, func.getResultTypes()));
  return arg;
}
