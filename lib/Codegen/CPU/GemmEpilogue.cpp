//===- GemmEpilogue.cpp - the GEMM template's fused epilogue
//---------------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//
//
// The elementwise consumer of a product that --wrapper-gemm-template fuses
// into the product's write-back: which consumer qualifies (matchEpilogue)
// and its vector code over a finished tile (emitEpilogue), masked at the
// edges and unmasked over whole tiles.
//
//===----------------------------------------------------------------------===//

#include "GemmTemplate.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::wrapper::gemm;

//===----------------------------------------------------------------------===//
// Matching
//===----------------------------------------------------------------------===//

/// The epilogue of `matmul`, or a reason why its consumer is not one.
FailureOr<Epilogue> wrapper::gemm::matchEpilogue(linalg::MatmulOp matmul,
                                                 std::string &why) {
  Value product = matmul.getOutputs()[0];
  auto generic = dyn_cast_or_null<linalg::GenericOp>(nextEffectfulOp(matmul));
  if (!generic) {
    why = "the next op is not a linalg.generic";
    return failure();
  }
  if (!generic.hasPureBufferSemantics() || generic.getNumDpsInits() != 1 ||
      generic.getNumLoops() != 2 || generic.getNumReductionLoops() != 0) {
    why = "the next op is not a 2-d elementwise linalg.generic on buffers";
    return failure();
  }
  MLIRContext *context = matmul.getContext();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(2, context);
  OpOperand *init = generic.getDpsInitOperand(0);
  if (generic.getMatchingIndexingMap(init) != identity ||
      !hasUnitInnerStride(init->get().getType())) {
    why = "the output of the next op is not written at (m, n) with unit "
          "stride";
    return failure();
  }
  for (Value input : matmul.getInputs())
    if (input == init->get()) {
      why = "the next op writes an operand of the matmul";
      return failure();
    }
  // Vectors of i1 are bit-packed in memory, buffers of i1 hold a byte per
  // element: the masked vector loads and stores below would mix them up.
  for (Value operand : generic->getOperands()) {
    Type element = getElementTypeOrSelf(operand.getType());
    if (element.isIntOrFloat() && element.getIntOrFloatBitWidth() < 8) {
      why = "the next op reads or writes a buffer of sub-byte elements (i1)";
      return failure();
    }
  }
  Epilogue epilogue;
  epilogue.op = generic;
  bool readsProduct = false;
  for (OpOperand *input : generic.getDpsInputOperands()) {
    AffineMap map = generic.getMatchingIndexingMap(input);
    if (input->get() == product) {
      if (map != identity) {
        why = "the next op reads the product other than at (m, n)";
        return failure();
      }
      readsProduct = true;
      epilogue.access.push_back(InputAccess::Product);
      continue;
    }
    if (!isa<MemRefType>(input->get().getType())) {
      why = "the next op has a scalar input";
      return failure();
    }
    // Every index is m, n or 0, and n (if used) is the innermost one.
    bool usesN = false;
    for (auto [i, expr] : llvm::enumerate(map.getResults())) {
      auto dim = dyn_cast<AffineDimExpr>(expr);
      auto constant = dyn_cast<AffineConstantExpr>(expr);
      if (constant && constant.getValue() == 0)
        continue;
      if (!dim) {
        why = "the next op reads an input through a map other than "
              "(m, n), (n), (m) or ()";
        return failure();
      }
      if (dim.getPosition() == 1) {
        if (i + 1 != map.getNumResults() ||
            !hasUnitInnerStride(input->get().getType())) {
          why = "the next op reads an input along n with a non-unit stride";
          return failure();
        }
        usesN = true;
      }
    }
    epilogue.access.push_back(usesN ? InputAccess::Vector
                                    : InputAccess::Scalar);
  }
  if (!readsProduct) {
    why = "the next op does not read the product";
    return failure();
  }
  epilogue.readsOutput = !generic.getRegionOutputArgs()[0].use_empty();
  for (Operation &op : generic.getBody()->without_terminator()) {
    if (op.getNumRegions() != 0 || !op.hasTrait<OpTrait::Elementwise>() ||
        op.getNumResults() != 1 ||
        llvm::any_of(op.getResultTypes(), llvm::IsaPred<ShapedType>)) {
      why = ("the payload of the next op has '" + op.getName().getStringRef() +
             "', which is not elementwise")
                .str();
      return failure();
    }
  }
  // The product is read by the epilogue only: nothing else may see the
  // values of C between the matmul and the epilogue.
  for (Operation *user : product.getUsers())
    if (user != matmul && user != generic && !isa<memref::DeallocOp>(user) &&
        user->isBeforeInBlock(generic) && matmul->isBeforeInBlock(user)) {
      why = "the product is used between the matmul and the next op";
      return failure();
    }
  return epilogue;
}

//===----------------------------------------------------------------------===//
// Emission
//===----------------------------------------------------------------------===//

