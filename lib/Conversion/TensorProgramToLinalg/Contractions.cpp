//===- Contractions.cpp - tensor_program matrix products to linalg --------===//
//
// Part of the Wrapper project.
//
// 2-D matmul and 3-D batch_matmul of floats become the named linalg ops
// (which later GEMM templates recognize), as does a matmul of an N-d lhs by
// a 2-d rhs (a linear layer on [batch, tokens, features]: the leading
// dimensions fold into the rows); a 2-D operand that is a transpose is read
// in place through the matmul's indexing maps; f16/bf16 operands go in as they
// are and the named op accumulates into f32, rounded to the result type by an
// elementwise op after it (the GEMM template's epilogue). Other cases become
// a contraction linalg.generic with broadcast batch dimensions, also
// accumulating in f32 for f16/bf16.
//
//===----------------------------------------------------------------------===//

#include "PopulatePatterns.h"

#include "Wrapper/Dialect/TensorProgram/IR/TensorProgramOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::wrapper;
using namespace mlir::wrapper::tp_to_linalg;
namespace tp = mlir::tensor_program;

/// Dynamic sizes of the result [batch..., M, N] of lhs x rhs, where a
/// transposed operand holds its matrix as [..., K, M] (lhs) or [..., N, K]
/// (rhs).
static SmallVector<Value>
contractionSizes(OpBuilder &b, Location loc, RankedTensorType resultType,
                 Value lhs, Value rhs, bool lhsT = false, bool rhsT = false) {
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  auto rhsType = cast<RankedTensorType>(rhs.getType());
  int64_t rank = resultType.getRank();
  SmallVector<Value> sizes;
  for (int64_t dim = 0; dim < rank; ++dim) {
    if (!resultType.isDynamicDim(dim))
      continue;
    if (dim == rank - 2) {
      sizes.push_back(tensor::DimOp::create(
          b, loc, lhs, lhsType.getRank() - (lhsT ? 1 : 2)));
    } else if (dim == rank - 1) {
      sizes.push_back(tensor::DimOp::create(
          b, loc, rhs, rhsType.getRank() - (rhsT ? 2 : 1)));
    } else {
      // A batch dimension: from whichever operand has it dynamic.
      for (Value operand : {lhs, rhs}) {
        auto type = cast<RankedTensorType>(operand.getType());
        int64_t d = dim - (rank - type.getRank());
        if (d >= 0 && type.isDynamicDim(d)) {
          sizes.push_back(tensor::DimOp::create(b, loc, operand, d));
          break;
        }
      }
    }
  }
  return sizes;
}

/// An operand of a product and whether the product reads it transposed:
/// `value` holds the matrix with its last two dimensions swapped.
struct ProductOperand {
  Value value;
  bool transposed = false;
};

/// `value` read through a transpose of its last two dimensions (a
/// tensor_program.permute [..., r-1, r-2] that is identity on the others, or
/// the linalg.transpose it lowers to): the transpose's input, marked
/// transposed; else `value` itself.
static ProductOperand readThroughTranspose(Value value) {
  if (auto permute = value.getDefiningOp<tp::PermuteOp>()) {
    if (tp::swapsLastTwoDims(permute.getPermutation()))
      return {permute.getInput(), true};
  } else if (auto transpose = value.getDefiningOp<linalg::TransposeOp>()) {
    if (tp::swapsLastTwoDims(transpose.getPermutation()))
      return {transpose.getInput(), true};
  }
  return {value, false};
}

