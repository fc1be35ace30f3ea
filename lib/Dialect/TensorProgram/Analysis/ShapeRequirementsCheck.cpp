//===- ShapeRequirementsCheck.cpp - checking shape requirements -----------===//
//
// Part of the Wrapper project.
//
// Checks the requirements that ShapeRequirements.cpp collects against input
// shapes (the interpreter, wrapper-run) and emits them as a C function (the
// model.so's entry checks).
//
//===----------------------------------------------------------------------===//

#include "Wrapper/Dialect/TensorProgram/Analysis/ShapeRequirements.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tensor_program;

std::optional<std::string>
ShapeRequirements::check(ArrayRef<SmallVector<int64_t>> inputShapes) const {
  for (const ShapeRequirement &req : requirements) {
    std::optional<int64_t> lhs = sizes.evaluate(req.lhs, inputShapes);
    std::optional<int64_t> rhs = sizes.evaluate(req.rhs, inputShapes);
    std::string l = sizes.describe(req.lhs, inputNames);
    std::string r = sizes.describe(req.rhs, inputNames);
    if (!lhs || !rhs)
      return "the input shapes do not fit the program: a size computed "
             "from them overflows (" +
             l + ", " + r + "), as " + req.reason + " needs them";
    bool ok = false;
    std::string relation;
    switch (req.kind) {
    case ShapeRequirement::Kind::Equal:
      ok = *lhs == *rhs;
      relation = "must equal";
      break;
    case ShapeRequirement::Kind::LessEqual:
      ok = *lhs <= *rhs;
      relation = "must not exceed";
      break;
    case ShapeRequirement::Kind::EqualOrOne:
      ok = *lhs == *rhs || *lhs == 1;
      relation = "must be 1 or equal";
      break;
    }
    auto withValue = [&](SizeExprTable::Id id, const std::string &text,
                         int64_t value) {
      return sizes.getConstant(id) ? text
                                   : text + " (" + std::to_string(value) + ")";
    };
    if (!ok)
      return "the input shapes do not fit the program: " +
             withValue(req.lhs, l, *lhs) + " " + relation + " " +
             withValue(req.rhs, r, *rhs) + ", as " + req.reason + " requires";
  }
  return std::nullopt;
}

/// `text` as the body of a C string literal.
static std::string cString(StringRef text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (c == '%') {
      out += "%%";
      continue;
    }
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

void ShapeRequirements::emitC(raw_ostream &os) const {
  os << R"c(/* Overflow-checked size arithmetic of the shape requirements: a result
 * that does not fit clears *ok. */
static inline int64_t sz_add(int *ok, int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) *ok = 0;
  return r;
}
static inline int64_t sz_sub(int *ok, int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) *ok = 0;
  return r;
}
static inline int64_t sz_mul(int *ok, int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) *ok = 0;
  return r;
}
static inline int64_t sz_floordiv(int *ok, int64_t a, int64_t b) {
  if (b == 0 || (a == INT64_MIN && b == -1)) { *ok = 0; return 0; }
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
static inline int64_t sz_ceildiv(int *ok, int64_t a, int64_t b) {
  if (b == 0 || (a == INT64_MIN && b == -1)) { *ok = 0; return 0; }
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) == (b < 0))) ? q + 1 : q;
}
static inline int64_t sz_rem(int *ok, int64_t a, int64_t b) {
  if (b == 0 || (a == INT64_MIN && b == -1)) { *ok = 0; return 0; }
  return a % b;
}
static inline int64_t sz_min(int *ok, int64_t a, int64_t b) {
  (void)ok;
  return a < b ? a : b;
}
static inline int64_t sz_max(int *ok, int64_t a, int64_t b) {
  (void)ok;
  return a > b ? a : b;
}

/* The relations between input sizes that the compiled code relies on
 * (ShapeRequirements of the entry function). */
static int check_shapes(const int64_t *const *dims, char *message,
                        size_t size) {
  int ok = 1;
  int64_t lhs, rhs;
  (void)dims;
  (void)lhs;
  (void)rhs;
)c";
  for (const ShapeRequirement &req : requirements) {
    std::string l = sizes.describe(req.lhs, inputNames);
    std::string r = sizes.describe(req.rhs, inputNames);
    const char *test = nullptr, *relation = nullptr;
    switch (req.kind) {
    case ShapeRequirement::Kind::Equal:
      test = "lhs == rhs";
      relation = "must equal";
      break;
    case ShapeRequirement::Kind::LessEqual:
      test = "lhs <= rhs";
      relation = "must not exceed";
      break;
    case ShapeRequirement::Kind::EqualOrOne:
      test = "lhs == rhs || lhs == 1";
      relation = "must be 1 or equal";
      break;
    }
    std::string lhsC = sizes.toC(req.lhs), rhsC = sizes.toC(req.rhs);
    os << "  lhs = " << lhsC << ";\n";
    os << "  rhs = " << rhsC << ";\n";
    if (StringRef(lhsC).contains("sz_") || StringRef(rhsC).contains("sz_"))
      os << "  if (!ok) {\n    snprintf(message, size, \"the input shapes do "
            "not fit the program: a size computed from them overflows ("
         << cString(l) << ", " << cString(r) << "), as " << cString(req.reason)
         << " needs them\");\n    return 1;\n  }\n";
    // Constants are printed as they are; other sizes with their value.
    bool lhsConstant = sizes.getConstant(req.lhs).has_value();
    bool rhsConstant = sizes.getConstant(req.rhs).has_value();
    os << "  if (!(" << test << ")) {\n    snprintf(message, size, \"the input "
       << "shapes do not fit the program: " << cString(l)
       << (lhsConstant ? "" : " (%lld)") << " " << relation << " " << cString(r)
       << (rhsConstant ? "" : " (%lld)") << ", as " << cString(req.reason)
       << " requires\"";
    if (!lhsConstant)
      os << ", (long long)lhs";
    if (!rhsConstant)
      os << ", (long long)rhs";
    os << ");\n    return 1;\n  }\n";
  }
  os << "  return 0;\n}\n";
}
