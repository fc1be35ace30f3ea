//===- GemmMicroKernel.cpp - the GEMM template's micro-kernel -------------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//
//
// The register-tiled micro-kernel of --wrapper-gemm-template: a private
// function per register tile that keeps an mr x nr tile of C in vector
// registers through its k loop (docs/Rationale/GemmTemplate.md).
//
//===----------------------------------------------------------------------===//

#include "GemmTemplate.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/X86Vector/X86VectorDialect.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::wrapper;
using namespace mlir::wrapper::gemm;

/// The name of the micro-kernel for a blocking and panel format.
static std::string microKernelName(const Blocking &blk,
                                   const PanelFormat &format) {
  return llvm::formatv("__wrapper_gemm_ukernel_{0}_{1}x{2}_v{3}",
                       format.isPairs() ? "bf16x2" : "f32", blk.mr, blk.nr,
                       blk.vl);
}

/// The micro-kernel's type: (Ap, aOff, Bp, bOff, kc, C tile, accumulate).
static FunctionType microKernelType(MLIRContext *context, const Blocking &blk,
                                    Type panel) {
  Type f32 = Float32Type::get(context);
  Type index = IndexType::get(context);
  auto flat = MemRefType::get({ShapedType::kDynamic}, panel);
  auto tileType =
      MemRefType::get({blk.mr, blk.nr}, f32,
                      StridedLayoutAttr::get(context, ShapedType::kDynamic,
                                             {ShapedType::kDynamic, 1}));
  return FunctionType::get(
      context,
      {flat, index, flat, index, index, tileType, IntegerType::get(context, 1)},
      {});
}

static void buildMicroKernelBody(func::FuncOp func, const Blocking &blk,
                                 const PanelFormat &format);

func::FuncOp gemm::getOrCreateMicroKernel(ModuleOp module, const Blocking &blk,
                                          const PanelFormat &format) {
  std::string name = microKernelName(blk, format);
  if (auto existing = module.lookupSymbol<func::FuncOp>(name))
    return existing;
  MLIRContext *context = module.getContext();
  Location loc = NameLoc::get(StringAttr::get(context, name));
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  auto func = func::FuncOp::create(
      b, loc, name, microKernelType(context, blk, format.panel));
  func.setPrivate();
  buildMicroKernelBody(func, blk, format);
  return func;
}

