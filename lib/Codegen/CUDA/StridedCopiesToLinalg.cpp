//===- StridedCopiesToLinalg.cpp - strided copies as kernels --------------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//
//
// Implements --wrapper-strided-copies-to-linalg.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Codegen/CUDA/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir {
namespace wrapper {
#define GEN_PASS_DEF_WRAPPERSTRIDEDCOPIESTOLINALGPASS
#include "Wrapper/Codegen/CUDA/Passes.h.inc"
} // namespace wrapper
} // namespace mlir

using namespace mlir;

namespace {
struct StridedCopiesToLinalgPass
    : public wrapper::impl::WrapperStridedCopiesToLinalgPassBase<
          StridedCopiesToLinalgPass> {
  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp copy) {
      auto source = cast<MemRefType>(copy.getSource().getType());
      auto target = cast<MemRefType>(copy.getTarget().getType());
      if (!source.getLayout().isIdentity() || !target.getLayout().isIdentity())
        copies.push_back(copy);
    });
    for (memref::CopyOp copy : copies) {
      OpBuilder b(copy);
      linalg::CopyOp::create(b, copy.getLoc(), copy.getSource(),
                             copy.getTarget());
      copy.erase();
    }
  }
};
} // namespace
