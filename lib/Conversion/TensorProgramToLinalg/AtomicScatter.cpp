//===- AtomicScatter.cpp - scatters that add, as atomics on buffers -------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//
//
// A tensor_program.scatter that adds (embedding's and index_put's
// backward: repeated indices) is, as a sequential loop nest over tensors,
// host code on CUDA. With convert-tensor-program-to-linalg's
// atomic-scatter-add it stays a scatter until one-shot bufferization, whose
// model here writes it in place into the input's buffer as an scf.parallel
// over the index with one memref.atomic_rmw per element: a GPU kernel
// whose concurrent adds to one element are atomic.
//
//===----------------------------------------------------------------------===//

#include "PopulatePatterns.h"
#include "Wrapper/Conversion/TensorProgramToLinalg/TensorProgramToLinalg.h"
#include "Wrapper/Dialect/TensorProgram/IR/TensorProgramOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::bufferization;
using namespace mlir::wrapper;
namespace tp = mlir::tensor_program;

bool mlir::wrapper::isAtomicScatterAdd(Operation *op) {
  auto scatter = dyn_cast<tp::ScatterOp>(op);
  if (!scatter || scatter.getReduce() != tp::ScatterReduce::add)
    return false;
  Type element = scatter.getType().getElementType();
  if (!element.isF32() && !element.isF64() && !element.isInteger(32) &&
      !element.isInteger(64))
    return false;
  return !tp_to_linalg::isRowScatter(scatter.getInput(), scatter.getIndex(),
                                     scatter.getSrc(),
                                     static_cast<int64_t>(scatter.getDim()));
}

namespace {
struct ScatterBufferization
    : public BufferizableOpInterface::ExternalModel<ScatterBufferization,
                                                    tp::ScatterOp> {
  bool bufferizesToMemoryRead(Operation *op, OpOperand &operand,
                              const AnalysisState &) const {
    return true; // the input's other elements pass through
  }

  bool bufferizesToMemoryWrite(Operation *op, OpOperand &operand,
                               const AnalysisState &) const {
    return operand.get() == cast<tp::ScatterOp>(op).getInput();
  }

  AliasingValueList getAliasingValues(Operation *op, OpOperand &operand,
                                      const AnalysisState &) const {
    if (operand.get() != cast<tp::ScatterOp>(op).getInput())
      return {};
    return {{op->getResult(0), BufferRelation::Equivalent}};
  }

  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto scatter = cast<tp::ScatterOp>(op);
    if (!isAtomicScatterAdd(op))
      return op->emitOpError()
             << "is bufferized only as an atomic add (f32, f64, i32, i64; "
                "not a row scatter); lower it with "
                "--convert-tensor-program-to-linalg";
    FailureOr<Value> out =
        getBuffer(rewriter, scatter.getInput(), options, state);
    FailureOr<Value> index =
        getBuffer(rewriter, scatter.getIndex(), options, state);
    FailureOr<Value> src =
        getBuffer(rewriter, scatter.getSrc(), options, state);
    if (failed(out) || failed(index) || failed(src))
      return failure();
    Location loc = op->getLoc();
    int64_t dim = static_cast<int64_t>(scatter.getDim());
    int64_t rank = scatter.getType().getRank();
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    SmallVector<Value> lbs(rank, zero), steps(rank, one), ubs;
    for (int64_t d = 0; d < rank; ++d)
      ubs.push_back(memref::DimOp::create(rewriter, loc, *index, d));
    Value n = memref::DimOp::create(rewriter, loc, *out, dim);
    bool isFloat = isa<FloatType>(scatter.getType().getElementType());
    scf::ParallelOp::create(
        rewriter, loc, lbs, ubs, steps,
        [&](OpBuilder &b, Location l, ValueRange ivs) {
          Value at = memref::LoadOp::create(b, l, *index, ivs);
          Value value = memref::LoadOp::create(b, l, *src, ivs);
          SmallVector<Value> coords(ivs);
          coords[dim] = tp_to_linalg::clampedIndex(b, l, at, n);
          memref::AtomicRMWOp::create(b, l,
                                      isFloat ? arith::AtomicRMWKind::addf
                                              : arith::AtomicRMWKind::addi,
                                      value, *out, coords);
        });
    replaceOpWithBufferizedValues(rewriter, op, *out);
    return success();
  }
};
} // namespace

void mlir::wrapper::registerAtomicScatterBufferization(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, tp::TensorProgramDialect *) {
    tp::ScatterOp::attachInterface<ScatterBufferization>(*context);
  });
}
