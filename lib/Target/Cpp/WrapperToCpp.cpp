//===- WrapperToCpp.cpp - wrapper host graphs as C++ ----------------------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//
//
// Translates the host graphs of a wrapper-level module into C++ through
// EmitC: each graph becomes an `emitc.func` whose body calls the helpers of
// Wrapper/Runtime/WrapperHost.hpp (`emitc.call_opaque` with template
// arguments), and upstream's C++ emitter prints it. Kernels are declared
// `extern "C"` with their `_mlir_ciface_` names: they are compiled by the
// LLVM path and linked with the emitted host.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Target/Cpp/WrapperToCpp.h"

#include "Wrapper/Dialect/Wrapper/IR/WrapperOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Target/Cpp/CppEmitter.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::wrapper;

/// The C++ type of an element, or empty when the emitter has none.
static std::string elementCType(Type type) {
  if (type.isF32())
    return "float";
  if (type.isF64())
    return "double";
  if (type.isF16())
    return "wrapper::f16";
  if (type.isBF16())
    return "wrapper::bf16";
  if (type.isInteger(1))
    return "bool";
  if (type.isSignlessInteger(8))
    return "int8_t";
  if (type.isSignlessInteger(16))
    return "int16_t";
  if (type.isSignlessInteger(32))
    return "int32_t";
  if (type.isSignlessInteger(64))
    return "int64_t";
  if (type.isUnsignedInteger(8))
    return "uint8_t";
  return "";
}

/// `wrapper::MemRef<T, N>` for a memref type, or empty.
static std::string memrefCType(MemRefType type) {
  std::string element = elementCType(type.getElementType());
  if (element.empty())
    return "";
  return "wrapper::MemRef<" + element + ", " + std::to_string(type.getRank()) +
         ">";
}

/// The C++ name of a graph's function: its symbol, except that a graph
/// named main becomes graph_main (main is the program's entry in C++).
static std::string cppFunctionName(StringRef graph) {
  return graph == "main" ? "graph_main" : graph.str();
}

/// A C++ literal of a float or double value (exact: 9 or 17 digits).
static std::string floatLiteral(const APFloat &value, bool isF32) {
  std::string type = isF32 ? "float" : "double";
  if (value.isNaN())
    return "std::numeric_limits<" + type + ">::quiet_NaN()";
  if (value.isInfinity())
    return std::string(value.isNegative() ? "-" : "") + "std::numeric_limits<" +
           type + ">::infinity()";
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::format(isF32 ? "%.9g" : "%.17g", value.convertToDouble());
  if (text.find_first_of(".e") == std::string::npos)
    text += ".0";
  return isF32 ? text + "f" : text;
}

