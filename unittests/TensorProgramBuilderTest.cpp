//===- TensorProgramBuilderTest.cpp - building tensor_program in C++ ------===//
//
// Part of the Wrapper project.
//
// The C++ API that an importer uses: ops built without result types get
// them inferred; folders run through the builder.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Dialect/TensorProgram/IR/TensorProgramOps.h"
#include "Wrapper/InitAll.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::tensor_program;

namespace {
class TensorProgramBuilderTest : public ::testing::Test {
protected:
  TensorProgramBuilderTest() {
    DialectRegistry registry;
    wrapper::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// A function with arguments of `types`, and a builder inside it.
  func::FuncOp makeFunc(TypeRange types) {
    OpBuilder builder(&context);
    module = ModuleOp::create(builder.getUnknownLoc());
    builder.setInsertionPointToEnd(module->getBody());
    auto func = func::FuncOp::create(builder, builder.getUnknownLoc(), "f",
                                     builder.getFunctionType(types, {}));
    func.addEntryBlock();
    return func;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

TEST_F(TensorProgramBuilderTest, InfersBroadcastResult) {
  auto f32 = Float32Type::get(&context);
  auto a = RankedTensorType::get({4, 1}, f32);
  auto b = RankedTensorType::get({8}, f32);
  func::FuncOp func = makeFunc({a, b});
  OpBuilder builder = OpBuilder::atBlockEnd(&func.getBody().front());
  Location loc = builder.getUnknownLoc();
  auto add =
      AddOp::create(builder, loc, func.getArgument(0), func.getArgument(1));
  EXPECT_EQ(add.getType(), RankedTensorType::get({4, 8}, f32));
  auto sum =
      ReduceSumOp::create(builder, loc, add, builder.getDenseI64ArrayAttr({1}),
                          /*keepdim=*/true);
  EXPECT_EQ(sum.getType(), RankedTensorType::get({4, 1}, f32));
  auto cmp = CompareOp::create(builder, loc, ComparePredicate::gt, add, sum);
  EXPECT_EQ(cmp.getType(),
            RankedTensorType::get({4, 8}, IntegerType::get(&context, 1)));
  func::ReturnOp::create(builder, loc);
  EXPECT_TRUE(succeeded(verify(*module)));
}

TEST_F(TensorProgramBuilderTest, InfersContractionResult) {
  auto f32 = Float32Type::get(&context);
  auto x = RankedTensorType::get({ShapedType::kDynamic, 8}, f32);
  auto w = RankedTensorType::get({16, 8}, f32);
  func::FuncOp func = makeFunc({x, w});
  OpBuilder builder = OpBuilder::atBlockEnd(&func.getBody().front());
  Location loc = builder.getUnknownLoc();
  auto linear = LinearOp::create(builder, loc, func.getArgument(0),
                                 func.getArgument(1), Value());
  EXPECT_EQ(linear.getType(),
            RankedTensorType::get({ShapedType::kDynamic, 16}, f32));
  auto perm = PermuteOp::create(builder, loc, linear,
                                builder.getDenseI64ArrayAttr({1, 0}));
  EXPECT_EQ(perm.getType(),
            RankedTensorType::get({16, ShapedType::kDynamic}, f32));
}

TEST_F(TensorProgramBuilderTest, FoldsThroughTheBuilder) {
  auto f32 = Float32Type::get(&context);
  auto t = RankedTensorType::get({4}, f32);
  func::FuncOp func = makeFunc({t});
  OpBuilder builder = OpBuilder::atBlockEnd(&func.getBody().front());
  Location loc = builder.getUnknownLoc();
  Value x = func.getArgument(0);
  Value neg = builder.createOrFold<NegOp>(loc, x);
  Value back = builder.createOrFold<NegOp>(loc, neg);
  EXPECT_EQ(back, x);
}

TEST_F(TensorProgramBuilderTest, InvalidOperandsFailVerification) {
  auto f32 = Float32Type::get(&context);
  auto a = RankedTensorType::get({4, 3}, f32);
  auto b = RankedTensorType::get({4}, f32);
  func::FuncOp func = makeFunc({a, b});
  OpBuilder builder = OpBuilder::atBlockEnd(&func.getBody().front());
  Location loc = builder.getUnknownLoc();
  // Inference fails silently in a builder without a location; build the op
  // with an explicit (wrong) result type and let the verifier speak.
  OperationState state(loc, AddOp::getOperationName());
  state.addOperands({func.getArgument(0), func.getArgument(1)});
  state.addTypes(a);
  builder.create(state);
  func::ReturnOp::create(builder, loc);
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    message += diag.str() + "\n";
    return success();
  });
  EXPECT_TRUE(failed(verify(*module)));
  EXPECT_NE(message.find("does not broadcast"), std::string::npos) << message;
}
} // namespace
