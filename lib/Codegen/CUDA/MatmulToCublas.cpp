//===- MatmulToCublas.cpp - matrix products through cuBLAS ----------------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//
//
// Implements --wrapper-cuda-matmul-to-cublas: linalg products on buffers
// become calls of the runtime's wrapperCudaGemm, marked stream-ordered.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Codegen/CUDA/Passes.h"
#include "Wrapper/Dialect/TensorProgram/IR/TensorProgramDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir {
namespace wrapper {
#define GEN_PASS_DEF_WRAPPERCUDAMATMULTOCUBLASPASS
#include "Wrapper/Codegen/CUDA/Passes.h.inc"
} // namespace wrapper
} // namespace mlir

using namespace mlir;

namespace {
constexpr StringLiteral kGemmFunction = "wrapperCudaGemm";

// The runtime's dtype codes (wrapper_dtype in WrapperRuntime.h) and
// product flags (WRAPPER_CUDA_GEMM_* in WrapperCuda.h).
constexpr int32_t kDtypeF16 = 6, kDtypeF32 = 7, kDtypeBF16 = 9;
constexpr int32_t kTransposeA = 1, kTransposeB = 2, kAccumulate = 4,
                  kAllowTF32 = 8;

std::optional<int32_t> dtypeCode(Type type) {
  if (type.isF32())
    return kDtypeF32;
  if (type.isF16())
    return kDtypeF16;
  if (type.isBF16())
    return kDtypeBF16;
  return std::nullopt;
}

/// `value`, or what an arith.extf of a block argument extends.
Value throughExtension(Value value) {
  if (auto ext = value.getDefiningOp<arith::ExtFOp>())
    return ext.getIn();
  return value;
}

/// Whether the body is `yield(acc + x * y)` with x, y the two inputs
/// (possibly extended to the accumulator's type), in either order.
bool isMulAddBody(Block &body) {
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (yield.getNumOperands() != 1 || body.getNumArguments() != 3)
    return false;
  auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add)
    return false;
  // Exactly one addend is the accumulator.
  Value acc = body.getArgument(2);
  if ((add.getLhs() == acc) == (add.getRhs() == acc))
    return false;
  Value product = add.getLhs() == acc ? add.getRhs() : add.getLhs();
  auto mul = product.getDefiningOp<arith::MulFOp>();
  if (!mul)
    return false;
  Value x = throughExtension(mul.getLhs()), y = throughExtension(mul.getRhs());
  Value a = body.getArgument(0), b = body.getArgument(1);
  // The body holds exactly the ops matched (up to two extensions).
  size_t ops = std::distance(body.begin(), body.end());
  size_t extensions = (x != mul.getLhs()) + (y != mul.getRhs());
  return ((x == a && y == b) || (x == b && y == a)) && ops == 3 + extensions;
}

/// One product in cuBLAS's terms.
struct Product {
  Value lhs, rhs, out;
  bool transposeA = false, transposeB = false;
  bool lhsBatched = false, rhsBatched = false;
  int64_t batchDims = 0;
};

/// How an operand's map indexes [batch..., row, column]: whether it has
/// the batch dimensions (all of them, in order, or none / constant zeros
/// on dimensions of size one), and which loops its last two results are.
std::optional<bool> matchBatch(AffineMap map, MemRefType type,
                               int64_t batchDims) {
  int64_t operandBatch = map.getNumResults() - 2;
  if (operandBatch < 0)
    return std::nullopt;
  if (operandBatch == 0)
    return false;
  if (operandBatch != batchDims)
    return std::nullopt;
  bool allDims = true, allZeros = true;
  for (int64_t i = 0; i < operandBatch; ++i) {
    AffineExpr expr = map.getResult(i);
    allDims &= expr == getAffineDimExpr(i, map.getContext());
    auto constant = dyn_cast<AffineConstantExpr>(expr);
    allZeros &= constant && constant.getValue() == 0 && type.getDimSize(i) == 1;
  }
  if (allDims)
    return true;
  if (allZeros)
    return false;
  return std::nullopt;
}

