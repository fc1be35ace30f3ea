//===- ShapeRequirements.cpp - run-time shape relations of a program ------===//
//
// Part of the Wrapper project.
//
// The rules below follow the lowering (TensorProgramToLinalg): where it
// indexes two dynamic dimensions with one loop, they must be equal; where it
// takes a result size from one operand, the others must agree with it. A
// dynamic dimension of size 1 is NOT broadcast at run time (the lowering
// maps a dimension to a constant index only when its static size is 1), so
// elementwise operands need equal sizes there.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Dialect/TensorProgram/Analysis/ShapeRequirements.h"

#include "Wrapper/Dialect/TensorProgram/IR/TensorProgramOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tensor_program;

using Id = SizeExprTable::Id;
using Kind = SizeExprTable::Kind;

//===----------------------------------------------------------------------===//
// SizeExprTable
//===----------------------------------------------------------------------===//

Id SizeExprTable::intern(Kind kind, int64_t a, int64_t b) {
  auto key = std::make_tuple(static_cast<int>(kind), a, b);
  auto it = unique.find(key);
  if (it != unique.end())
    return it->second;
  Id id = static_cast<Id>(nodes.size());
  nodes.push_back({kind, a, b});
  unique.emplace(key, id);
  return id;
}

Id SizeExprTable::constant(int64_t value) {
  return intern(Kind::Constant, value, 0);
}

Id SizeExprTable::inputDim(unsigned input, int64_t dim) {
  return intern(Kind::InputDim, input, dim);
}

Id SizeExprTable::unknown() { return intern(Kind::Unknown, 0, 0); }

std::optional<int64_t> SizeExprTable::getConstant(Id id) const {
  if (nodes[id].kind != Kind::Constant)
    return std::nullopt;
  return nodes[id].a;
}

/// `a kind b` on concrete values; nullopt on overflow or division by zero.
static std::optional<int64_t> apply(Kind kind, int64_t a, int64_t b) {
  int64_t r = 0;
  switch (kind) {
  case Kind::Add:
    if (llvm::AddOverflow(a, b, r))
      return std::nullopt;
    return r;
  case Kind::Sub:
    if (llvm::SubOverflow(a, b, r))
      return std::nullopt;
    return r;
  case Kind::Mul:
    if (llvm::MulOverflow(a, b, r))
      return std::nullopt;
    return r;
  case Kind::FloorDiv:
  case Kind::CeilDiv:
  case Kind::Rem:
    if (b == 0 || (a == INT64_MIN && b == -1))
      return std::nullopt;
    if (kind == Kind::Rem)
      return a % b;
    return kind == Kind::FloorDiv ? llvm::divideFloorSigned(a, b)
                                  : llvm::divideCeilSigned(a, b);
  case Kind::Min:
    return std::min(a, b);
  case Kind::Max:
    return std::max(a, b);
  default:
    return std::nullopt;
  }
}

Id SizeExprTable::binary(Kind kind, Id lhs, Id rhs) {
  if (isUnknown(lhs) || isUnknown(rhs))
    return unknown();
  std::optional<int64_t> a = getConstant(lhs), b = getConstant(rhs);
  if (a && b) {
    std::optional<int64_t> folded = apply(kind, *a, *b);
    return folded ? constant(*folded) : unknown();
  }
  if ((kind == Kind::Add || kind == Kind::Sub) && b == 0)
    return lhs;
  if (kind == Kind::Add && a == 0)
    return rhs;
  if ((kind == Kind::Mul || kind == Kind::FloorDiv || kind == Kind::CeilDiv) &&
      b == 1)
    return lhs;
  if (kind == Kind::Mul && a == 1)
    return rhs;
  if (kind == Kind::Mul && (a == 0 || b == 0))
    return constant(0);
  if ((kind == Kind::Min || kind == Kind::Max) && lhs == rhs)
    return lhs;
  // Commutative operators: one order, so that a*b and b*a are one node.
  if ((kind == Kind::Add || kind == Kind::Mul || kind == Kind::Min ||
       kind == Kind::Max) &&
      lhs > rhs)
    std::swap(lhs, rhs);
  return intern(kind, lhs, rhs);
}

