// RUN: wrapper-opt %s --wrapper-erase-dead-casts | FileCheck %s

// A chain of unused casts goes (the later one first, then the one that fed
// only it); a cast with a use stays.

// CHECK-LABEL: func.func @casts
// CHECK-SAME: (%[[A:.*]]: i64)
// CHECK-NEXT: %[[USED:.*]] = builtin.unrealized_conversion_cast %[[A]] : i64 to index
// CHECK-NEXT: return %[[USED]]
func.func @casts(%a: i64) -> index {
  %0 = builtin.unrealized_conversion_cast %a : i64 to i32
  %1 = builtin.unrealized_conversion_cast %0 : i32 to f32
  %2 = builtin.unrealized_conversion_cast %a : i64 to index
  return %2 : index
}