/// `op` as a product cuBLAS can compute, or nullopt.
std::optional<Product> matchProduct(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1)
    return std::nullopt;
  if (!isa<linalg::MatmulOp, linalg::BatchMatmulOp, linalg::GenericOp>(op))
    return std::nullopt;
  Product p;
  p.lhs = op.getDpsInputOperand(0)->get();
  p.rhs = op.getDpsInputOperand(1)->get();
  p.out = op.getDpsInitOperand(0)->get();
  auto lhsType = dyn_cast<MemRefType>(p.lhs.getType());
  auto rhsType = dyn_cast<MemRefType>(p.rhs.getType());
  auto outType = dyn_cast<MemRefType>(p.out.getType());
  if (!lhsType || !rhsType || !outType || outType.getRank() < 2)
    return std::nullopt;
  for (MemRefType type : {lhsType, rhsType, outType})
    if (!type.getLayout().isIdentity())
      return std::nullopt;
  std::optional<int32_t> a = dtypeCode(lhsType.getElementType());
  std::optional<int32_t> c = dtypeCode(outType.getElementType());
  if (!a || !c || lhsType.getElementType() != rhsType.getElementType() ||
      (*c != *a && *c != kDtypeF32))
    return std::nullopt;
  if (!isMulAddBody(*op.getBlock()))
    return std::nullopt;

  // Loops (batch..., m, n, k): all parallel but the last.
  int64_t rank = outType.getRank();
  p.batchDims = rank - 2;
  if (op.getNumLoops() != rank + 1)
    return std::nullopt;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (int64_t i = 0; i < rank; ++i)
    if (iterators[i] != utils::IteratorType::parallel)
      return std::nullopt;
  if (iterators[rank] != utils::IteratorType::reduction)
    return std::nullopt;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  MLIRContext *context = op->getContext();
  if (maps[2] !=
      AffineMap::getMultiDimIdentityMap(rank + 1, context).getMajorSubMap(rank))
    return std::nullopt;
  AffineExpr m = getAffineDimExpr(rank - 2, context);
  AffineExpr n = getAffineDimExpr(rank - 1, context);
  AffineExpr k = getAffineDimExpr(rank, context);
  std::optional<bool> lhsBatch = matchBatch(maps[0], lhsType, p.batchDims);
  std::optional<bool> rhsBatch = matchBatch(maps[1], rhsType, p.batchDims);
  if (!lhsBatch || !rhsBatch)
    return std::nullopt;
  p.lhsBatched = *lhsBatch;
  p.rhsBatched = *rhsBatch;
  auto lastTwo = [](AffineMap map) {
    unsigned r = map.getNumResults();
    return std::make_pair(map.getResult(r - 2), map.getResult(r - 1));
  };
  auto [l0, l1] = lastTwo(maps[0]);
  auto [r0, r1] = lastTwo(maps[1]);
  if (l0 == m && l1 == k)
    p.transposeA = false;
  else if (l0 == k && l1 == m)
    p.transposeA = true;
  else
    return std::nullopt;
  if (r0 == k && r1 == n)
    p.transposeB = false;
  else if (r0 == n && r1 == k)
    p.transposeB = true;
  else
    return std::nullopt;
  return p;
}

/// The zero linalg.fill of `out` right before `op` (only ops without
/// memory effects between them), or null.
linalg::FillOp zeroFillBefore(Operation *op, Value out) {
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    if (auto fill = dyn_cast<linalg::FillOp>(prev)) {
      if (fill.getDpsInitOperand(0)->get() != out)
        return {};
      Value value = fill.getDpsInputOperand(0)->get();
      return matchPattern(value, m_AnyZeroFloat()) ? fill : linalg::FillOp();
    }
    if (!isMemoryEffectFree(prev))
      return {};
  }
  return {};
}

/// The buffer `copy` writes when it only rounds its one input (the f32
/// product) to `narrow` into a buffer of the input's shape and the identity
/// layout that `product` may write in its place: defined before it, with no
/// other use before the copy (none that could see it, or alias it through a
/// view, while the product has written it early). Null otherwise.
Value copyTarget(linalg::GenericOp copy, Operation *product, Type narrow) {
  if (copy.getNumDpsInputs() != 1 || copy.getNumDpsInits() != 1 ||
      !llvm::all_of(copy.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isIdentity(); }))
    return {};
  Block &body = *copy.getBlock();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto truncation = yield.getOperand(0).getDefiningOp<arith::TruncFOp>();
  if (body.getOperations().size() != 2 || !truncation ||
      truncation.getIn() != body.getArgument(0))
    return {};
  auto source = cast<MemRefType>(copy.getDpsInputOperand(0)->get().getType());
  Value target = copy.getDpsInitOperand(0)->get();
  auto type = dyn_cast<MemRefType>(target.getType());
  if (!type || type.getElementType() != narrow ||
      type.getShape() != source.getShape() || !type.getLayout().isIdentity())
    return {};
  Operation *definition = target.getDefiningOp();
  Block *block = product->getBlock();
  if (definition ? definition->getBlock() != block ||
                       !definition->isBeforeInBlock(product)
                 : cast<BlockArgument>(target).getOwner() != block)
    return {};
  for (Operation *user : target.getUsers())
    if (user != copy.getOperation() &&
        (user->getBlock() != block || !copy->isBeforeInBlock(user)))
      return {};
  return target;
}