std::optional<int64_t>
SizeExprTable::evaluate(Id id, ArrayRef<SmallVector<int64_t>> shapes) const {
  const Node &n = nodes[id];
  switch (n.kind) {
  case Kind::Constant:
    return n.a;
  case Kind::InputDim:
    if (static_cast<size_t>(n.a) >= shapes.size() ||
        static_cast<size_t>(n.b) >= shapes[n.a].size())
      return std::nullopt;
    return shapes[n.a][n.b];
  case Kind::Unknown:
    return std::nullopt;
  default: {
    std::optional<int64_t> a = evaluate(static_cast<Id>(n.a), shapes);
    std::optional<int64_t> b = evaluate(static_cast<Id>(n.b), shapes);
    if (!a || !b)
      return std::nullopt;
    return apply(n.kind, *a, *b);
  }
  }
}

static const char *symbolOf(Kind kind) {
  switch (kind) {
  case Kind::Add:
    return " + ";
  case Kind::Sub:
    return " - ";
  case Kind::Mul:
    return " * ";
  case Kind::FloorDiv:
    return " floordiv ";
  case Kind::CeilDiv:
    return " ceildiv ";
  case Kind::Rem:
    return " % ";
  default:
    return nullptr;
  }
}

std::string SizeExprTable::describe(Id id, ArrayRef<std::string> names) const {
  const Node &n = nodes[id];
  switch (n.kind) {
  case Kind::Constant:
    return std::to_string(n.a);
  case Kind::InputDim: {
    std::string name = static_cast<size_t>(n.a) < names.size()
                           ? names[n.a]
                           : "input #" + std::to_string(n.a);
    return name + " dimension " + std::to_string(n.b);
  }
  case Kind::Unknown:
    return "?";
  case Kind::Min:
  case Kind::Max:
    return std::string(n.kind == Kind::Min ? "min(" : "max(") +
           describe(n.a, names) + ", " + describe(n.b, names) + ")";
  default:
    return "(" + describe(n.a, names) + symbolOf(n.kind) +
           describe(n.b, names) + ")";
  }
}

std::string SizeExprTable::toC(Id id) const {
  const Node &n = nodes[id];
  switch (n.kind) {
  case Kind::Constant:
    return "INT64_C(" + std::to_string(n.a) + ")";
  case Kind::InputDim:
    return "dims[" + std::to_string(n.a) + "][" + std::to_string(n.b) + "]";
  case Kind::Unknown:
    return "0";
  default: {
    static const char *const helpers[] = {
        "",           "",       "sz_add", "sz_sub", "sz_mul", "sz_floordiv",
        "sz_ceildiv", "sz_rem", "sz_min", "sz_max"};
    return std::string(helpers[static_cast<int>(n.kind)]) + "(&ok, " +
           toC(n.a) + ", " + toC(n.b) + ")";
  }
  }
}

//===----------------------------------------------------------------------===//
// Collecting the requirements
//===----------------------------------------------------------------------===//

namespace mlir {
namespace tensor_program {
class ShapeRequirementBuilder {
public:
  explicit ShapeRequirementBuilder(ShapeRequirements &result)
      : result(result), sizes(result.sizes) {}

  void run(func::FuncOp func);

private:
  ShapeRequirements &result;
  SizeExprTable &sizes;
  DenseMap<Value, SmallVector<Id>> dims;
  DenseMap<Value, Id> indices;
  llvm::DenseSet<std::tuple<int, Id, Id>> seen;

  void walk(Block &block);
  void visit(Operation *op);

  /// The dimensions of a ranked tensor value (static ones as constants,
  /// unknown ones where the analysis cannot follow).
  SmallVector<Id> dimsOf(Value value) {
    auto it = dims.find(value);
    if (it != dims.end())
      return it->second;
    SmallVector<Id> out;
    if (auto type = dyn_cast<RankedTensorType>(value.getType()))
      for (int64_t size : type.getShape())
        out.push_back(ShapedType::isDynamic(size) ? sizes.unknown()
                                                  : sizes.constant(size));
    return out;
  }

  Id indexOf(Value value) {
    auto it = indices.find(value);
    if (it != indices.end())
      return it->second;
    if (std::optional<int64_t> c = getConstantIntValue(value))
      return sizes.constant(*c);
    return sizes.unknown();
  }

