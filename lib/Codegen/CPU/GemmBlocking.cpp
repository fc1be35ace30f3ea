//===- GemmBlocking.cpp - choosing the GEMM template's blocking -----------===//
//
// Part of the Wrapper project.
//
// The core of --wrapper-gemm-select-blocking and --wrapper-gemm-template:
// the blocking a product gets (register tile, vector width, cache blocks),
// its checks, and the attribute that records it on the product.
//
//===----------------------------------------------------------------------===//

#include "GemmTemplate.h"

#include "Wrapper/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace mlir::wrapper;

std::string mlir::wrapper::checkGemmBlocking(const GemmBlocking &blk) {
  std::string problem = gemm::checkRegisterTile(blk);
  if (!problem.empty())
    return problem;
  if (blk.kc < 1)
    return ("kc must be at least 1, got " + Twine(blk.kc)).str();
  if (blk.mc < blk.mr || blk.mc % blk.mr != 0)
    return ("mc must be a positive multiple of mr (" + Twine(blk.mr) +
            "), got " + Twine(blk.mc))
        .str();
  if (blk.nc < blk.nr || blk.nc % blk.nr != 0)
    return ("nc must be a positive multiple of nr (" + Twine(blk.nr) +
            "), got " + Twine(blk.nc))
        .str();
  return "";
}

FailureOr<GemmBlocking> mlir::wrapper::selectGemmBlocking(
    Operation *matmul, const GemmBlockingRequest &request, std::string &error) {
  GemmBlocking blk;
  blk.vl = request.vectorWidth;
  // The target recorded on the module (--wrapper-cpu-target), else the
  // host's.
  if (blk.vl == 0)
    blk.vl = getTargetVectorWidth(matmul);
  bool wide = blk.vl >= 16;
  blk.mr = request.mr ? request.mr : (wide ? 12 : 6);
  blk.nr = request.nr ? request.nr : 2 * blk.vl;
  blk.kc = request.kc;
  blk.mc =
      request.mc ? request.mc : std::max<int64_t>(1, 144 / blk.mr) * blk.mr;
  blk.nc = request.nc;
  error = checkGemmBlocking(blk);
  if (!error.empty())
    return failure();
  // With the default register tile, a static M smaller than mr gets a tile
  // of M rows (no rows of zeros computed), twice as wide when that still
  // fits the registers (M = 1 to 6: 4 vectors per row).
  auto product = dyn_cast_or_null<linalg::MatmulOp>(matmul);
  if (!product || request.mr != 0)
    return blk;
  int64_t rows =
      cast<ShapedType>(product.getOutputs()[0].getType()).getDimSize(0);
  if (ShapedType::isDynamic(rows) || rows >= blk.mr || rows < 1)
    return blk;
  blk.mr = rows;
  if (request.nr == 0 && rows <= 6 && blk.nc % (4 * blk.vl) == 0)
    blk.nr = 4 * blk.vl;
  blk.mc = std::max<int64_t>(1, 144 / blk.mr) * blk.mr;
  return blk;
}

std::optional<GemmBlocking>
mlir::wrapper::getRecordedGemmBlocking(Operation *op) {
  auto dict = op->getAttrOfType<DictionaryAttr>(kGemmBlockingAttrName);
  if (!dict)
    return std::nullopt;
  GemmBlocking blk;
  for (auto [name, field] : {std::pair<StringRef, int64_t *>{"mr", &blk.mr},
                             {"nr", &blk.nr},
                             {"vl", &blk.vl},
                             {"kc", &blk.kc},
                             {"mc", &blk.mc},
                             {"nc", &blk.nc}}) {
    auto value = dict.getAs<IntegerAttr>(name);
    if (!value)
      return std::nullopt;
    *field = value.getInt();
  }
  return blk;
}

void mlir::wrapper::setRecordedGemmBlocking(Operation *op,
                                            const GemmBlocking &blk) {
  Builder b(op->getContext());
  op->setAttr(kGemmBlockingAttrName,
              b.getDictionaryAttr({
                  b.getNamedAttr("kc", b.getI64IntegerAttr(blk.kc)),
                  b.getNamedAttr("mc", b.getI64IntegerAttr(blk.mc)),
                  b.getNamedAttr("mr", b.getI64IntegerAttr(blk.mr)),
                  b.getNamedAttr("nc", b.getI64IntegerAttr(blk.nc)),
                  b.getNamedAttr("nr", b.getI64IntegerAttr(blk.nr)),
                  b.getNamedAttr("vl", b.getI64IntegerAttr(blk.vl)),
              }));
}
