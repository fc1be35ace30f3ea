//===- ShapeInferenceTest.cpp - tensor_program shape rules ----------------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Dialect/TensorProgram/IR/ShapeInference.h"

#include "mlir/IR/BuiltinTypeInterfaces.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::tensor_program;

namespace {
constexpr int64_t kDyn = ShapedType::kDynamic;

SmallVector<int64_t> shapeOf(const ShapeResult &result) {
  EXPECT_TRUE(result.ok()) << result.error;
  return result.shape;
}

TEST(BroadcastShapes, NumpyRules) {
  SmallVector<int64_t> a = {4, 1}, b = {8}, scalar = {};
  EXPECT_EQ(shapeOf(broadcastShapes({a, b})), (SmallVector<int64_t>{4, 8}));
  EXPECT_EQ(shapeOf(broadcastShapes({scalar, a})),
            (SmallVector<int64_t>{4, 1}));
  SmallVector<int64_t> c = {2, 1, 3}, d = {5, 1};
  EXPECT_EQ(shapeOf(broadcastShapes({c, d})), (SmallVector<int64_t>{2, 5, 3}));
}

TEST(BroadcastShapes, DynamicDimensions) {
  SmallVector<int64_t> dyn = {kDyn, 8}, one = {1, 8}, four = {4, 8};
  EXPECT_EQ(shapeOf(broadcastShapes({dyn, one})),
            (SmallVector<int64_t>{kDyn, 8}));
  // A dynamic size meeting a static size S != 1 takes S.
  EXPECT_EQ(shapeOf(broadcastShapes({dyn, four})),
            (SmallVector<int64_t>{4, 8}));
  EXPECT_EQ(shapeOf(broadcastShapes({four, dyn})),
            (SmallVector<int64_t>{4, 8}));
  EXPECT_EQ(shapeOf(broadcastShapes({dyn, dyn})),
            (SmallVector<int64_t>{kDyn, 8}));
}

TEST(BroadcastShapes, NamesTheOffendingOperand) {
  SmallVector<int64_t> a = {4, 3}, b = {4};
  ShapeResult result = broadcastShapes({a, b});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error, "operand #1 dimension 0 has size 4, which does not "
                          "broadcast with size 3 of operand #0 [4, 3]");
}

TEST(ReduceShape, KeepAndDrop) {
  SmallVector<int64_t> x = {2, kDyn, 4};
  EXPECT_EQ(shapeOf(reduceShape(x, {1}, false)), (SmallVector<int64_t>{2, 4}));
  EXPECT_EQ(shapeOf(reduceShape(x, {0, 2}, true)),
            (SmallVector<int64_t>{1, kDyn, 1}));
  EXPECT_FALSE(reduceShape(x, {3}, false).ok());
  EXPECT_FALSE(reduceShape(x, {1, 1}, false).ok());
  EXPECT_FALSE(reduceShape(x, {}, false).ok());
}

TEST(SliceShape, ClampsLikeATen) {
  SmallVector<int64_t> x = {4, 8};
  EXPECT_EQ(shapeOf(sliceShape(x, 1, 2, 6, 2)), (SmallVector<int64_t>{4, 2}));
  EXPECT_EQ(shapeOf(sliceShape(x, 1, 3, INT64_MAX, 1)),
            (SmallVector<int64_t>{4, 5}));
  EXPECT_EQ(shapeOf(sliceShape(x, 1, 9, 12, 1)), (SmallVector<int64_t>{4, 0}));
  EXPECT_EQ(shapeOf(sliceShape(x, 1, 1, 8, 3)), (SmallVector<int64_t>{4, 3}));
  SmallVector<int64_t> d = {kDyn};
  EXPECT_EQ(shapeOf(sliceShape(d, 0, 1, INT64_MAX, 1)),
            (SmallVector<int64_t>{kDyn}));
  EXPECT_FALSE(sliceShape(x, 0, 0, 4, 0).ok());
}

TEST(MatmulShape, BroadcastsBatch) {
  SmallVector<int64_t> q = {2, 4, 16, 8}, k = {4, 8, 16};
  EXPECT_EQ(shapeOf(matmulShape(q, k)), (SmallVector<int64_t>{2, 4, 16, 16}));
  SmallVector<int64_t> a = {kDyn, 8}, b = {8, 3};
  EXPECT_EQ(shapeOf(matmulShape(a, b)), (SmallVector<int64_t>{kDyn, 3}));
  SmallVector<int64_t> bad = {16, 3};
  EXPECT_FALSE(matmulShape(a, bad).ok());
}

TEST(ConcatAndPad, Shapes) {
  SmallVector<int64_t> a = {2, 8}, b = {3, 8}, c = {kDyn, 8};
  EXPECT_EQ(shapeOf(concatShape({a, b}, 0)), (SmallVector<int64_t>{5, 8}));
  EXPECT_EQ(shapeOf(concatShape({a, c}, 0)), (SmallVector<int64_t>{kDyn, 8}));
  EXPECT_FALSE(concatShape({a, b}, 1).ok());
  EXPECT_EQ(shapeOf(padShape(a, {1, 0}, {0, 2})),
            (SmallVector<int64_t>{3, 10}));
}

TEST(NumElements, OverflowIsNotACount) {
  EXPECT_EQ(getNumElements({4, 8}), 32);
  EXPECT_EQ(getNumElements({}), 1);
  EXPECT_EQ(getNumElements({kDyn, 8}), std::nullopt);
  EXPECT_EQ(getNumElements({int64_t(1) << 40, int64_t(1) << 40}), std::nullopt);
}
} // namespace