  /// max((size - span) floordiv stride + 1, 0): windows in a dimension.
  Id windowCount(Id size, int64_t span, int64_t stride) {
    Id rest = sizes.binary(Kind::Sub, size, sizes.constant(span));
    Id count = sizes.binary(
        Kind::Add, sizes.binary(Kind::FloorDiv, rest, sizes.constant(stride)),
        sizes.constant(1));
    return sizes.binary(Kind::Max, count, sizes.constant(0));
  }

  Id product(ArrayRef<Id> ids) {
    Id total = sizes.constant(1);
    for (Id id : ids)
      total = sizes.binary(Kind::Mul, total, id);
    return total;
  }

  void require(ShapeRequirement::Kind kind, Id lhs, Id rhs, Operation *op,
               const Twine &what) {
    if (sizes.isUnknown(lhs) || sizes.isUnknown(rhs))
      return;
    std::optional<int64_t> a = sizes.getConstant(lhs);
    std::optional<int64_t> b = sizes.getConstant(rhs);
    if (a && b)
      return; // static: the verifier's business
    if (lhs == rhs)
      return;
    if (kind == ShapeRequirement::Kind::EqualOrOne && a == 1)
      return;
    if (!seen.insert({static_cast<int>(kind), lhs, rhs}).second)
      return;
    std::string reason;
    llvm::raw_string_ostream os(reason);
    os << "'" << op->getName() << "' at " << op->getLoc();
    if (!what.isTriviallyEmpty())
      os << " (" << what << ")";
    result.requirements.push_back({kind, lhs, rhs, reason});
  }

  /// A requirement the program states itself (not an op's).
  void requireNamed(ShapeRequirement::Kind kind, Id lhs, Id rhs,
                    const std::string &reason) {
    if (sizes.isUnknown(lhs) || sizes.isUnknown(rhs) || lhs == rhs)
      return;
    if (sizes.getConstant(lhs) && sizes.getConstant(rhs))
      return;
    if (!seen.insert({static_cast<int>(kind), lhs, rhs}).second)
      return;
    result.requirements.push_back({kind, lhs, rhs, reason});
  }

  /// Results' dimensions: `computed`, except where the result type is
  /// static, which the code then relies on (a requirement when `computed`
  /// is dynamic).
  void setResult(Operation *op, Value value, SmallVector<Id> computed) {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type)
      return;
    if (computed.size() != static_cast<size_t>(type.getRank()))
      computed = dimsOf(value);
    for (auto [d, size] : llvm::enumerate(type.getShape())) {
      if (ShapedType::isDynamic(size))
        continue;
      Id fixed = sizes.constant(size);
      require(ShapeRequirement::Kind::Equal, computed[d], fixed, op,
              "result dimension " + Twine(d) + " is static");
      computed[d] = fixed;
    }
    dims[value] = std::move(computed);
  }

  /// Operands indexed together along the trailing dimensions (elementwise
  /// ops, batch dimensions of contractions): every dimension that is not
  /// statically 1 equals the result's.
  SmallVector<Id> broadcastTogether(Operation *op, ArrayRef<Value> operands,
                                    ArrayRef<int64_t> resultShape,
                                    unsigned dropTrailing = 0);
};
} // namespace tensor_program
} // namespace mlir

SmallVector<Id> ShapeRequirementBuilder::broadcastTogether(
    Operation *op, ArrayRef<Value> operands, ArrayRef<int64_t> resultShape,
    unsigned dropTrailing) {
  size_t rank = resultShape.size();
  SmallVector<Id> out(rank, -1);
  for (size_t d = 0; d < rank; ++d)
    if (!ShapedType::isDynamic(resultShape[d]))
      out[d] = sizes.constant(resultShape[d]);
  // The lowering takes a dynamic result size from the first operand whose
  // dimension is dynamic.
  for (Value operand : operands) {
    SmallVector<Id> od = dimsOf(operand);
    auto type = cast<RankedTensorType>(operand.getType());
    size_t orank = type.getRank() - dropTrailing;
    size_t lead = rank - orank;
    for (size_t d = 0; d < orank; ++d)
      if (type.isDynamicDim(d) && out[lead + d] < 0)
        out[lead + d] = od[d];
  }
  for (Id &id : out)
    if (id < 0)
      id = sizes.unknown();
  for (auto [index, operand] : llvm::enumerate(operands)) {
    SmallVector<Id> od = dimsOf(operand);
    auto type = cast<RankedTensorType>(operand.getType());
    size_t orank = type.getRank() - dropTrailing;
    size_t lead = rank - orank;
    for (size_t d = 0; d < orank; ++d) {
      if (type.getDimSize(d) == 1)
        continue;
      require(ShapeRequirement::Kind::Equal, od[d], out[lead + d], op,
              "operand #" + Twine(index) + " dimension " + Twine(d));
    }
  }
  return out;
}

