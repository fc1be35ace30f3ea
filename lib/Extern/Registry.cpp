//===- Registry.cpp - the extern kernel registry --------------------------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Extern/Registry.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/YAMLTraits.h"

using namespace mlir;
using namespace mlir::wrapper;

namespace {
/// One entry of externs.yaml as written.
struct YamlEntry {
  std::string schema;
  std::vector<std::string> variants;
  std::vector<std::string> abiHistory;
};
} // namespace

LLVM_YAML_IS_SEQUENCE_VECTOR(YamlEntry)

namespace llvm {
namespace yaml {
template <> struct MappingTraits<YamlEntry> {
  static void mapping(IO &io, YamlEntry &entry) {
    io.mapRequired("schema", entry.schema);
    io.mapRequired("variants", entry.variants);
    io.mapOptional("abi_history", entry.abiHistory);
  }
};
} // namespace yaml
} // namespace llvm

static const char *const kRegistryText =
#include "ExternsYaml.inc"
    ;

const ExternRegistry &ExternRegistry::get() {
  static const ExternRegistry registry = [] {
    ExternRegistry result;
    std::vector<YamlEntry> entries;
    llvm::yaml::Input input(kRegistryText);
    input >> entries;
    if (input.error())
      llvm::report_fatal_error("externs.yaml does not parse");
    for (const YamlEntry &entry : entries) {
      std::string error;
      std::optional<Schema> schema = parseSchema(entry.schema, error);
      if (!schema)
        llvm::report_fatal_error(llvm::Twine("externs.yaml: '") + entry.schema +
                                 "': " + error);
      ExternKernel kernel;
      kernel.schema = std::move(*schema);
      if (kernel.schema.ns.empty())
        kernel.schema.ns = "aten";
      for (const std::string &variant : entry.variants) {
        if (variant == "functional")
          kernel.functional = true;
        else if (variant == "out")
          kernel.out = true;
        else if (variant == "inplace")
          kernel.inPlace = true;
        else
          llvm::report_fatal_error(llvm::Twine("externs.yaml: unknown "
                                               "variant '") +
                                   variant + "'");
      }
      // Each earlier ABI must be the current schema minus trailing
      // arguments, all of which have defaults: old entry points forward.
      for (const std::string &old : entry.abiHistory) {
        std::optional<Schema> previous = parseSchema(old, error);
        if (!previous)
          llvm::report_fatal_error(llvm::Twine("externs.yaml: '") + old +
                                   "': " + error);
        const auto &now = kernel.schema.arguments;
        bool prefix = previous->name == kernel.schema.name &&
                      previous->arguments.size() < now.size();
        for (size_t i = 0; prefix && i < now.size(); ++i) {
          if (i < previous->arguments.size())
            prefix = previous->arguments[i].name == now[i].name &&
                     previous->arguments[i].type.str() == now[i].type.str();
          else
            prefix = now[i].defaultValue.has_value();
        }
        if (!prefix)
          llvm::report_fatal_error(
              llvm::Twine("externs.yaml: the ABI history of '") +
              kernel.schema.name +
              "' must list earlier schemas that the current one extends "
              "with defaulted arguments: '" +
              old + "'");
        ++kernel.abiVersion;
      }
      result.entries.push_back(std::move(kernel));
    }
    return result;
  }();
  return registry;
}

const ExternKernel *ExternRegistry::lookup(StringRef callee,
                                           ExternVariant *variant) const {
  // ns::name[.overload]; the overload `out` asks for the out= variant, a
  // trailing `_` for the in-place one.
  auto [qualified, overload] = callee.split('.');
  auto [ns, name] = qualified.contains("::")
                        ? qualified.split("::")
                        : std::make_pair(StringRef("aten"), qualified);
  ExternVariant kind = ExternVariant::Functional;
  if (overload == "out")
    kind = ExternVariant::Out;
  if (name.ends_with("_") && !name.starts_with("_")) {
    name = name.drop_back();
    kind = ExternVariant::InPlace;
  }
  for (const ExternKernel &kernel : entries)
    if (kernel.schema.ns == ns && kernel.schema.name == name) {
      if (variant)
        *variant = kind;
      return &kernel;
    }
  return nullptr;
}

/// Whether a compile-time attribute can stand for an argument of `type`.
static bool attributeFits(Attribute attr, const SchemaType &type) {
  if (isa<UnitAttr>(attr))
    return type.optional || type.optionalList;
  if (type.list) {
    if (auto array = dyn_cast<DenseI64ArrayAttr>(attr))
      return type.base == SchemaBaseType::Int &&
             (!type.listSize || int64_t(array.size()) == *type.listSize);
    auto array = dyn_cast<ArrayAttr>(attr);
    if (!array)
      // A single integer broadcasts to an int[N] (stride=1).
      return type.base == SchemaBaseType::Int && type.listSize &&
             isa<IntegerAttr>(attr);
    SchemaType element = type;
    element.list = false;
    element.optionalList = false;
    return (!type.listSize || int64_t(array.size()) == *type.listSize) &&
           llvm::all_of(array,
                        [&](Attribute a) { return attributeFits(a, element); });
  }
  switch (type.base) {
  case SchemaBaseType::Int:
    return isa<IntegerAttr>(attr) && !isa<BoolAttr>(attr);
  case SchemaBaseType::Float:
    return isa<FloatAttr, IntegerAttr>(attr) && !isa<BoolAttr>(attr);
  case SchemaBaseType::Bool:
    return isa<BoolAttr>(attr);
  case SchemaBaseType::Scalar:
    return isa<FloatAttr, IntegerAttr, BoolAttr>(attr);
  case SchemaBaseType::Str:
    return isa<StringAttr>(attr);
  case SchemaBaseType::ScalarType:
    return isa<TypeAttr>(attr);
  case SchemaBaseType::Tensor:
    return false; // tensors are operands
  default:
    return isa<StringAttr>(attr);
  }
}

