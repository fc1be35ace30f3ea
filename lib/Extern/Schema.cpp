//===- Schema.cpp - PyTorch-style operator schemas ------------------------===//
//
// Part of the Wrapper project.
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Extern/Schema.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"

#include <cctype>

using namespace mlir;
using namespace mlir::wrapper;

//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

static StringRef baseName(SchemaBaseType base) {
  switch (base) {
  case SchemaBaseType::Tensor:
    return "Tensor";
  case SchemaBaseType::Int:
    return "int";
  case SchemaBaseType::Float:
    return "float";
  case SchemaBaseType::Bool:
    return "bool";
  case SchemaBaseType::Scalar:
    return "Scalar";
  case SchemaBaseType::ScalarType:
    return "ScalarType";
  case SchemaBaseType::Str:
    return "str";
  case SchemaBaseType::Device:
    return "Device";
  case SchemaBaseType::Layout:
    return "Layout";
  case SchemaBaseType::MemoryFormat:
    return "MemoryFormat";
  case SchemaBaseType::Generator:
    return "Generator";
  }
  return "?";
}

std::string SchemaType::str() const {
  std::string text = baseName(base).str();
  if (!aliasSet.empty())
    text += "(" + aliasSet + (mutates ? "!" : "") + ")";
  if (optional)
    text += "?";
  if (list) {
    text += "[";
    if (listSize)
      text += std::to_string(*listSize);
    text += "]";
    if (optionalList)
      text += "?";
  }
  return text;
}

std::string Schema::qualifiedName() const {
  std::string text = ns.empty() ? name : ns + "::" + name;
  if (!overload.empty())
    text += "." + overload;
  return text;
}

bool Schema::isInPlace() const {
  if (!StringRef(name).ends_with("_") || StringRef(name).starts_with("__"))
    return false;
  const SchemaArgument *self = lookup("self");
  return self && self->type.mutates;
}

bool Schema::isOutVariant() const {
  return llvm::any_of(arguments, [](const SchemaArgument &arg) {
    return arg.keywordOnly && arg.type.mutates;
  });
}

unsigned Schema::numPositional() const {
  unsigned count = 0;
  for (const SchemaArgument &arg : arguments)
    if (!arg.keywordOnly)
      ++count;
  return count;
}

const SchemaArgument *Schema::lookup(StringRef argName) const {
  for (const SchemaArgument &arg : arguments)
    if (arg.name == argName)
      return &arg;
  return nullptr;
}

std::string Schema::str() const {
  std::string text = qualifiedName() + "(";
  bool keyword = false;
  for (auto [index, arg] : llvm::enumerate(arguments)) {
    if (index)
      text += ", ";
    if (arg.keywordOnly && !keyword) {
      text += "*, ";
      keyword = true;
    }
    text += arg.type.str() + " " + arg.name;
    if (arg.defaultValue)
      text += "=" + *arg.defaultValue;
  }
  text += ") -> ";
  if (returns.size() == 1 && returns[0].name.empty())
    return text + returns[0].type.str();
  text += "(";
  for (auto [index, ret] : llvm::enumerate(returns)) {
    if (index)
      text += ", ";
    text += ret.type.str();
    if (!ret.name.empty())
      text += " " + ret.name;
  }
  return text + ")";
}

//===----------------------------------------------------------------------===//
// Parsing
//===----------------------------------------------------------------------===//

namespace {
/// A recursive-descent reader of one schema string.
class SchemaParser {
public:
  SchemaParser(StringRef text, std::string &error) : text(text), error(error) {}

  std::optional<Schema> parse();

private:
  void skipSpace() {
    while (pos < text.size() && isspace(static_cast<unsigned char>(text[pos])))
      ++pos;
  }
  bool consume(StringRef token) {
    skipSpace();
    if (!text.substr(pos).starts_with(token))
      return false;
    pos += token.size();
    return true;
  }
  bool fail(const Twine &expected) {
    if (error.empty())
      error = ("at column " + Twine(pos + 1) + ": expected " + expected +
               (pos < text.size() ? " before '" + text.substr(pos, 12) + "'"
                                  : Twine(" at the end")))
                  .str();
    return false;
  }
  bool expect(StringRef token) {
    return consume(token) || fail("'" + token + "'");
  }
  /// [A-Za-z_][A-Za-z0-9_]*
  std::optional<std::string> identifier() {
    skipSpace();
    size_t start = pos;
    if (pos < text.size() &&
        (isalpha(static_cast<unsigned char>(text[pos])) || text[pos] == '_'))
      while (
          pos < text.size() &&
          (isalnum(static_cast<unsigned char>(text[pos])) || text[pos] == '_'))
        ++pos;
    if (pos == start)
      return std::nullopt;
    return text.substr(start, pos - start).str();
  }
  bool type(SchemaType &result);
  bool defaultValue(std::string &result);
  bool argument(SchemaArgument &result, bool keywordOnly);
  bool returns(std::vector<SchemaReturn> &result);

  StringRef text;
  size_t pos = 0;
  std::string &error;
};
} // namespace