void ShapeRequirementBuilder::run(func::FuncOp func) {
  for (auto [index, arg] : llvm::enumerate(func.getArguments())) {
    std::string name = "input #" + std::to_string(index);
    if (auto attr =
            func.getArgAttrOfType<StringAttr>(index, "tensor_program.name"))
      name = "input '" + attr.str() + "'";
    result.inputNames.push_back(name);
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type)
      continue;
    SmallVector<Id> argDims;
    for (auto [d, size] : llvm::enumerate(type.getShape()))
      argDims.push_back(ShapedType::isDynamic(size) ? sizes.inputDim(index, d)
                                                    : sizes.constant(size));
    dims[arg] = argDims;
  }
  using RK = ShapeRequirement::Kind;
  // Sizes that the importer named (tensor_program.symbols: torch.export's
  // Dim, Dynamo's size symbols): equal wherever they appear, and within
  // the function's tensor_program.symbol_ranges.
  llvm::StringMap<Id> symbols;
  auto ranges =
      func->getAttrOfType<DictionaryAttr>("tensor_program.symbol_ranges");
  for (auto [index, arg] : llvm::enumerate(func.getArguments())) {
    auto names =
        func.getArgAttrOfType<ArrayAttr>(index, "tensor_program.symbols");
    if (!names)
      continue;
    for (auto [d, attr] : llvm::enumerate(names)) {
      auto name = dyn_cast<StringAttr>(attr);
      if (!name || name.getValue().empty() || d >= dims[arg].size())
        continue;
      Id size = dims[arg][d];
      auto [it, inserted] = symbols.try_emplace(name.getValue(), size);
      if (!inserted) {
        requireNamed(RK::Equal, size, it->second,
                     "the inputs share the size '" + name.str() + "'");
        continue;
      }
      auto range =
          ranges
              ? dyn_cast_or_null<DenseI64ArrayAttr>(ranges.get(name.getValue()))
              : DenseI64ArrayAttr();
      if (!range || range.size() != 2)
        continue;
      std::string what =
          "the size '" + name.str() + "' ranges over [" +
          std::to_string(range[0]) + ", " +
          (range[1] < 0 ? std::string("inf") : std::to_string(range[1])) + "]";
      if (range[0] > 0)
        requireNamed(RK::LessEqual, sizes.constant(range[0]), size, what);
      if (range[1] >= 0)
        requireNamed(RK::LessEqual, size, sizes.constant(range[1]), what);
    }
  }
  if (func.isExternal())
    return;
  walk(func.getBody().front());
  for (Operation &op : func.getBody().front())
    if (auto ret = dyn_cast<func::ReturnOp>(op))
      for (Value value : ret.getOperands())
        result.resultSizes.push_back(dimsOf(value));
}

void ShapeRequirementBuilder::walk(Block &block) {
  for (Operation &op : block)
    visit(&op);
}