/// lhs [..., M, K] x rhs [..., K, N] -> [..., M, N] as a linalg.generic over
/// (batch..., m, n, k). `discardable`: the source product's discardable
/// attributes (tensor_program.convolution), carried to the linalg product
/// here and in the builders below.
static Value buildContraction(OpBuilder &b, Location loc, ProductOperand l,
                              ProductOperand r, RankedTensorType resultType,
                              ArrayRef<NamedAttribute> discardable) {
  Value lhs = l.value, rhs = r.value;
  MLIRContext *context = b.getContext();
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  auto rhsType = cast<RankedTensorType>(rhs.getType());
  int64_t rank = resultType.getRank();
  int64_t batch = rank - 2;
  Type element = resultType.getElementType();
  Type compute = getComputeType(element);
  auto d = [&](int64_t i) { return getAffineDimExpr(i, context); };
  // Batch dimensions of an operand, broadcast into the result's.
  auto batchExprs = [&](RankedTensorType type) {
    SmallVector<AffineExpr> exprs;
    int64_t operandBatch = type.getRank() - 2;
    for (int64_t i = 0; i < operandBatch; ++i) {
      int64_t out = batch - operandBatch + i;
      if (type.getDimSize(i) == 1 && resultType.getDimSize(out) != 1)
        exprs.push_back(getAffineConstantExpr(0, context));
      else
        exprs.push_back(d(out));
    }
    return exprs;
  };
  // Loops (batch..., m, n, k); a transposed operand read as (k, m) or
  // (n, k).
  AffineExpr m = d(batch), n = d(batch + 1), k = d(batch + 2);
  SmallVector<AffineExpr> lhsExprs = batchExprs(lhsType);
  lhsExprs.append({l.transposed ? k : m, l.transposed ? m : k});
  SmallVector<AffineExpr> rhsExprs = batchExprs(rhsType);
  rhsExprs.append({r.transposed ? n : k, r.transposed ? k : n});
  SmallVector<AffineExpr> outExprs;
  for (int64_t i = 0; i < rank; ++i)
    outExprs.push_back(d(i));
  int64_t loops = rank + 1;
  SmallVector<AffineMap> maps = {AffineMap::get(loops, 0, lhsExprs, context),
                                 AffineMap::get(loops, 0, rhsExprs, context),
                                 AffineMap::get(loops, 0, outExprs, context)};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);

  SmallVector<Value> sizes = contractionSizes(b, loc, resultType, lhs, rhs,
                                              l.transposed, r.transposed);
  Value zero = scalarConstant(b, loc, compute, 0);
  Value init = createFilled(b, loc, resultType, sizes, compute, zero);
  auto accType = RankedTensorType::get(resultType.getShape(), compute);
  bool isFloat = isa<FloatType>(compute);
  auto generic = linalg::GenericOp::create(
      b, loc, accType, ValueRange{lhs, rhs}, init, maps, iterators,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value x = convertScalar(nb, l, args[0], compute);
        Value y = convertScalar(nb, l, args[1], compute);
        Value product = isFloat
                            ? arith::MulFOp::create(nb, l, x, y).getResult()
                            : arith::MulIOp::create(nb, l, x, y).getResult();
        Value sum =
            isFloat
                ? arith::AddFOp::create(nb, l, args[2], product).getResult()
                : arith::AddIOp::create(nb, l, args[2], product).getResult();
        linalg::YieldOp::create(nb, l, sum);
      });
  for (NamedAttribute attribute : discardable)
    generic->setAttr(attribute.getName(), attribute.getValue());
  Value result = generic.getResult(0);
  if (compute != element)
    result = mapElements(b, loc, result, resultType,
                         [&](OpBuilder &nb, Location l, Value v) {
                           return convertScalar(nb, l, v, element);
                         });
  return result;
}

/// Whether a product of `type` becomes a named linalg op: f32, or f16/bf16
/// accumulated in f32.
static bool hasNamedProductType(RankedTensorType type) {
  Type element = type.getElementType();
  return element.isF32() || element.isBF16() || element.isF16();
}

/// lhs x rhs as the named op `NamedOp` producing `type`: into a zero-filled
/// f32 accumulator, rounded to `type`'s element type after the product when
/// that is narrower (f16/bf16 operands are extended by the op itself). A
/// transposed operand of a 2-D linalg.matmul is read in place through the
/// op's indexing maps (A as (k, m), B as (n, k)), upstream's form of a
/// transposed product, which the GEMM template packs from and cuBLAS reads
/// by its transpose flags: no transposed copy is written.
template <typename NamedOp>
static Value buildNamedProduct(OpBuilder &b, Location loc, ProductOperand l,
                               ProductOperand r, RankedTensorType type,
                               ArrayRef<NamedAttribute> discardable) {
  Type element = type.getElementType();
  Type compute = getComputeType(element);
  auto accType = RankedTensorType::get(type.getShape(), compute);
  Value zero = scalarConstant(b, loc, compute, 0);
  Value init = createFilled(b, loc, accType,
                            contractionSizes(b, loc, accType, l.value, r.value,
                                             l.transposed, r.transposed),
                            compute, zero);
  SmallVector<NamedAttribute> attributes;
  if (l.transposed || r.transposed) {
    assert((std::is_same_v<NamedOp,
                           linalg::MatmulOp>)&&"only 2-D products read "
                                               "transposed operands in place");
    MLIRContext *context = b.getContext();
    AffineExpr m = getAffineDimExpr(0, context),
               n = getAffineDimExpr(1, context),
               k = getAffineDimExpr(2, context);
    auto map = [&](AffineExpr x, AffineExpr y) -> Attribute {
      return AffineMapAttr::get(AffineMap::get(3, 0, {x, y}, context));
    };
    attributes.push_back(b.getNamedAttr(
        "indexing_maps",
        b.getArrayAttr({l.transposed ? map(k, m) : map(m, k),
                        r.transposed ? map(n, k) : map(k, n), map(m, n)})));
  }
  attributes.append(discardable.begin(), discardable.end());
  Value product =
      NamedOp::create(b, loc, TypeRange{accType}, ValueRange{l.value, r.value},
                      init, attributes)
          ->getResult(0);
  if (compute == element)
    return product;
  return mapElements(b, loc, product, type,
                     [&](OpBuilder &nb, Location l, Value v) {
                       return convertScalar(nb, l, v, element);
                     });
}