/// A C string literal of `text`.
static std::string quote(StringRef text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

namespace {
/// Builds the EmitC module of one wrapper module.
class CppBuilder {
public:
  CppBuilder(ModuleOp source, ModuleOp target)
      : source(source), context(source.getContext()),
        b(OpBuilder::atBlockEnd(target.getBody())) {}

  LogicalResult build();

private:
  Type opaque(StringRef text) { return emitc::OpaqueType::get(context, text); }
  Attribute opaqueAttr(StringRef text) {
    return emitc::OpaqueAttr::get(context, text);
  }
  /// The EmitC type of a graph value, or null (with a diagnostic).
  Type convert(Operation *op, Type type);
  LogicalResult declareKernels();
  LogicalResult defineConstants();
  LogicalResult lowerGraph(GraphOp graph);
  LogicalResult lowerOp(Operation &op, OpBuilder &body, IRMapping &mapping,
                        ArrayRef<Value> outputs);
  /// An `emitc.call_opaque` with template arguments and `args` (operand
  /// indices as index attributes, other attributes printed as they are).
  Value call(OpBuilder &body, Location loc, StringRef callee, Type result,
             ValueRange operands, ArrayRef<Attribute> args,
             ArrayRef<Attribute> templateArgs = {});

  ModuleOp source;
  MLIRContext *context;
  OpBuilder b;
};
} // namespace

Type CppBuilder::convert(Operation *op, Type type) {
  if (auto memref = dyn_cast<MemRefType>(type)) {
    std::string text = memrefCType(memref);
    if (text.empty()) {
      op->emitError() << "the C++ emitter has no element type for " << type;
      return {};
    }
    return opaque(text);
  }
  if (type.isIndex() || type.isSignlessInteger(64))
    return IntegerType::get(context, 64);
  if (type.isIntOrFloat())
    return type;
  op->emitError() << "the C++ emitter cannot pass a value of type " << type;
  return {};
}

Value CppBuilder::call(OpBuilder &body, Location loc, StringRef callee,
                       Type result, ValueRange operands,
                       ArrayRef<Attribute> args,
                       ArrayRef<Attribute> templateArgs) {
  SmallVector<Type> results;
  if (result)
    results.push_back(result);
  auto op = emitc::CallOpaqueOp::create(
      body, loc, results, body.getStringAttr(callee), operands,
      args.empty() ? ArrayAttr() : body.getArrayAttr(args),
      templateArgs.empty() ? ArrayAttr() : body.getArrayAttr(templateArgs));
  return result ? op->getResult(0) : Value();
}

LogicalResult CppBuilder::declareKernels() {
  std::string text = "extern \"C\" {\n";
  llvm::raw_string_ostream os(text);
  for (KernelOp kernel : source.getOps<KernelOp>()) {
    SymbolTableCollection tables;
    FunctionOpInterface found = kernel.lookupImpl(tables);
    auto impl =
        dyn_cast_or_null<func::FuncOp>(found ? found.getOperation() : nullptr);
    if (!impl)
      return kernel.emitOpError()
             << "has no func.func implementation; the C++ emitter declares "
                "CPU kernels only";
    os << "void _mlir_ciface_" << impl.getName() << "(";
    SmallVector<std::string> params;
    for (Type type : impl.getArgumentTypes()) {
      auto memref = dyn_cast<MemRefType>(type);
      std::string text = memref ? memrefCType(memref) : "";
      if (text.empty())
        return kernel.emitOpError()
               << "takes a " << type
               << ", which the C++ emitter cannot pass to a kernel";
      params.push_back(text + " *");
    }
    llvm::interleaveComma(params, os);
    os << ");\n";
  }
  os << "}";
  emitc::VerbatimOp::create(b, source.getLoc(), b.getStringAttr(text));
  return success();
}

LogicalResult CppBuilder::defineConstants() {
  for (ConstantOp constant : source.getOps<ConstantOp>()) {
    if (constant.isExternal())
      return constant.emitOpError()
             << "is external; the C++ emitter embeds constant values";
    auto dense = dyn_cast<DenseElementsAttr>(*constant.getValue());
    MemRefType type = constant.getMemRefType();
    std::string element = elementCType(type.getElementType());
    if (!dense || element.empty() || type.getElementType().isF16() ||
        type.getElementType().isBF16())
      return constant.emitOpError()
             << "has a value the C++ emitter cannot print (dense f32, f64, "
                "bool or integer values only)";
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "alignas(64) static const " << element << " " << constant.getSymName()
       << "[" << std::max<int64_t>(1, type.getNumElements()) << "] = {";
    if (isa<FloatType>(type.getElementType())) {
      bool isF32 = type.getElementType().isF32();
      bool first = true;
      for (APFloat value : dense.getValues<APFloat>()) {
        os << (first ? "" : ", ") << floatLiteral(value, isF32);
        first = false;
      }
    } else {
      bool first = true;
      for (APInt value : dense.getValues<APInt>()) {
        os << (first ? "" : ", ");
        if (type.getElementType().isInteger(1))
          os << (value.isZero() ? "false" : "true");
        else
          os << value.getSExtValue();
        first = false;
      }
    }
    os << "};";
    emitc::VerbatimOp::create(b, constant.getLoc(), b.getStringAttr(text));
  }
  return success();
}

LogicalResult CppBuilder::lowerGraph(GraphOp graph) {
  // Arguments by value, results through pointers.
  SmallVector<Type> inputs;
  for (Type type : graph.getArgumentTypes()) {
    Type converted = convert(graph, type);
    if (!converted)
      return failure();
    inputs.push_back(converted);
  }
  for (Type type : graph.getResultTypes()) {
    Type converted = convert(graph, type);
    if (!converted)
      return failure();
    inputs.push_back(emitc::PointerType::get(converted));
  }
  auto func = emitc::FuncOp::create(b, graph.getLoc(),
                                    cppFunctionName(graph.getSymName()),
                                    b.getFunctionType(inputs, {}));
  Block *entry = func.addEntryBlock();
  OpBuilder body = OpBuilder::atBlockEnd(entry);
  IRMapping mapping;
  unsigned numArgs = graph.getNumArguments();
  for (unsigned i = 0; i < numArgs; ++i)
    mapping.map(graph.getArgument(i), entry->getArgument(i));
  SmallVector<Value> outputs(entry->getArguments().drop_front(numArgs));
  for (Operation &op : graph.getBody().front())
    if (failed(lowerOp(op, body, mapping, outputs)))
      return failure();
  return success();
}

LogicalResult CppBuilder::lowerOp(Operation &op, OpBuilder &body,
                                  IRMapping &mapping, ArrayRef<Value> outputs) {
  Location loc = op.getLoc();
  // Operands of the call being built, and its printed arguments: operand
  // indices (index attributes) or literals (i64 attributes, opaque text).
  SmallVector<Value> operands;
  SmallVector<Attribute> args;
  auto operand = [&](Value v) {
    args.push_back(body.getIndexAttr(operands.size()));
    operands.push_back(mapping.lookup(v));
  };
  auto literal = [&](int64_t v) { args.push_back(body.getI64IntegerAttr(v)); };
  auto text = [&](StringRef t) { args.push_back(opaqueAttr(t)); };
  auto typeArgs = [&](MemRefType type) -> SmallVector<Attribute> {
    return {opaqueAttr(elementCType(type.getElementType())),
            body.getI64IntegerAttr(type.getRank())};
  };
  /// Sizes of `type`, dynamic ones from `dynamic` in order.
  auto sizeArgs = [&](MemRefType type, ValueRange dynamic) {
    unsigned next = 0;
    for (int64_t size : type.getShape()) {
      if (ShapedType::isDynamic(size))
        operand(dynamic[next++]);
      else
        literal(size);
    }
  };
  auto define = [&](Value result, StringRef callee,
                    ArrayRef<Attribute> templateArgs) -> LogicalResult {
    Type type = convert(&op, result.getType());
    if (!type)
      return failure();
    mapping.map(result,
                call(body, loc, callee, type, operands, args, templateArgs));
    return success();
  };
  auto effect = [&](StringRef callee, ArrayRef<Attribute> templateArgs = {}) {
    call(body, loc, callee, Type(), operands, args, templateArgs);
    return success();
  };
  // Every memref operand must have a C++ type.
  for (Value v : op.getOperands())
    if (isa<MemRefType>(v.getType()) && !convert(&op, v.getType()))
      return failure();

  return TypeSwitch<Operation *, LogicalResult>(&op)
      .Case([&](AllocOp alloc) {
        sizeArgs(alloc.getType(), alloc.getDynamicSizes());
        return define(alloc.getResult(), "wrapper::alloc",
                      typeArgs(alloc.getType()));
      })
      .Case([&](FreeOp free) -> LogicalResult {
        if (!isa<MemRefType>(free.getBuffer().getType()))
          return free.emitOpError()
                 << "frees a container; the C++ emitter has no extern calls";
        operand(free.getBuffer());
        return effect("wrapper::free");
      })
      .Case([&](FreeIfNotReusedOp free) -> LogicalResult {
        bool reused =
            llvm::any_of(free.getBuffer().getUsers(),
                         [](Operation *u) { return isa<ReuseOp>(u); });
        if (reused)
          return success();
        operand(free.getBuffer());
        return effect("wrapper::free");
      })
      .Case([&](ReuseOp reuse) -> LogicalResult {
        MemRefType type = reuse.getType();
        operand(reuse.getOld());
        if (!type.hasStaticShape()) {
          // Identical types: the old descriptor as it is.
          mapping.map(reuse.getResult(), mapping.lookup(reuse.getOld()));
          return success();
        }
        sizeArgs(type, {});
        return define(reuse.getResult(), "wrapper::reuse", typeArgs(type));
      })
      .Case([&](ViewOp view) {
        operand(view.getPool());
        literal(static_cast<int64_t>(view.getByteOffset()));
        sizeArgs(view.getType(), {});
        return define(view.getResult(), "wrapper::view",
                      typeArgs(view.getType()));
      })
      .Case([&](ReinterpretOp view) {
        operand(view.getSource());
        auto mixed = [&](ArrayRef<int64_t> statics, ValueRange dynamics) {
          unsigned next = 0;
          for (int64_t v : statics) {
            if (ShapedType::isDynamic(v))
              operand(dynamics[next++]);
            else
              literal(v);
          }
        };
        mixed(view.getStaticOffsets(), view.getOffsets());
        mixed(view.getStaticSizes(), view.getSizes());
        mixed(view.getStaticStrides(), view.getStrides());
        auto source = cast<MemRefType>(view.getSource().getType());
        SmallVector<Attribute> templateArgs = typeArgs(view.getType());
        templateArgs.push_back(body.getI64IntegerAttr(source.getRank()));
        return define(view.getResult(), "wrapper::reinterpret", templateArgs);
      })
      .Case([&](GetConstantOp get) {
        text(get.getConstant());
        sizeArgs(get.getType(), {});
        return define(get.getResult(), "wrapper::constant",
                      typeArgs(get.getType()));
      })
      .Case([&](CallOp callOp) -> LogicalResult {
        SymbolTable symbols(source);
        auto kernel = symbols.lookup<KernelOp>(callOp.getKernel());
        if (!kernel)
          return callOp.emitOpError() << "calls an unknown kernel";
        text(("_mlir_ciface_" + kernel.getImpl().getLeafReference().getValue())
                 .str());
        for (Value arg : callOp.getArgs())
          operand(arg);
        return effect("wrapper::call");
      })
      .Case([&](CommentOp comment) {
        emitc::VerbatimOp::create(
            body, loc, body.getStringAttr("// " + comment.getText().str()));
        return success();
      })
      .Case([&](DebugPrintOp print) {
        text(quote(print.getLabel()));
        operand(print.getBuffer());
        return effect("wrapper::debugPrint");
      })
      .Case([&](DebugSaveOp save) {
        text(quote(save.getPath()));
        operand(save.getBuffer());
        return effect("wrapper::debugSave");
      })
      .Case([&](DebugMessageOp message) {
        text(quote(message.getMessage()));
        return effect("wrapper::debugMessage");
      })
      .Case([&](memref::DimOp dim) -> LogicalResult {
        std::optional<int64_t> d = dim.getConstantIndex();
        if (!d)
          return dim.emitOpError() << "has a dynamic dimension index";
        operand(dim.getSource());
        literal(*d);
        return define(dim.getResult(), "wrapper::dim", {});
      })
      .Case([&](arith::ConstantOp constant) -> LogicalResult {
        auto value = dyn_cast<IntegerAttr>(constant.getValue());
        if (!value)
          return constant.emitOpError()
                 << "is not an integer; the C++ emitter handles index "
                    "arithmetic only";
        Type type = convert(&op, constant.getType());
        if (!type)
          return failure();
        mapping.map(
            constant.getResult(),
            emitc::ConstantOp::create(
                body, loc, type,
                body.getIntegerAttr(type, value.getValue().getSExtValue())));
        return success();
      })
      .Case<arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::DivSIOp,
            arith::DivUIOp, arith::RemSIOp, arith::RemUIOp>(
          [&](Operation *binary) -> LogicalResult {
            Type type = convert(binary, binary->getResult(0).getType());
            if (!type)
              return failure();
            Value lhs = mapping.lookup(binary->getOperand(0));
            Value rhs = mapping.lookup(binary->getOperand(1));
            Value result =
                TypeSwitch<Operation *, Value>(binary)
                    .Case([&](arith::AddIOp) {
                      return emitc::AddOp::create(body, loc, type, lhs, rhs);
                    })
                    .Case([&](arith::SubIOp) {
                      return emitc::SubOp::create(body, loc, type, lhs, rhs);
                    })
                    .Case([&](arith::MulIOp) {
                      return emitc::MulOp::create(body, loc, type, lhs, rhs);
                    })
                    .Case<arith::DivSIOp, arith::DivUIOp>([&](Operation *) {
                      return emitc::DivOp::create(body, loc, type, lhs, rhs);
                    })
                    .Default([&](Operation *) {
                      return emitc::RemOp::create(body, loc, type, lhs, rhs);
                    });
            mapping.map(binary->getResult(0), result);
            return success();
          })
      .Case([&](arith::IndexCastOp cast) -> LogicalResult {
        Type type = convert(cast, cast.getType());
        if (!type)
          return failure();
        mapping.map(cast.getResult(),
                    emitc::CastOp::create(body, loc, type,
                                          mapping.lookup(cast.getIn())));
        return success();
      })
      .Case([&](ReturnOp ret) {
        for (auto [out, value] : llvm::zip(outputs, ret.getOperands())) {
          operands.clear();
          args.clear();
          args.push_back(body.getIndexAttr(0));
          args.push_back(body.getIndexAttr(1));
          operands.push_back(out);
          operands.push_back(mapping.lookup(value));
          call(body, loc, "wrapper::output", Type(), operands, args);
        }
        emitc::ReturnOp::create(body, loc, Value());
        return success();
      })
      .Default([&](Operation *other) -> LogicalResult {
        return other->emitOpError() << "is not supported by the C++ emitter";
      });
}

LogicalResult CppBuilder::build() {
  emitc::IncludeOp::create(b, source.getLoc(),
                           b.getStringAttr("Wrapper/Runtime/WrapperHost.hpp"),
                           UnitAttr());
  if (failed(declareKernels()) || failed(defineConstants()))
    return failure();
  for (GraphOp graph : source.getOps<GraphOp>())
    if (failed(lowerGraph(graph)))
      return failure();
  return success();
}

/// A main() that runs `graph` on .npy files: inputs in order, then one
/// output path per result.
static std::string mainSource(GraphOp graph) {
  std::string text;
  llvm::raw_string_ostream os(text);
  unsigned numInputs = graph.getNumArguments();
  unsigned numOutputs = graph.getNumResults();
  os << R"c(
// Runs @)c"
     << graph.getSymName() << R"c( on .npy files:
//   <program> <input.npy> x )c"
     << numInputs << " <output.npy> x " << numOutputs << R"c(
#include <cstring>

namespace {
template <typename T, int N> wrapper::MemRef<T, N> load(const char *path,
                                                        wrapper_dtype dtype) {
  wrapper_array a;
  if (wrapper_npy_load(path, &a) != WRAPPER_OK)
    wrapper::fail();
  if (a.dtype != dtype || a.rank != N) {
    std::fprintf(stderr, "%s: expected a %s array of rank %d\n", path,
                 wrapper_dtype_name(dtype), N);
    std::exit(1);
  }
  wrapper::MemRef<T, N> m = wrapper::describe<T, N>(
      static_cast<T *>(a.data), static_cast<T *>(a.data), a.shape);
  return m;
}
template <typename T, int N> void save(const char *path,
                                       const wrapper::MemRef<T, N> &m,
                                       wrapper_dtype dtype) {
  wrapper_array a;
  if (wrapper_array_create(dtype, N, m.sizes, &a) != WRAPPER_OK)
    wrapper::fail();
  int64_t count = wrapper_array_numel(&a);
  for (int64_t i = 0; i < count; ++i) {
    int64_t index = m.offset, rest = i;
    for (int d = N - 1; d >= 0; --d) {
      index += (rest % m.sizes[d]) * m.strides[d];
      rest /= m.sizes[d];
    }
    static_cast<T *>(a.data)[i] = m.aligned[index];
  }
  if (wrapper_npy_save(path, &a) != WRAPPER_OK)
    wrapper::fail();
  wrapper_array_destroy(&a);
}
} // namespace

int main(int argc, char **argv) {
  if (argc != )c"
     << 1 + numInputs + numOutputs << R"c() {
    std::fprintf(stderr, "usage: %s <input.npy> x )c"
     << numInputs << " <output.npy> x " << numOutputs << R"c(\n", argv[0]);
    return 2;
  }
)c";
  auto typeOf = [](Type type) {
    auto memref = cast<MemRefType>(type);
    return memrefCType(memref);
  };
  auto dtypeOf = [](Type type) {
    return "wrapper::dtype<" +
           elementCType(cast<MemRefType>(type).getElementType()) + ">()";
  };
  for (unsigned i = 0; i < numInputs; ++i) {
    Type type = graph.getArgumentTypes()[i];
    auto memref = cast<MemRefType>(type);
    os << "  auto in" << i << " = load<"
       << elementCType(memref.getElementType()) << ", " << memref.getRank()
       << ">(argv[" << 1 + i << "], (wrapper_dtype)" << dtypeOf(type) << ");\n";
  }
  for (unsigned i = 0; i < numOutputs; ++i)
    os << "  " << typeOf(graph.getResultTypes()[i]) << " out" << i << ";\n";
  os << "  " << cppFunctionName(graph.getSymName()) << "(";
  SmallVector<std::string> callArgs;
  for (unsigned i = 0; i < numInputs; ++i)
    callArgs.push_back("in" + std::to_string(i));
  for (unsigned i = 0; i < numOutputs; ++i)
    callArgs.push_back("&out" + std::to_string(i));
  os << llvm::join(callArgs, ", ") << ");\n";
  for (unsigned i = 0; i < numOutputs; ++i)
    os << "  save(argv[" << 1 + numInputs + i << "], out" << i
       << ", (wrapper_dtype)" << dtypeOf(graph.getResultTypes()[i]) << ");\n";
  os << "  return 0;\n}\n";
  return text;
}