void ShapeRequirementBuilder::visit(Operation *op) {
  using RK = ShapeRequirement::Kind;
  auto resultShape = [&](unsigned i = 0) {
    return cast<RankedTensorType>(op->getResult(i).getType()).getShape();
  };
  // Index arithmetic (sizes of reshapes, fulls and broadcasts).
  if (auto dimOp = dyn_cast<tensor::DimOp>(op)) {
    std::optional<int64_t> d = dimOp.getConstantIndex();
    SmallVector<Id> source = dimsOf(dimOp.getSource());
    indices[dimOp.getResult()] =
        d && *d >= 0 && static_cast<size_t>(*d) < source.size()
            ? source[*d]
            : sizes.unknown();
    return;
  }
  if (op->getNumResults() == 1 && op->getResult(0).getType().isIndex() &&
      op->getNumOperands() == 2 &&
      op->getDialect() == op->getContext()->getLoadedDialect("arith")) {
    std::optional<Kind> kind =
        llvm::TypeSwitch<Operation *, std::optional<Kind>>(op)
            .Case<arith::AddIOp>([](auto) { return Kind::Add; })
            .Case<arith::SubIOp>([](auto) { return Kind::Sub; })
            .Case<arith::MulIOp>([](auto) { return Kind::Mul; })
            .Case<arith::FloorDivSIOp>([](auto) { return Kind::FloorDiv; })
            .Case<arith::DivSIOp, arith::DivUIOp>([&](auto) {
              // Truncating division equals floor division for the
              // non-negative sizes it is used on.
              return Kind::FloorDiv;
            })
            .Case<arith::CeilDivSIOp, arith::CeilDivUIOp>(
                [](auto) { return Kind::CeilDiv; })
            .Case<arith::RemSIOp, arith::RemUIOp>(
                [](auto) { return Kind::Rem; })
            .Case<arith::MinSIOp>([](auto) { return Kind::Min; })
            .Case<arith::MaxSIOp>([](auto) { return Kind::Max; })
            .Default([](Operation *) { return std::nullopt; });
    indices[op->getResult(0)] =
        kind ? sizes.binary(*kind, indexOf(op->getOperand(0)),
                            indexOf(op->getOperand(1)))
             : sizes.unknown();
    return;
  }
  if (auto constant = dyn_cast<arith::ConstantIndexOp>(op)) {
    indices[constant.getResult()] = sizes.constant(constant.value());
    return;
  }

  // The k-th dynamic dimension of a result typed `shape` from `operands`.
  auto fromSizeOperands = [&](ArrayRef<int64_t> shape, ValueRange operands) {
    SmallVector<Id> out;
    unsigned k = 0;
    for (int64_t size : shape) {
      if (!ShapedType::isDynamic(size)) {
        out.push_back(sizes.constant(size));
        continue;
      }
      Id id = k < operands.size() ? indexOf(operands[k]) : sizes.unknown();
      ++k;
      require(RK::LessEqual, sizes.constant(0), id, op,
              "size operand #" + Twine(k - 1) + " must not be negative");
      out.push_back(id);
    }
    return out;
  };

  if (isElementwise(op)) {
    SmallVector<Value> operands;
    for (Value operand : op->getOperands())
      if (isa<RankedTensorType>(operand.getType()))
        operands.push_back(operand);
    setResult(op, op->getResult(0),
              broadcastTogether(op, operands, resultShape()));
    return;
  }

  llvm::TypeSwitch<Operation *>(op)
      .Case<FullOp>([&](FullOp full) {
        setResult(op, full.getResult(),
                  fromSizeOperands(resultShape(), full.getDynamicSizes()));
      })
      .Case<ReshapeOp>([&](ReshapeOp reshape) {
        SmallVector<Id> out =
            fromSizeOperands(resultShape(), reshape.getDynamicSizes());
        require(RK::Equal, product(out), product(dimsOf(reshape.getInput())),
                op, "the element count must not change");
        setResult(op, reshape.getResult(), out);
      })
      .Case<BroadcastOp>([&](BroadcastOp broadcast) {
        SmallVector<Id> out =
            fromSizeOperands(resultShape(), broadcast.getDynamicSizes());
        SmallVector<Id> in = dimsOf(broadcast.getInput());
        auto inType = broadcast.getInput().getType();
        size_t lead = out.size() - in.size();
        for (size_t d = 0; d < in.size(); ++d)
          if (inType.getDimSize(d) != 1)
            require(RK::Equal, in[d], out[lead + d], op,
                    "input dimension " + Twine(d));
        setResult(op, broadcast.getResult(), out);
      })
      .Case<PermuteOp>([&](PermuteOp permute) {
        SmallVector<Id> in = dimsOf(permute.getInput()), out;
        for (int64_t d : permute.getPermutation())
          out.push_back(in[d]);
        setResult(op, permute.getResult(), out);
      })
      .Case<SliceOp>([&](SliceOp slice) {
        SmallVector<Id> out = dimsOf(slice.getInput());
        int64_t d = static_cast<int64_t>(slice.getDim());
        Id n = out[d];
        Id first = sizes.binary(
            Kind::Min, sizes.constant(static_cast<int64_t>(slice.getStart())),
            n);
        Id last = sizes.binary(
            Kind::Min, sizes.constant(static_cast<int64_t>(slice.getEnd())), n);
        Id span = sizes.binary(Kind::Max, sizes.binary(Kind::Sub, last, first),
                               sizes.constant(0));
        out[d] =
            sizes.binary(Kind::CeilDiv, span,
                         sizes.constant(static_cast<int64_t>(slice.getStep())));
        setResult(op, slice.getResult(), out);
      })
      .Case<ConcatOp>([&](ConcatOp concat) {
        int64_t axis = static_cast<int64_t>(concat.getDim());
        SmallVector<Id> out = dimsOf(concat.getInputs().front());
        Id total = sizes.constant(0);
        for (auto [index, input] : llvm::enumerate(concat.getInputs())) {
          SmallVector<Id> in = dimsOf(input);
          total = sizes.binary(Kind::Add, total, in[axis]);
          if (index == 0)
            continue;
          for (size_t d = 0; d < in.size(); ++d)
            if (static_cast<int64_t>(d) != axis)
              require(RK::Equal, in[d], out[d], op,
                      "input #" + Twine(index) + " dimension " + Twine(d));
        }
        out[axis] = total;
        setResult(op, concat.getResult(), out);
      })
      .Case<PadOp>([&](PadOp pad) {
        SmallVector<Id> out = dimsOf(pad.getInput());
        for (auto [d, id] : llvm::enumerate(out))
          id = sizes.binary(Kind::Add, id,
                            sizes.constant(pad.getLow()[d] + pad.getHigh()[d]));
        setResult(op, pad.getResult(), out);
      })
      .Case<AsStridedOp>([&](AsStridedOp strided) {
        // The furthest element read must lie inside the input.
        int64_t last = static_cast<int64_t>(strided.getOffset());
        bool empty = false;
        for (auto [size, stride] :
             llvm::zip(strided.getSizes(), strided.getStrides())) {
          empty |= size == 0;
          last += (size - 1) * stride;
        }
        if (!empty)
          require(RK::LessEqual, sizes.constant(last + 1),
                  product(dimsOf(strided.getInput())), op,
                  "the furthest element read must lie inside the input");
        setResult(op, strided.getResult(), {});
      })
      .Case<MatmulOp, BatchMatmulOp>([&](auto matmul) {
        Value lhs = matmul.getLhs(), rhs = matmul.getRhs();
        SmallVector<Id> l = dimsOf(lhs), r = dimsOf(rhs);
        require(RK::Equal, r[r.size() - 2], l.back(), op,
                "the contracting dimensions must be equal");
        ArrayRef<int64_t> shape = resultShape();
        SmallVector<Id> out = broadcastTogether(
            op, {lhs, rhs}, shape.drop_back(2), /*dropTrailing=*/2);
        out.push_back(l[l.size() - 2]);
        out.push_back(r.back());
        setResult(op, matmul.getResult(), out);
      })
      .Case<LinearOp>([&](LinearOp linear) {
        SmallVector<Id> in = dimsOf(linear.getInput());
        SmallVector<Id> w = dimsOf(linear.getWeight());
        require(RK::Equal, w[1], in.back(), op,
                "the weight's input features must equal the input's last "
                "dimension");
        if (Value bias = linear.getBias())
          require(RK::Equal, dimsOf(bias)[0], w[0], op,
                  "the bias must have one value per output feature");
        SmallVector<Id> out(in.begin(), in.end() - 1);
        out.push_back(w[0]);
        setResult(op, linear.getResult(), out);
      })
      .Case<LayerNormOp, RmsNormOp>([&](auto norm) {
        SmallVector<Id> in = dimsOf(norm.getInput());
        SmallVector<Value> params;
        if (Value w = norm.getWeight())
          params.push_back(w);
        if constexpr (std::is_same_v<decltype(norm), LayerNormOp>)
          if (Value b = norm.getBias())
            params.push_back(b);
        for (Value param : params) {
          SmallVector<Id> p = dimsOf(param);
          size_t lead = in.size() - p.size();
          for (size_t d = 0; d < p.size(); ++d)
            require(RK::Equal, p[d], in[lead + d], op,
                    "the normalized dimensions of the input and its "
                    "parameters must be equal");
        }
        setResult(op, norm.getResult(), in);
      })
      .Case<IotaOp>([&](IotaOp iota) {
        setResult(op, iota.getResult(),
                  fromSizeOperands(resultShape(), iota.getDynamicSizes()));
      })
      .Case<UniformOp>([&](UniformOp uniform) {
        setResult(op, uniform.getResult(),
                  fromSizeOperands(resultShape(), uniform.getDynamicSizes()));
      })
      .Case<CumsumOp>([&](CumsumOp cumsum) {
        setResult(op, cumsum.getResult(), dimsOf(cumsum.getInput()));
      })
      .Case<DynamicSliceOp>([&](DynamicSliceOp slice) {
        SmallVector<Id> out = dimsOf(slice.getInput());
        int64_t d = static_cast<int64_t>(slice.getDim());
        Id n = out[d], zero = sizes.constant(0);
        auto clamp = [&](Id v) {
          return sizes.binary(Kind::Min, sizes.binary(Kind::Max, v, zero), n);
        };
        Id first = clamp(indexOf(slice.getStart()));
        Id last = clamp(indexOf(slice.getEnd()));
        Id span =
            sizes.binary(Kind::Max, sizes.binary(Kind::Sub, last, first), zero);
        out[d] =
            sizes.binary(Kind::CeilDiv, span,
                         sizes.constant(static_cast<int64_t>(slice.getStep())));
        setResult(op, slice.getResult(), out);
      })
      .Case<SliceScatterOp>([&](SliceScatterOp scatter) {
        SmallVector<Id> in = dimsOf(scatter.getInput());
        SmallVector<Id> src = dimsOf(scatter.getSrc());
        for (size_t d = 0; d < in.size(); ++d)
          if (static_cast<int64_t>(d) != static_cast<int64_t>(scatter.getDim()))
            require(RK::Equal, src[d], in[d], op,
                    "source dimension " + Twine(d));
        setResult(op, scatter.getResult(), in);
      })
      .Case<FlipOp>([&](FlipOp flip) {
        setResult(op, flip.getResult(), dimsOf(flip.getInput()));
      })
      .Case<TakeOp>([&](TakeOp take) {
        SmallVector<Id> in = dimsOf(take.getInput());
        SmallVector<Id> index = dimsOf(take.getIndex());
        int64_t d = static_cast<int64_t>(take.getDim());
        require(RK::LessEqual, sizes.constant(1), in[d], op,
                "the indexed dimension must not be empty");
        SmallVector<Id> out(in.begin(), in.begin() + d);
        out.append(index.begin(), index.end());
        out.append(in.begin() + d + 1, in.end());
        setResult(op, take.getResult(), out);
      })
      .Case<GatherOp>([&](GatherOp gather) {
        SmallVector<Id> in = dimsOf(gather.getInput());
        SmallVector<Id> index = dimsOf(gather.getIndex());
        int64_t dim = static_cast<int64_t>(gather.getDim());
        require(RK::LessEqual, sizes.constant(1), in[dim], op,
                "the gathered dimension must not be empty");
        for (size_t d = 0; d < in.size(); ++d)
          if (static_cast<int64_t>(d) != dim)
            require(RK::LessEqual, index[d], in[d], op,
                    "index dimension " + Twine(d) +
                        " must not exceed the input's");
        setResult(op, gather.getResult(), index);
      })
      .Case<ScatterOp>([&](ScatterOp scatter) {
        SmallVector<Id> in = dimsOf(scatter.getInput());
        SmallVector<Id> index = dimsOf(scatter.getIndex());
        SmallVector<Id> src = dimsOf(scatter.getSrc());
        int64_t dim = static_cast<int64_t>(scatter.getDim());
        require(RK::LessEqual, sizes.constant(1), in[dim], op,
                "the scattered dimension must not be empty");
        for (size_t d = 0; d < in.size(); ++d) {
          require(RK::LessEqual, index[d], src[d], op,
                  "index dimension " + Twine(d) +
                      " must not exceed the source's");
          if (static_cast<int64_t>(d) != dim)
            require(RK::LessEqual, index[d], in[d], op,
                    "index dimension " + Twine(d) +
                        " must not exceed the input's");
        }
        setResult(op, scatter.getResult(), in);
      })
      .Case<ConvolutionOp>([&](ConvolutionOp conv) {
        SmallVector<Id> in = dimsOf(conv.getInput());
        SmallVector<Id> w = dimsOf(conv.getWeight());
        int64_t groups = static_cast<int64_t>(conv.getGroups());
        require(RK::Equal, in[1],
                sizes.binary(Kind::Mul, w[1], sizes.constant(groups)), op,
                "the input's channels must equal the weight's times the "
                "groups");
        if (Value bias = conv.getBias())
          require(RK::Equal, dimsOf(bias)[0], w[0], op,
                  "the bias must have one value per filter");
        SmallVector<Id> out = {in[0], w[0]};
        for (size_t i = 2; i < in.size(); ++i) {
          std::optional<int64_t> kernel = sizes.getConstant(w[i]);
          if (!kernel) {
            out.push_back(sizes.unknown());
            continue;
          }
          out.push_back(
              windowCount(in[i], conv.getDilation()[i - 2] * (*kernel - 1) + 1,
                          conv.getStride()[i - 2]));
        }
        setResult(op, conv.getResult(), out);
      })
      .Case<MaxPoolOp, AvgPoolOp>([&](auto pool) {
        SmallVector<Id> in = dimsOf(pool.getInput());
        size_t k = pool.getWindow().size(), lead = in.size() - k;
        SmallVector<Id> out(in.begin(), in.begin() + lead);
        for (size_t i = 0; i < k; ++i) {
          int64_t dilation = 1;
          if constexpr (std::is_same_v<decltype(pool), MaxPoolOp>)
            dilation = pool.getDilation()[i];
          Id padded = sizes.binary(Kind::Add, in[lead + i],
                                   sizes.constant(pool.getPaddingLow()[i] +
                                                  pool.getPaddingHigh()[i]));
          out.push_back(windowCount(padded,
                                    dilation * (pool.getWindow()[i] - 1) + 1,
                                    pool.getStride()[i]));
        }
        setResult(op, pool.getResult(), out);
      })
      .Case<SoftmaxOp, LogSoftmaxOp>([&](auto softmax) {
        setResult(op, softmax.getResult(), dimsOf(softmax.getInput()));
      })
      .Case<ArgMaxOp>([&](ArgMaxOp argmax) {
        SmallVector<Id> in = dimsOf(argmax.getInput()), out;
        int64_t dim = static_cast<int64_t>(argmax.getDim());
        for (auto [d, id] : llvm::enumerate(in)) {
          if (static_cast<int64_t>(d) != dim)
            out.push_back(id);
          else if (argmax.getKeepdim())
            out.push_back(sizes.constant(1));
        }
        setResult(op, argmax.getResult(), out);
      })
      .Case<CopyBackOp>([&](CopyBackOp copy) {
        SmallVector<Id> value = dimsOf(copy.getValue());
        SmallVector<Id> target = dimsOf(copy.getTarget());
        for (size_t d = 0; d < value.size() && d < target.size(); ++d)
          require(RK::Equal, value[d], target[d], op,
                  "dimension " + Twine(d) +
                      " of the value and the mutated input");
      })
      .Case<FusedOp>([&](FusedOp fused) {
        Block &body = fused.getBody().front();
        for (auto [arg, operand] :
             llvm::zip(body.getArguments(), fused.getInputs()))
          if (isa<RankedTensorType>(arg.getType()))
            dims[arg] = dimsOf(operand);
        walk(body);
        auto yield = cast<YieldOp>(body.getTerminator());
        for (auto [value, result] :
             llvm::zip(yield.getValues(), fused.getResults()))
          setResult(op, result, dimsOf(value));
      })
      .Default([&](Operation *other) {
        if (isReduction(other)) {
          auto inputs = other->getOperands();
          auto dimsAttr = other->getAttrOfType<DenseI64ArrayAttr>("dims");
          if (!inputs.empty() && dimsAttr) {
            SmallVector<Id> in = dimsOf(inputs.front()), out;
            bool keep = other->hasAttr("keepdim");
            for (auto [d, id] : llvm::enumerate(in)) {
              if (!llvm::is_contained(dimsAttr.asArrayRef(),
                                      static_cast<int64_t>(d)))
                out.push_back(id);
              else if (keep)
                out.push_back(sizes.constant(1));
            }
            setResult(other, other->getResult(0), out);
            return;
          }
        }
        // Unknown ops (externs, other dialects): static sizes only.
        for (Value result : other->getResults())
          if (isa<RankedTensorType>(result.getType()))
            dims[result] = dimsOf(result);
      });
}

ShapeRequirements ShapeRequirements::collect(func::FuncOp func) {
  ShapeRequirements result;
  ShapeRequirementBuilder(result).run(func);
  return result;
}