/// Applies the epilogue to the region [m, m + rows) x [n, n + cols) of the
/// finished product, vl columns at a time: under a mask, or, when `cols`
/// is a constant multiple of vl (a whole tile), with plain loads and stores
/// unrolled over the columns. The product's values are read from `product`
/// at `productAt` + (r, j) (the region's own origin in C, or (0, 0) in a
/// local tile).
void wrapper::gemm::emitEpilogue(Emitter &e, const Epilogue &epilogue,
                                 Value product, ValueRange productAt, Value m,
                                 Value n, Value rows, Value cols,
                                 const Blocking &blk) {
  OpBuilder &b = e.b;
  Location loc = e.loc;
  linalg::GenericOp generic = epilogue.op;
  Value out = generic.getDpsInitOperand(0)->get();
  auto vecOf = [&](Type scalar) { return VectorType::get({blk.vl}, scalar); };
  auto maskType = VectorType::get({blk.vl}, b.getI1Type());
  std::optional<int64_t> staticCols = getConstantIntValue(cols);
  bool unmasked = staticCols && *staticCols % blk.vl == 0;
  // The epilogue of the vl columns from j of the region's row r.
  auto emitColumns = [&](Value r, Value row, Value j) {
    Value col = e.add(n, j);
    Value mask;
    if (!unmasked)
      mask = vector::CreateMaskOp::create(b, loc, maskType,
                                          ValueRange{e.sub(cols, j)});
    auto maskedLoad = [&](Value memref, ValueRange indices) -> Value {
      Type scalar = getElementTypeOrSelf(memref.getType());
      if (!mask)
        return vector::LoadOp::create(b, loc, vecOf(scalar), memref, indices);
      Value zero = arith::ConstantOp::create(b, loc, vecOf(scalar),
                                             b.getZeroAttr(vecOf(scalar)));
      return vector::MaskedLoadOp::create(b, loc, vecOf(scalar), memref,
                                          indices, mask, zero);
    };
    IRMapping mapping;
    for (auto [input, access] :
         llvm::zip(generic.getDpsInputOperands(), epilogue.access)) {
      Value arg = generic.getMatchingBlockArgument(input);
      if (access == InputAccess::Product) {
        mapping.map(arg, maskedLoad(product, {e.add(productAt[0], r),
                                              e.add(productAt[1], j)}));
        continue;
      }
      AffineMap map = generic.getMatchingIndexingMap(input);
      SmallVector<Value> indices;
      for (AffineExpr expr : map.getResults()) {
        if (auto dim = dyn_cast<AffineDimExpr>(expr))
          indices.push_back(dim.getPosition() == 0 ? row : col);
        else
          indices.push_back(e.idx(0));
      }
      if (access == InputAccess::Vector) {
        mapping.map(arg, maskedLoad(input->get(), indices));
      } else {
        Value scalar = memref::LoadOp::create(b, loc, input->get(), indices);
        mapping.map(arg, vector::BroadcastOp::create(
                             b, loc, vecOf(scalar.getType()), scalar));
      }
    }
    if (epilogue.readsOutput)
      mapping.map(generic.getRegionOutputArgs()[0],
                  maskedLoad(out, {row, col}));
    for (Operation &op : generic.getBody()->without_terminator()) {
      SmallVector<Value> operands;
      for (Value operand : op.getOperands()) {
        if (Value mapped = mapping.lookupOrNull(operand)) {
          operands.push_back(mapped);
          continue;
        }
        // Defined outside the payload: the same value in every lane.
        Value splat = vector::BroadcastOp::create(
            b, loc, vecOf(operand.getType()), operand);
        mapping.map(operand, splat);
        operands.push_back(splat);
      }
      OperationState state(op.getLoc(), op.getName());
      state.addOperands(operands);
      state.addTypes(vecOf(op.getResult(0).getType()));
      state.addAttributes(op.getAttrs());
      mapping.map(op.getResult(0), b.create(state)->getResult(0));
    }
    Value result =
        mapping.lookup(generic.getBody()->getTerminator()->getOperand(0));
    if (mask)
      vector::MaskedStoreOp::create(b, loc, out, ValueRange{row, col}, mask,
                                    result);
    else
      vector::StoreOp::create(b, loc, result, out, ValueRange{row, col});
  };
  e.loop(rows, [&](Value r) {
    Value row = e.add(m, r);
    if (unmasked) {
      for (int64_t j = 0; j < *staticCols; j += blk.vl)
        emitColumns(r, row, e.idx(j));
      return;
    }
    e.loop(e.idx(0), cols, e.idx(blk.vl),
           [&](Value j) { emitColumns(r, row, j); });
  });
}

/// emitEpilogue on a tile of the product: a whole mr x nr tile (`full`)
/// with constant bounds and no masks, an edge tile under masks.
void wrapper::gemm::emitTileEpilogue(Emitter &e, const Epilogue &epilogue,
                                     Value product, ValueRange productAt,
                                     Value m, Value n, Value rows, Value cols,
                                     Value full, const Blocking &blk) {
  e.ifThen(
      full,
      [&] {
        emitEpilogue(e, epilogue, product, productAt, m, n, e.idx(blk.mr),
                     e.idx(blk.nr), blk);
      },
      [&] {
        emitEpilogue(e, epilogue, product, productAt, m, n, rows, cols, blk);
      });
}