LogicalResult mlir::wrapper::translateWrapperToCpp(ModuleOp module,
                                                   raw_ostream &os,
                                                   bool emitMain) {
  MLIRContext *context = module.getContext();
  if (module.getOps<GraphOp>().empty())
    return module.emitError()
           << "the module has no wrapper.graph to translate; a tensor_program "
              "module gets its host graph from `wrapper-opt "
              "--wrapper-cpu-frontend` first";
  context->getOrLoadDialect<emitc::EmitCDialect>();
  OwningOpRef<ModuleOp> target = ModuleOp::create(module.getLoc());
  CppBuilder builder(module, *target);
  if (failed(builder.build()))
    return failure();
  if (failed(emitc::translateToCpp(*target, os)))
    return failure();
  if (emitMain) {
    auto graphs = llvm::to_vector(module.getOps<GraphOp>());
    if (graphs.size() != 1)
      return module.emitError()
             << "a main() runs one graph; the module has " << graphs.size();
    for (Type type : llvm::concat<const Type>(graphs[0].getArgumentTypes(),
                                              graphs[0].getResultTypes()))
      if (!isa<MemRefType>(type))
        return graphs[0].emitOpError()
               << "has a non-buffer argument or result; main() reads and "
                  "writes .npy arrays only";
    os << mainSource(graphs[0]);
  }
  return success();
}