/// A product of f16/bf16 operands into a zero-filled f32 scratch buffer
/// that is only rounded back to the operands' type: cuBLAS can write the
/// narrow type itself (accumulating in f32 and rounding once, as the
/// rounding after it does). The scratch buffer must be a `memref.alloc`
/// whose other users are the zero fill, its `memref.dealloc`, and
/// linalg.generic ops that read it as an input whose block argument is
/// used only by an `arith.truncf` to the operands' type. Rewrites those
/// readers to read a narrow buffer allocated in its place (the truncation
/// dropped), erases the scratch buffer and the fill, and returns the narrow
/// buffer; null (nothing changed) when the product is not of that form.
Value narrowAccumulator(linalg::LinalgOp op, Value out, linalg::FillOp fill) {
  auto alloc = out.getDefiningOp<memref::AllocOp>();
  Type narrow = cast<MemRefType>(op.getDpsInputOperand(0)->get().getType())
                    .getElementType();
  if (!fill || !alloc || !(narrow.isBF16() || narrow.isF16()) ||
      !alloc.getType().getElementType().isF32())
    return {};
  SmallVector<std::pair<linalg::GenericOp, unsigned>> readers;
  memref::DeallocOp dealloc;
  for (OpOperand &use : alloc->getUses()) {
    Operation *user = use.getOwner();
    if (user == op.getOperation() || user == fill.getOperation())
      continue;
    if (auto free = dyn_cast<memref::DeallocOp>(user)) {
      dealloc = free;
      continue;
    }
    auto generic = dyn_cast<linalg::GenericOp>(user);
    if (!generic || generic->getBlock() != op->getBlock() ||
        !op->isBeforeInBlock(generic) || !generic.isDpsInput(&use))
      return {};
    BlockArgument argument = generic.getMatchingBlockArgument(&use);
    if (!argument.hasOneUse())
      return {};
    auto truncation = dyn_cast<arith::TruncFOp>(*argument.getUsers().begin());
    if (!truncation || truncation.getType() != narrow ||
        truncation.getRoundingmodeAttr())
      return {};
    readers.emplace_back(generic, use.getOperandNumber());
  }
  if (readers.empty())
    return {};
  fill->erase();
  Value output = op.getDpsInitOperand(0)->get();
  // A reader that only rounds the product into another buffer (a product
  // that is the function's result): cuBLAS writes that buffer instead.
  if (readers.size() == 1) {
    if (Value target = copyTarget(readers.front().first, op, narrow)) {
      output.replaceUsesWithIf(target, [&](OpOperand &use) {
        return use.getOwner() == op.getOperation();
      });
      readers.front().first->erase();
      if (dealloc)
        dealloc->erase();
      alloc->erase();
      return target;
    }
  }
  OpBuilder b(alloc);
  auto narrowType = MemRefType::get(alloc.getType().getShape(), narrow);
  auto replacement = memref::AllocOp::create(
      b, alloc.getLoc(), narrowType, alloc.getDynamicSizes(),
      alloc.getSymbolOperands(), alloc.getAlignmentAttr());
  for (auto [generic, index] : readers) {
    BlockArgument argument =
        generic.getMatchingBlockArgument(&generic->getOpOperand(index));
    Operation *truncation = *argument.getUsers().begin();
    argument.setType(narrow);
    truncation->getResult(0).replaceAllUsesWith(argument);
    truncation->erase();
    generic->setOperand(index, replacement);
  }
  if (dealloc)
    dealloc->setOperand(0, replacement);
  op->setOperand(op.getDpsInitOperand(0)->getOperandNumber(), replacement);
  alloc->erase();
  return replacement;
}

