// The GEMM micro-kernel alone: declared here, defined by
// --wrapper-gemm-template, called on packed panels of known values and
// compared with a naive triple loop written here. Both register blockings
// (AVX-512 12x32 with 16 lanes, AVX2 6x16 with 8 lanes) run on any x86 host
// (LLVM splits vectors the target does not have).
// RUN: wrapper-opt %s --wrapper-gemm-template --wrapper-cpu-codegen=parallel=false | mlir-runner -e main -entry-point-result=void -shared-libs=%runner_libs | FileCheck %s
// RUN: wrapper-opt %s --wrapper-gemm-template | FileCheck %s --check-prefix=IR
// IR-LABEL: func.func private @__wrapper_gemm_ukernel_f32_12x32_v16
// IR-SAME: wrapper.gemm_micro_kernel
// IR-COUNT-24: vector.fma
// IR-LABEL: func.func private @__wrapper_gemm_ukernel_f32_6x16_v8
// IR-COUNT-12: vector.fma
// CHECK: 12x32 k=7 store: max error 0
// CHECK: 12x32 k=5 accumulate: max error 0
// CHECK: 6x16 k=9 store: max error 0

func.func private @__wrapper_gemm_ukernel_f32_12x32_v16(memref<?xf32>, index, memref<?xf32>, index, index, memref<12x32xf32, strided<[?, 1], offset: ?>>, i1)
func.func private @__wrapper_gemm_ukernel_f32_6x16_v8(memref<?xf32>, index, memref<?xf32>, index, index, memref<6x16xf32, strided<[?, 1], offset: ?>>, i1)