bool SchemaParser::type(SchemaType &result) {
  std::optional<std::string> name = identifier();
  if (!name)
    return fail("a type");
  std::optional<SchemaBaseType> base =
      llvm::StringSwitch<std::optional<SchemaBaseType>>(*name)
          .Case("Tensor", SchemaBaseType::Tensor)
          .Case("int", SchemaBaseType::Int)
          .Case("SymInt", SchemaBaseType::Int)
          .Case("float", SchemaBaseType::Float)
          .Case("bool", SchemaBaseType::Bool)
          .Case("Scalar", SchemaBaseType::Scalar)
          .Case("ScalarType", SchemaBaseType::ScalarType)
          .Case("str", SchemaBaseType::Str)
          .Case("Device", SchemaBaseType::Device)
          .Case("Layout", SchemaBaseType::Layout)
          .Case("MemoryFormat", SchemaBaseType::MemoryFormat)
          .Case("Generator", SchemaBaseType::Generator)
          .Default(std::nullopt);
  if (!base) {
    error = "unknown type '" + *name + "'";
    return false;
  }
  result.base = *base;
  // Tensor(a) / Tensor(a!): an alias set, written when marked '!'.
  if (result.base == SchemaBaseType::Tensor && consume("(")) {
    std::optional<std::string> set = identifier();
    if (!set)
      return fail("an alias set name");
    result.aliasSet = *set;
    result.mutates = consume("!");
    if (!expect(")"))
      return false;
  }
  if (consume("?"))
    result.optional = true;
  if (consume("[")) {
    result.list = true;
    skipSpace();
    size_t start = pos;
    while (pos < text.size() && isdigit(static_cast<unsigned char>(text[pos])))
      ++pos;
    if (pos > start) {
      int64_t size = 0;
      if (text.substr(start, pos - start).getAsInteger(10, size) || size < 0)
        return fail("a list size");
      result.listSize = size;
    }
    if (!expect("]"))
      return false;
    if (consume("?"))
      result.optionalList = true;
  }
  return true;
}

bool SchemaParser::defaultValue(std::string &result) {
  // A default runs to the next ',' or ')' at bracket depth 0 (lists like
  // [1, 1] and strings like "mean" included).
  skipSpace();
  size_t start = pos;
  int depth = 0;
  while (pos < text.size()) {
    char c = text[pos];
    if (c == '"' || c == '\'') {
      char quote = c;
      for (++pos; pos < text.size() && text[pos] != quote; ++pos)
        if (text[pos] == '\\')
          ++pos;
      if (pos >= text.size())
        return fail("the end of a string default");
      ++pos;
      continue;
    }
    if (c == '[')
      ++depth;
    else if (c == ']')
      --depth;
    else if ((c == ',' || c == ')') && depth == 0)
      break;
    if (depth < 0)
      return fail("a balanced list default");
    ++pos;
  }
  result = text.substr(start, pos - start).rtrim().str();
  if (result.empty())
    return fail("a default value");
  return true;
}

bool SchemaParser::argument(SchemaArgument &result, bool keywordOnly) {
  result.keywordOnly = keywordOnly;
  if (!type(result.type))
    return false;
  std::optional<std::string> name = identifier();
  if (!name)
    return fail("an argument name");
  result.name = *name;
  if (consume("=")) {
    std::string value;
    if (!defaultValue(value))
      return false;
    result.defaultValue = value;
  }
  return true;
}

bool SchemaParser::returns(std::vector<SchemaReturn> &result) {
  auto one = [&]() -> bool {
    SchemaReturn ret;
    if (!type(ret.type))
      return false;
    if (std::optional<std::string> name = identifier())
      ret.name = *name;
    result.push_back(ret);
    return true;
  };
  if (!consume("("))
    return one();
  if (consume(")"))
    return true; // () -> no results
  do {
    if (!one())
      return false;
  } while (consume(","));
  return expect(")");
}

std::optional<Schema> SchemaParser::parse() {
  Schema schema;
  std::optional<std::string> first = identifier();
  if (!first) {
    fail("an operator name");
    return std::nullopt;
  }
  if (consume("::")) {
    schema.ns = *first;
    std::optional<std::string> name = identifier();
    if (!name) {
      fail("an operator name after '::'");
      return std::nullopt;
    }
    schema.name = *name;
  } else {
    schema.name = *first;
  }
  if (consume(".")) {
    std::optional<std::string> overload = identifier();
    if (!overload) {
      fail("an overload name after '.'");
      return std::nullopt;
    }
    schema.overload = *overload;
  }
  if (!expect("("))
    return std::nullopt;
  bool keywordOnly = false;
  if (!consume(")")) {
    do {
      if (consume("*")) {
        if (keywordOnly) {
          error = "a second '*' in the argument list";
          return std::nullopt;
        }
        keywordOnly = true;
        continue;
      }
      SchemaArgument arg;
      if (!argument(arg, keywordOnly))
        return std::nullopt;
      if (schema.lookup(arg.name)) {
        error = "argument '" + arg.name + "' appears twice";
        return std::nullopt;
      }
      // Positional arguments without defaults may not follow ones with.
      if (!keywordOnly && !arg.defaultValue && !schema.arguments.empty() &&
          !schema.arguments.back().keywordOnly &&
          schema.arguments.back().defaultValue) {
        error = "argument '" + arg.name +
                "' has no default but follows one that has";
        return std::nullopt;
      }
      schema.arguments.push_back(arg);
    } while (consume(","));
    if (!expect(")"))
      return std::nullopt;
  }
  if (!expect("->") || !returns(schema.returns))
    return std::nullopt;
  skipSpace();
  if (pos != text.size()) {
    fail("the end of the schema");
    return std::nullopt;
  }
  return schema;
}

std::optional<Schema> mlir::wrapper::parseSchema(StringRef text,
                                                 std::string &error) {
  error.clear();
  return SchemaParser(text, error).parse();
}