struct WrapperCUDAMatmulToCublasPass
    : public wrapper::impl::WrapperCUDAMatmulToCublasPassBase<
          WrapperCUDAMatmulToCublasPass> {
  using Base::Base;

  /// The declaration of wrapperCudaGemm (added once).
  func::FuncOp declareGemm(ModuleOp module) {
    if (auto existing = module.lookupSymbol<func::FuncOp>(kGemmFunction))
      return existing;
    OpBuilder b(module.getBodyRegion());
    b.setInsertionPointToStart(module.getBody());
    Type i64 = b.getI64Type(), i32 = b.getI32Type();
    SmallVector<Type> inputs(10, i64);
    inputs.append({i32, i32});
    auto func = func::FuncOp::create(b, module.getLoc(), kGemmFunction,
                                     b.getFunctionType(inputs, {}));
    func.setPrivate();
    func->setAttr(wrapper::kStreamOrderedAttrName, b.getUnitAttr());
    return func;
  }

  void rewrite(linalg::LinalgOp op, const Product &matched, func::FuncOp gemm) {
    // A zero fill of the output before the product is beta = 0; a narrow
    // output written by cuBLAS replaces an f32 one that is only rounded.
    Product p = matched;
    linalg::FillOp fill = zeroFillBefore(op, p.out);
    bool narrowed = false;
    if (Value narrow = narrowAccumulator(op, p.out, fill)) {
      p.out = narrow;
      fill = {};
      narrowed = true;
    }
    OpBuilder b(op);
    Location loc = op.getLoc();
    Type i64 = b.getI64Type();
    auto constant = [&](int64_t v) -> Value {
      return arith::ConstantIntOp::create(b, loc, i64, v);
    };
    auto dim = [&](Value memref, int64_t d) -> Value {
      auto type = cast<MemRefType>(memref.getType());
      if (!type.isDynamicDim(d))
        return constant(type.getDimSize(d));
      Value size = memref::DimOp::create(b, loc, memref, d);
      return b.createOrFold<arith::IndexCastOp>(loc, i64, size);
    };
    auto mul = [&](Value x, Value y) -> Value {
      return b.createOrFold<arith::MulIOp>(loc, x, y);
    };
    auto address = [&](Value memref) -> Value {
      Value index =
          memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
      return arith::IndexCastOp::create(b, loc, i64, index);
    };
    int64_t rank = cast<MemRefType>(p.out.getType()).getRank();
    Value batch = p.batchDims ? dim(p.out, 0) : constant(1);
    for (int64_t d = 1; d < p.batchDims; ++d)
      batch = mul(batch, dim(p.out, d));
    Value m = dim(p.out, rank - 2), n = dim(p.out, rank - 1);
    int64_t lhsRank = cast<MemRefType>(p.lhs.getType()).getRank();
    Value k = dim(p.lhs, p.transposeA ? lhsRank - 2 : lhsRank - 1);
    Value zero = constant(0);
    Value strideA = p.lhsBatched ? mul(m, k) : zero;
    Value strideB = p.rhsBatched ? mul(k, n) : zero;
    Value strideC = mul(m, n);

    int32_t dtypes =
        *dtypeCode(cast<MemRefType>(p.lhs.getType()).getElementType()) |
        *dtypeCode(cast<MemRefType>(p.rhs.getType()).getElementType()) << 8 |
        *dtypeCode(cast<MemRefType>(p.out.getType()).getElementType()) << 16;
    int32_t flags =
        (p.transposeA ? kTransposeA : 0) | (p.transposeB ? kTransposeB : 0) |
        (allowTF32 || (allowTF32Convolutions &&
                       op->hasAttr(tensor_program::kConvolutionProductAttr))
             ? kAllowTF32
             : 0);
    if (fill)
      fill->erase();
    else if (!narrowed)
      flags |= kAccumulate;
    Value dtypesValue = arith::ConstantIntOp::create(b, loc, dtypes, 32);
    Value flagsValue = arith::ConstantIntOp::create(b, loc, flags, 32);
    func::CallOp::create(b, loc, gemm,
                         ValueRange{batch, m, n, k, address(p.lhs), strideA,
                                    address(p.rhs), strideB, address(p.out),
                                    strideC, dtypesValue, flagsValue});
    op->erase();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<std::pair<linalg::LinalgOp, Product>> products;
    module.walk([&](linalg::LinalgOp op) {
      if (std::optional<Product> p = matchProduct(op))
        products.emplace_back(op, *p);
    });
    if (products.empty())
      return;
    func::FuncOp gemm = declareGemm(module);
    for (auto &[op, p] : products)
      rewrite(op, p, gemm);
  }
};
} // namespace
