//===- FusionStrategyTest.cpp - fusion plans checked and applied ----------===//
//
// Part of the Wrapper project.
//
// The shared legality check refuses what a strategy must not propose (a
// cycle of fused ops, an op in two groups without recomputation, a product
// with a prologue, reductions over different spaces, unfusible ops), and a
// strategy registered from outside the pass runs through
// --tensor-program-fuse{strategy=...}.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Dialect/TensorProgram/Transforms/FusionStrategy.h"
#include "Wrapper/Dialect/TensorProgram/Transforms/Passes.h"
#include "Wrapper/InitAll.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::tensor_program;

namespace {
class FusionStrategyTest : public ::testing::Test {
protected:
  FusionStrategyTest() {
    DialectRegistry registry;
    wrapper::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// Parses `text`; the ops of its first function by their result names'
  /// order of appearance.
  void parse(StringRef text) {
    module = parseSourceString<ModuleOp>(text, &context);
    ASSERT_TRUE(module);
    func = *module->getOps<func::FuncOp>().begin();
    for (Operation &op : func.getBody().front())
      if (op.getNumResults() == 1)
        ops.push_back(&op);
  }

  std::optional<std::string> check(FusionPlan plan) {
    FusionGraph graph(func.getBody().front());
    return checkFusionPlan(graph, plan);
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  func::FuncOp func;
  SmallVector<Operation *> ops;
};

// %0 = a + b; %1 = relu %0; %2 = %0 * %1 (a diamond).
constexpr StringLiteral kDiamond = R"mlir(
func.func @f(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tensor_program.add %a, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = tensor_program.relu %0 : tensor<4x8xf32>
  %2 = tensor_program.mul %0, %1 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}
)mlir";

TEST_F(FusionStrategyTest, AcceptsLegalGroups) {
  parse(kDiamond);
  FusionPlan plan;
  plan.groups.push_back({ops[0], ops[1], ops[2]});
  EXPECT_EQ(check(plan), std::nullopt);
}

TEST_F(FusionStrategyTest, RefusesACycle) {
  // {add, mul} needs relu, which needs add: the two fused ops would feed
  // each other.
  parse(kDiamond);
  FusionPlan plan;
  plan.groups.push_back({ops[0], ops[2]});
  std::optional<std::string> problem = check(plan);
  ASSERT_TRUE(problem);
  EXPECT_NE(problem->find("the groups make a cycle of fused ops"),
            std::string::npos)
      << *problem;
}

TEST_F(FusionStrategyTest, RefusesAnOpInTwoGroupsUnlessRecomputed) {
  parse(kDiamond);
  FusionPlan plan;
  plan.groups.push_back({ops[0], ops[1]});
  plan.groups.push_back({ops[0], ops[2]});
  std::optional<std::string> problem = check(plan);
  ASSERT_TRUE(problem);
  EXPECT_NE(problem->find("is in groups #0 and #1 but the strategy did not "
                          "ask to recompute it"),
            std::string::npos)
      << *problem;
  plan.recompute.insert(ops[0]);
  EXPECT_EQ(check(plan), std::nullopt);
}

TEST_F(FusionStrategyTest, ProductsTakeEpiloguesOnly) {
  parse(R"mlir(
func.func @f(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %0 = tensor_program.relu %x : tensor<4x8xf32>
  %1 = tensor_program.matmul %0, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %2 = tensor_program.relu %1 : tensor<4x16xf32>
  return %2 : tensor<4x16xf32>
}
)mlir");
  FusionPlan epilogue;
  epilogue.groups.push_back({ops[1], ops[2]});
  EXPECT_EQ(check(epilogue), std::nullopt);
  FusionPlan prologue;
  prologue.groups.push_back({ops[0], ops[1]});
  std::optional<std::string> problem = check(prologue);
  ASSERT_TRUE(problem);
  EXPECT_NE(problem->find("does not consume its result (products take "
                          "epilogues and transposes of their operands only)"),
            std::string::npos)
      << *problem;
}

TEST_F(FusionStrategyTest, ProductsTakeTransposesOfTheirOperands) {
  // %0 transposes the product's A and only the product reads it; %1 is a
  // transpose the product reads but that is read by the return too; %3 is
  // a 2-D transpose of something else.
  parse(R"mlir(
func.func @f(%x: tensor<8x4xf32>, %w: tensor<16x8xf32>) -> (tensor<4x16xf32>, tensor<8x16xf32>, tensor<8x4xf32>) {
  %0 = tensor_program.permute %x [1, 0] : tensor<8x4xf32> -> tensor<4x8xf32>
  %1 = tensor_program.permute %w [1, 0] : tensor<16x8xf32> -> tensor<8x16xf32>
  %2 = tensor_program.matmul %0, %1 : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %3 = tensor_program.permute %0 [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  return %2, %1, %3 : tensor<4x16xf32>, tensor<8x16xf32>, tensor<8x4xf32>
}
)mlir");
  EXPECT_EQ(FusionGraph::getTransposedOperandUser(ops[0]), nullptr)
      << "%0 is also read by %3";
  EXPECT_EQ(FusionGraph::getTransposedOperandUser(ops[1]), nullptr)
      << "%1 is also returned";
  EXPECT_EQ(FusionGraph::getTransposedOperandUser(ops[3]), nullptr);
  ops.clear();
  parse(R"mlir(
func.func @f(%x: tensor<8x4xf32>, %w: tensor<16x8xf32>) -> tensor<4x16xf32> {
  %0 = tensor_program.permute %x [1, 0] : tensor<8x4xf32> -> tensor<4x8xf32>
  %1 = tensor_program.permute %w [1, 0] : tensor<16x8xf32> -> tensor<8x16xf32>
  %2 = tensor_program.matmul %0, %1 : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %3 = tensor_program.relu %2 : tensor<4x16xf32>
  return %3 : tensor<4x16xf32>
}
)mlir");
  EXPECT_EQ(FusionGraph::getTransposedOperandUser(ops[0]), ops[2]);
  EXPECT_EQ(FusionGraph::getTransposedOperandUser(ops[1]), ops[2]);
  FusionPlan plan;
  plan.groups.push_back({ops[0], ops[1], ops[2], ops[3]});
  EXPECT_EQ(check(plan), std::nullopt);
}

TEST_F(FusionStrategyTest, ReductionsShareOneSpace) {
  parse(R"mlir(
func.func @f(%x: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<8xf32>) {
  %0 = tensor_program.reduce_sum %x dims [1] : tensor<4x8xf32> -> tensor<4xf32>
  %1 = tensor_program.reduce_max %x dims [0] : tensor<4x8xf32> -> tensor<8xf32>
  return %0, %1 : tensor<4xf32>, tensor<8xf32>
}
)mlir");
  FusionPlan plan;
  plan.groups.push_back({ops[0], ops[1]});
  std::optional<std::string> problem = check(plan);
  ASSERT_TRUE(problem);
  EXPECT_NE(problem->find("reductions over different shapes or dimensions"),
            std::string::npos)
      << *problem;
}

/// A strategy defined outside the pass: fuses nothing but the first two
/// ops of the block.
struct FirstPair : public FusionStrategy {
  LogicalResult propose(const FusionGraph &graph, const FusionOptions &,
                        FusionPlan &plan) override {
    if (graph.getOps().size() >= 2)
      plan.groups.push_back({graph.getOps()[0], graph.getOps()[1]});
    return success();
  }
};

/// A buggy strategy: proposes the cycle of RefusesACycle.
struct Cyclic : public FusionStrategy {
  LogicalResult propose(const FusionGraph &graph, const FusionOptions &,
                        FusionPlan &plan) override {
    plan.groups.push_back({graph.getOps()[0], graph.getOps()[2]});
    return success();
  }
};

TEST_F(FusionStrategyTest, RegisteredStrategiesRunThroughThePass) {
  registerFusionStrategy("test-first-pair", "the first two ops",
                         [] { return std::make_unique<FirstPair>(); });
  registerFusionStrategy("test-cyclic", "proposes a cycle",
                         [] { return std::make_unique<Cyclic>(); });
  auto names = getFusionStrategies();
  for (StringRef name :
       {"none", "greedy", "cost", "horizontal", "test-first-pair"})
    EXPECT_TRUE(llvm::any_of(names, [&](const auto &entry) {
      return entry.first == name;
    })) << name.str();

  parse(kDiamond);
  PassManager pm(&context);
  TensorProgramFusePassOptions options;
  options.strategy = "test-first-pair";
  pm.addNestedPass<func::FuncOp>(createTensorProgramFusePass(options));
  ASSERT_TRUE(succeeded(pm.run(*module)));
  // add and relu in one fused op, mul in another.
  unsigned fused = 0;
  func.walk([&](FusedOp op) { ++fused; });
  EXPECT_EQ(fused, 2u);

  // The buggy strategy's proposal is refused with the strategy's name.
  ops.clear();
  parse(kDiamond);
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diagnostic) {
    message = diagnostic.str();
    return success();
  });
  PassManager cyclic(&context);
  options.strategy = "test-cyclic";
  cyclic.addNestedPass<func::FuncOp>(createTensorProgramFusePass(options));
  EXPECT_TRUE(failed(cyclic.run(*module)));
  EXPECT_NE(message.find("fusion strategy 'test-cyclic' proposed an illegal "
                         "grouping: the groups make a cycle of fused ops"),
            std::string::npos)
      << message;
}
} // namespace
