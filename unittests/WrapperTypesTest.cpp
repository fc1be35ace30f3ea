//===- WrapperTypesTest.cpp - wrapper types and buffer helpers ------------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Dialect/Wrapper/IR/WrapperOps.h"
#include "Wrapper/InitAll.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/MLIRContext.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::wrapper;

namespace {
class WrapperTypesTest : public ::testing::Test {
protected:
  WrapperTypesTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }
  MemRefType memref(StringRef text) {
    return cast<MemRefType>(parseType(text, &context));
  }
  MLIRContext context;
};

TEST_F(WrapperTypesTest, DeviceOfABuffer) {
  EXPECT_EQ(getBufferDevice(memref("memref<4xf32>")).str(), "cpu");
  EXPECT_EQ(
      getBufferDevice(memref("memref<4xf32, #wrapper.device<cuda:3>>")).str(),
      "cuda:3");
  EXPECT_FALSE(getBufferDevice(memref("memref<4xf32, 1>")));
}

TEST_F(WrapperTypesTest, StorageExtent) {
  EXPECT_EQ(getStorageExtent(memref("memref<4x8xf32>")), 32);
  // Padded row stride: the last row ends at 3 * 16 + 8.
  EXPECT_EQ(getStorageExtent(memref("memref<4x8xf32, strided<[16, 1]>>")), 56);
  EXPECT_EQ(
      getStorageExtent(memref("memref<2x2xf32, strided<[4, 1], offset: 5>>")),
      11);
  EXPECT_EQ(getStorageExtent(memref("memref<0x8xf32>")), 0);
  EXPECT_EQ(getStorageExtent(memref("memref<?x8xf32>")), std::nullopt);
  EXPECT_EQ(getStorageBytes(memref("memref<4x8xf16>")), 64);
  EXPECT_EQ(getStorageBytes(memref("memref<3xi1>")), 3);
  bool overflow = false;
  EXPECT_EQ(
      getStorageExtent(memref("memref<4611686018427387904x4xf32>"), &overflow),
      std::nullopt);
  EXPECT_TRUE(overflow);
}
} // namespace