/// Whether an operand of `type` can stand for an argument of `schemaType`.
static bool operandFits(Type type, const SchemaType &schemaType) {
  if (schemaType.list)
    return false; // lists are compile-time arguments or containers
  switch (schemaType.base) {
  case SchemaBaseType::Tensor:
    return isa<MemRefType>(type);
  case SchemaBaseType::Int:
    return type.isIndex() || (type.isSignlessInteger() && !type.isInteger(1));
  case SchemaBaseType::Float:
    return isa<FloatType>(type);
  case SchemaBaseType::Bool:
    return type.isInteger(1);
  case SchemaBaseType::Scalar:
    return type.isIntOrIndexOrFloat();
  default:
    return false;
  }
}

std::string mlir::wrapper::getShimName(const ExternKernel &kernel,
                                       ExternVariant variant) {
  std::string name = "wrapper_shim_" + kernel.schema.name;
  if (variant == ExternVariant::Out)
    name += "_out";
  else if (variant == ExternVariant::InPlace)
    name += "_inplace";
  if (kernel.abiVersion > 1)
    name += "_v" + std::to_string(kernel.abiVersion);
  return name;
}

FailureOr<SmallVector<ExternArgumentBinding>>
mlir::wrapper::bindExternCall(Operation *op, StringRef callee,
                              const ExternKernel &kernel, TypeRange inputs,
                              DictionaryAttr args) {
  const Schema &schema = kernel.schema;
  std::string name = callee.str();
  // Compile-time arguments must name schema arguments and fit their types.
  if (args) {
    for (NamedAttribute entry : args) {
      const SchemaArgument *arg = schema.lookup(entry.getName());
      if (!arg)
        return op->emitOpError() << "'" << name << "' has no argument '"
                                 << entry.getName().getValue()
                                 << "' (schema: " << schema.str() << ")";
      if (!attributeFits(entry.getValue(), arg->type))
        return op->emitOpError()
               << "argument '" << arg->name << "' of '" << name << "' has type "
               << arg->type.str() << ", got " << entry.getValue();
    }
  }
  // Operands take the other arguments in order.
  SmallVector<ExternArgumentBinding> bindings;
  unsigned next = 0;
  for (const SchemaArgument &arg : schema.arguments) {
    ExternArgumentBinding binding;
    if (Attribute attr = args ? args.get(arg.name) : Attribute()) {
      binding.kind = ExternArgumentBinding::Attribute;
      binding.attr = attr;
    } else if (next < inputs.size() && operandFits(inputs[next], arg.type)) {
      binding.kind = ExternArgumentBinding::Operand;
      binding.operand = next++;
    } else if (next < inputs.size() && !arg.defaultValue &&
               !arg.type.optional) {
      return op->emitOpError() << "operand #" << next << " of '" << name
                               << "' is argument '" << arg.name << "' of type "
                               << arg.type.str() << ", got " << inputs[next];
    } else if (!arg.defaultValue && !arg.type.optional) {
      return op->emitOpError()
             << "'" << name << "' needs argument '" << arg.name << "' of type "
             << arg.type.str() << ", which the call does not give";
    }
    bindings.push_back(binding);
  }
  if (next < inputs.size())
    return op->emitOpError()
           << "operand #" << next << " of '" << name
           << "' has no argument to stand for (schema: " << schema.str() << ")";
  return bindings;
}

LogicalResult
mlir::wrapper::verifyExternCall(Operation *op, StringRef callee,
                                const ExternKernel &kernel, TypeRange inputs,
                                DictionaryAttr args, TypeRange results,
                                ArrayRef<ExternResultKind> kinds) {
  if (failed(bindExternCall(op, callee, kernel, inputs, args)))
    return failure();
  const Schema &schema = kernel.schema;
  std::string name = callee.str();
  if (results.size() != schema.returns.size())
    return op->emitOpError()
           << "'" << name << "' returns " << schema.returns.size()
           << (schema.returns.size() == 1 ? " tensor" : " tensors")
           << ", but the call has " << results.size();
  for (auto [index, ret] : llvm::enumerate(schema.returns)) {
    ExternResultKind expected =
        ret.type.list ? ExternResultKind::BufferList : ExternResultKind::Buffer;
    if (ret.type.base != SchemaBaseType::Tensor || kinds[index] != expected)
      return op->emitOpError()
             << "result #" << index << " of '" << name << "' is a "
             << ret.type.str() << " (schema: " << schema.str() << "), got "
             << results[index];
  }
  return success();
}