/// lhs [B..., M, K] x rhs [K, N] for f32, with B... and M folded into one
/// row dimension: collapse lhs to [B*...*M, K], a 2-D linalg.matmul (which
/// the GEMM template takes), expand the result back. Null when the product
/// is not of that form, or when the batch and M dimensions have more than
/// one dynamic size (an expand group with two dynamic sizes does not lower).
static Value buildFoldedBatchMatmul(OpBuilder &b, Location loc, Value lhs,
                                    ProductOperand r,
                                    RankedTensorType resultType,
                                    ArrayRef<NamedAttribute> discardable) {
  Value rhs = r.value;
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  auto rhsType = cast<RankedTensorType>(rhs.getType());
  int64_t rank = lhsType.getRank();
  if (rank <= 2 || rhsType.getRank() != 2 || resultType.getRank() != rank ||
      !hasNamedProductType(resultType))
    return {};
  ArrayRef<int64_t> rows = lhsType.getShape().drop_back();
  if (llvm::count_if(rows, ShapedType::isDynamic) > 1)
    return {};
  int64_t m = 1;
  for (int64_t size : rows)
    m = ShapedType::isDynamic(size) || ShapedType::isDynamic(m)
            ? ShapedType::kDynamic
            : m * size;
  ReassociationIndices rowGroup =
      llvm::to_vector(llvm::seq<int64_t>(0, rank - 1));
  SmallVector<ReassociationIndices> lhsGroups = {rowGroup, {rank - 1}};
  auto flatType = RankedTensorType::get({m, lhsType.getDimSize(rank - 1)},
                                        lhsType.getElementType());
  Value flat =
      tensor::CollapseShapeOp::create(b, loc, flatType, lhs, lhsGroups);
  auto productType = RankedTensorType::get({m, resultType.getDimSize(rank - 1)},
                                           resultType.getElementType());
  Value product = buildNamedProduct<linalg::MatmulOp>(b, loc, {flat}, r,
                                                      productType, discardable);
  SmallVector<OpFoldResult> outputShape;
  for (int64_t d = 0; d < rank; ++d) {
    if (!resultType.isDynamicDim(d)) {
      outputShape.push_back(b.getIndexAttr(resultType.getDimSize(d)));
      continue;
    }
    Value source = d == rank - 1 ? rhs : lhs;
    int64_t sourceDim = d == rank - 1 ? (r.transposed ? 0 : 1) : d;
    outputShape.push_back(
        tensor::DimOp::create(b, loc, source, sourceDim).getResult());
  }
  return tensor::ExpandShapeOp::create(b, loc, resultType, product, lhsGroups,
                                       outputShape);
}

namespace {
/// `SourceOp` becomes the named linalg op `NamedOp` for float results of rank
/// `namedRank` (where GEMM templates will find it), and a contraction
/// linalg.generic otherwise.
template <typename SourceOp, typename NamedOp, int64_t namedRank>
struct LowerContraction : public OpRewritePattern<SourceOp> {
  using OpRewritePattern<SourceOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(SourceOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    // Operands that are transposes of their last two dimensions are read
    // in place (transposed indexing maps) where the product's form allows:
    // a 2-D matmul, the rhs of a folded batch, any contraction generic.
    ProductOperand lhs = readThroughTranspose(op.getLhs());
    ProductOperand rhs = readThroughTranspose(op.getRhs());
    SmallVector<NamedAttribute> discardable(op->getDiscardableAttrs());
    if constexpr (namedRank == 2) {
      if (!lhs.transposed) {
        if (Value folded = buildFoldedBatchMatmul(rewriter, loc, op.getLhs(),
                                                  rhs, type, discardable)) {
          rewriter.replaceOp(op, folded);
          return success();
        }
      }
    }
    if (type.getRank() == namedRank && hasNamedProductType(type) &&
        cast<ShapedType>(op.getLhs().getType()).getRank() == namedRank &&
        cast<ShapedType>(op.getRhs().getType()).getRank() == namedRank) {
      // Only 2-D linalg.matmul reads transposed operands in place (the
      // template takes batch_matmul with the default maps only); a batched
      // product of a transpose becomes a contraction generic below.
      if (namedRank == 2 || (!lhs.transposed && !rhs.transposed)) {
        rewriter.replaceOp(op, buildNamedProduct<NamedOp>(
                                   rewriter, loc, lhs, rhs, type, discardable));
        return success();
      }
    }
    rewriter.replaceOp(
        op, buildContraction(rewriter, loc, lhs, rhs, type, discardable));
    return success();
  }
};
} // namespace

void tp_to_linalg::populateContractionPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerContraction<tp::MatmulOp, linalg::MatmulOp, 2>,
               LowerContraction<tp::BatchMatmulOp, linalg::BatchMatmulOp, 3>>(
      patterns.getContext());
}