// Fills Ap (k x mr, offset aOff) and Bp (k x nr, offset bOff) with small
// integers (exact in f32), runs the micro-kernel into C (a tile of a wider
// buffer, so that the row stride is not nr) and returns the largest
// difference from the naive sum (plus C's old value when accumulating).
func.func @check(%mr: index, %nr: index, %k: index, %acc: i1, %kernel: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c40 = arith.constant 40 : index
  %zero = arith.constant 0.0 : f32
  %aOff = arith.constant 5 : index
  %bOff = arith.constant 3 : index
  %aSize = arith.muli %k, %mr : index
  %aLen = arith.addi %aSize, %aOff : index
  %bSize = arith.muli %k, %nr : index
  %bLen = arith.addi %bSize, %bOff : index
  %ap = memref.alloc(%aLen) : memref<?xf32>
  %bp = memref.alloc(%bLen) : memref<?xf32>
  %c = memref.alloc() : memref<16x40xf32>
  %old = memref.alloc() : memref<16x40xf32>
  scf.for %i = %c0 to %aLen step %c1 {
    %v = arith.remui %i, %c3 : index
    %w = arith.index_cast %v : index to i32
    %f = arith.sitofp %w : i32 to f32
    %g = arith.subf %f, %zero : f32
    memref.store %g, %ap[%i] : memref<?xf32>
  }
  scf.for %i = %c0 to %bLen step %c1 {
    %v = arith.remui %i, %c40 : index
    %w = arith.index_cast %v : index to i32
    %f = arith.sitofp %w : i32 to f32
    memref.store %f, %bp[%i] : memref<?xf32>
  }
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c16 step %c1 {
    scf.for %j = %c0 to %c40 step %c1 {
      %s = arith.addi %i, %j : index
      %w = arith.index_cast %s : index to i32
      %f = arith.sitofp %w : i32 to f32
      memref.store %f, %c[%i, %j] : memref<16x40xf32>
      memref.store %f, %old[%i, %j] : memref<16x40xf32>
    }
  }
  %c2 = arith.constant 2 : index
  %is12 = arith.cmpi eq, %kernel, %c0 : index
  scf.if %is12 {
    %tile = memref.subview %c[1, 2] [12, 32] [1, 1] : memref<16x40xf32> to memref<12x32xf32, strided<[40, 1], offset: 42>>
    %cast = memref.cast %tile : memref<12x32xf32, strided<[40, 1], offset: 42>> to memref<12x32xf32, strided<[?, 1], offset: ?>>
    func.call @__wrapper_gemm_ukernel_f32_12x32_v16(%ap, %aOff, %bp, %bOff, %k, %cast, %acc) : (memref<?xf32>, index, memref<?xf32>, index, index, memref<12x32xf32, strided<[?, 1], offset: ?>>, i1) -> ()
  } else {
    %tile = memref.subview %c[1, 2] [6, 16] [1, 1] : memref<16x40xf32> to memref<6x16xf32, strided<[40, 1], offset: 42>>
    %cast = memref.cast %tile : memref<6x16xf32, strided<[40, 1], offset: 42>> to memref<6x16xf32, strided<[?, 1], offset: ?>>
    func.call @__wrapper_gemm_ukernel_f32_6x16_v8(%ap, %aOff, %bp, %bOff, %k, %cast, %acc) : (memref<?xf32>, index, memref<?xf32>, index, index, memref<6x16xf32, strided<[?, 1], offset: ?>>, i1) -> ()
  }
  // The naive reference over the whole 16 x 40 buffer: inside the tile
  // the product (plus the old value when accumulating), outside it the old
  // value untouched.
  %err = scf.for %i = %c0 to %c16 step %c1 iter_args(%e0 = %zero) -> f32 {
    %e1 = scf.for %j = %c0 to %c40 step %c1 iter_args(%e = %e0) -> f32 {
      %r = arith.subi %i, %c1 : index
      %q = arith.subi %j, %c2 : index
      %rIn0 = arith.cmpi sge, %i, %c1 : index
      %rIn1 = arith.cmpi slt, %r, %mr : index
      %qIn0 = arith.cmpi sge, %j, %c2 : index
      %qIn1 = arith.cmpi slt, %q, %nr : index
      %in0 = arith.andi %rIn0, %rIn1 : i1
      %in1 = arith.andi %qIn0, %qIn1 : i1
      %in = arith.andi %in0, %in1 : i1
      %o = memref.load %old[%i, %j] : memref<16x40xf32>
      %expected = scf.if %in -> f32 {
        %start = arith.select %acc, %o, %zero : f32
        %sum = scf.for %kk = %c0 to %k step %c1 iter_args(%s = %start) -> f32 {
          %ai0 = arith.muli %kk, %mr : index
          %ai1 = arith.addi %ai0, %r : index
          %ai = arith.addi %ai1, %aOff : index
          %bi0 = arith.muli %kk, %nr : index
          %bi1 = arith.addi %bi0, %q : index
          %bi = arith.addi %bi1, %bOff : index
          %a = memref.load %ap[%ai] : memref<?xf32>
          %b = memref.load %bp[%bi] : memref<?xf32>
          %p = arith.mulf %a, %b : f32
          %s1 = arith.addf %s, %p : f32
          scf.yield %s1 : f32
        }
        scf.yield %sum : f32
      } else {
        scf.yield %o : f32
      }
      %got = memref.load %c[%i, %j] : memref<16x40xf32>
      %d = arith.subf %got, %expected : f32
      %ad = math.absf %d : f32
      %m = arith.maximumf %e, %ad : f32
      scf.yield %m : f32
    }
    scf.yield %e1 : f32
  }
  return %err : f32
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %c7 = arith.constant 7 : index
  %c9 = arith.constant 9 : index
  %c12 = arith.constant 12 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %true = arith.constant true
  %false = arith.constant false
  %e0 = func.call @check(%c12, %c32, %c7, %false, %c0) : (index, index, index, i1, index) -> f32
  vector.print str "12x32 k=7 store: max error "
  vector.print %e0 : f32
  %e1 = func.call @check(%c12, %c32, %c5, %true, %c0) : (index, index, index, i1, index) -> f32
  vector.print str "12x32 k=5 accumulate: max error "
  vector.print %e1 : f32
  %e2 = func.call @check(%c6, %c16, %c9, %false, %c1) : (index, index, index, i1, index) -> f32
  vector.print str "6x16 k=9 store: max error "
  vector.print %e2 : f32
  return
}

// Declarations that are not a micro-kernel's are errors.
// RUN: not wrapper-opt %S/Inputs/bad-micro-kernels.mlir --split-input-file --wrapper-gemm-template 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: wrapper-gemm-template: a micro-kernel is named __wrapper_gemm_ukernel_f32_<mr>x<nr>_v<vl>
// BAD: error: wrapper-gemm-template: micro-kernel nr must be 1 to 8 times the vector width (16), got 24
// BAD: error: wrapper-gemm-template: micro-kernel declared with type '(memref<?xf32>) -> ()', expected