/// The accumulators are mr * nr / vl vectors carried through the k loop.
/// f32 panels: per k, nr / vl vectors of B and mr broadcast values of A, an
/// FMA each. bf16 pairs: per pair of k, nr / vl vectors of 2 * vl bf16 (vl
/// pairs) of B and, per row, the pair of A broadcast to every lane (as one
/// 32-bit value), a vdpbf16ps each (x86vector.avx512.dot).
static void buildMicroKernelBody(func::FuncOp func, const Blocking &blk,
                                 const PanelFormat &format) {
  MLIRContext *context = func.getContext();
  Location loc = func.getLoc();
  Type f32 = Float32Type::get(context);
  func->setAttr("wrapper.gemm_micro_kernel", UnitAttr::get(context));
  OpBuilder b(context);
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToStart(entry);
  Emitter e(b, loc);
  Value ap = entry->getArgument(0), aOff = entry->getArgument(1);
  Value bp = entry->getArgument(2), bOff = entry->getArgument(3);
  Value kc = entry->getArgument(4), c = entry->getArgument(5);
  Value accumulate = entry->getArgument(6);
  int64_t nv = blk.nr / blk.vl;
  auto vecType = VectorType::get({blk.vl}, f32);

  // The accumulators start at zero and C is added after the k loop: its
  // lines (likely in L2, a row stride apart) are prefetched now and arrive
  // while the FMAs run, instead of stalling the first ones.
  for (int64_t r = 0; r < blk.mr; ++r)
    for (int64_t j = 0; j < blk.nr; j += std::max<int64_t>(blk.vl, 16))
      memref::PrefetchOp::create(b, loc, c, ValueRange{e.idx(r), e.idx(j)},
                                 /*isWrite=*/true, /*localityHint=*/3,
                                 /*isDataCache=*/true);
  Value zero = arith::ConstantOp::create(b, loc, vecType,
                                         DenseElementsAttr::get(vecType, 0.0f));
  SmallVector<Value> zeros(blk.mr * nv, zero);

  auto pairLoop = [&](OpBuilder &nb, Location l, Value k2, ValueRange accs) {
    Emitter ne(nb, l);
    Type bf16 = nb.getBF16Type();
    auto pairsType = VectorType::get({2 * blk.vl}, bf16);
    auto pairType = VectorType::get({2}, bf16);
    auto oneWord = VectorType::get({1}, nb.getI32Type());
    auto words = VectorType::get({blk.vl}, nb.getI32Type());
    Value bRow = ne.add(bOff, ne.mul(k2, 2 * blk.nr));
    SmallVector<Value> bVecs;
    for (int64_t j = 0; j < nv; ++j)
      bVecs.push_back(vector::LoadOp::create(
          nb, l, pairsType, bp, ValueRange{ne.add(bRow, 2 * j * blk.vl)}));
    Value aCol = ne.add(aOff, ne.mul(k2, 2 * blk.mr));
    SmallVector<Value> next;
    for (int64_t r = 0; r < blk.mr; ++r) {
      Value pair = vector::LoadOp::create(nb, l, pairType, ap,
                                          ValueRange{ne.add(aCol, 2 * r)});
      Value word = vector::BitCastOp::create(nb, l, oneWord, pair);
      Value splat = vector::BroadcastOp::create(
          nb, l, words, vector::ExtractOp::create(nb, l, word, 0));
      Value aVec = vector::BitCastOp::create(nb, l, pairsType, splat);
      for (int64_t j = 0; j < nv; ++j)
        next.push_back(x86vector::DotBF16Op::create(
            nb, l, vecType, accs[r * nv + j], aVec, bVecs[j]));
    }
    scf::YieldOp::create(nb, l, next);
  };
  auto kLoop = format.isPairs()
      ? scf::ForOp::create(b, loc, e.idx(0), e.ceilDiv(kc, 2), e.idx(1), zeros,
                           pairLoop)
      : scf::ForOp::create(
      b, loc, e.idx(0), kc, e.idx(1), zeros,
      [&](OpBuilder &nb, Location l, Value k, ValueRange accs) {
        Emitter ne(nb, l);
        Value bRow = ne.add(bOff, ne.mul(k, blk.nr));
        SmallVector<Value> bVecs;
        for (int64_t j = 0; j < nv; ++j)
          bVecs.push_back(vector::LoadOp::create(
              nb, l, vecType, bp, ValueRange{ne.add(bRow, j * blk.vl)}));
        Value aCol = ne.add(aOff, ne.mul(k, blk.mr));
        SmallVector<Value> next;
        for (int64_t r = 0; r < blk.mr; ++r) {
          Value a =
              memref::LoadOp::create(nb, l, ap, ValueRange{ne.add(aCol, r)});
          Value splat = vector::BroadcastOp::create(nb, l, vecType, a);
          for (int64_t j = 0; j < nv; ++j)
            next.push_back(vector::FMAOp::create(nb, l, splat, bVecs[j],
                                                 accs[r * nv + j]));
        }
        scf::YieldOp::create(nb, l, next);
      });
  auto sums = scf::IfOp::create(
      b, loc, accumulate,
      [&](OpBuilder &nb, Location l) {
        Emitter ne(nb, l);
        SmallVector<Value> added;
        for (int64_t r = 0; r < blk.mr; ++r)
          for (int64_t j = 0; j < nv; ++j) {
            Value old = vector::LoadOp::create(
                nb, l, vecType, c, ValueRange{ne.idx(r), ne.idx(j * blk.vl)});
            added.push_back(
                arith::AddFOp::create(nb, l, old, kLoop.getResult(r * nv + j)));
          }
        scf::YieldOp::create(nb, l, added);
      },
      [&](OpBuilder &nb, Location l) {
        scf::YieldOp::create(nb, l, kLoop.getResults());
      });
  for (int64_t r = 0; r < blk.mr; ++r)
    for (int64_t j = 0; j < nv; ++j)
      vector::StoreOp::create(b, loc, sums.getResult(r * nv + j), c,
                              ValueRange{e.idx(r), e.idx(j * blk.vl)});
  func::ReturnOp::create(b, loc);
}

std::string gemm::checkRegisterTile(const Blocking &blk) {
  if (blk.vl < 1 || !llvm::isPowerOf2_64(blk.vl) || blk.vl > 64)
    return ("vector-width must be a power of two from 1 to 64, got " +
            Twine(blk.vl))
        .str();
  if (blk.mr < 1 || blk.mr > 32)
    return ("mr must be from 1 to 32, got " + Twine(blk.mr)).str();
  if (blk.nr < blk.vl || blk.nr % blk.vl != 0 || blk.nr / blk.vl > 8)
    return ("nr must be 1 to 8 times the vector width (" + Twine(blk.vl) +
            "), got " + Twine(blk.nr))
        .str();
  return "";
}

LogicalResult gemm::defineDeclaredMicroKernels(ModuleOp module) {
  for (auto func : module.getOps<func::FuncOp>()) {
    StringRef name = func.getSymName();
    if (!func.isExternal() ||
        !name.consume_front("__wrapper_gemm_ukernel_f32_"))
      continue;
    Blocking blk{};
    StringRef mr, rest, nr, vl;
    std::tie(mr, rest) = name.split('x');
    std::tie(nr, vl) = rest.split("_v");
    if (mr.getAsInteger(10, blk.mr) || nr.getAsInteger(10, blk.nr) ||
        vl.getAsInteger(10, blk.vl))
      return func.emitError("wrapper-gemm-template: a micro-kernel is named "
                            "__wrapper_gemm_ukernel_f32_<mr>x<nr>_v<vl>");
    std::string problem = checkRegisterTile(blk);
    if (!problem.empty())
      return func.emitError("wrapper-gemm-template: micro-kernel ") << problem;
    auto format = PanelFormat::extended(Float32Type::get(func.getContext()));
    FunctionType expected =
        microKernelType(func.getContext(), blk, format.panel);
    if (func.getFunctionType() != expected)
      return func.emitError("wrapper-gemm-template: micro-kernel declared "
                            "with type ")
             << func.getFunctionType() << ", expected " << expected;
    buildMicroKernelBody(func, blk, format);
  }
  return success();
}
