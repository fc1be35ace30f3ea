//===- ConstantEvaluationRules.cpp - scalar rules of constant ops ---------===//
//
// Part of the Wrapper project.
//
// The per-element rule of every elementwise op, from its definition in
// TensorProgramElementwiseOps.td: floats in double, integers exactly in
// int64_t with wrap-around, i1 as 0 and 1.
//
//===----------------------------------------------------------------------===//

#include "ConstantEvaluationRules.h"

#include "Wrapper/Dialect/TensorProgram/IR/TensorProgramOps.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::tensor_program;
using namespace mlir::tensor_program::detail;

namespace {
double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

/// The rule of a float-operand binary op, or null.
Rule floatBinary(Operation *op) {
  using F = std::function<double(double, double)>;
  F f =
      TypeSwitch<Operation *, F>(op)
          .Case([](AddOp) { return [](double a, double b) { return a + b; }; })
          .Case([](SubOp) { return [](double a, double b) { return a - b; }; })
          .Case([](MulOp) { return [](double a, double b) { return a * b; }; })
          .Case([](DivOp) { return [](double a, double b) { return a / b; }; })
          .Case([](MaxOp) {
            return [](double a, double b) {
              return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b);
            };
          })
          .Case([](MinOp) {
            return [](double a, double b) {
              return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b);
            };
          })
          .Case([](PowOp) {
            return [](double a, double b) { return std::pow(a, b); };
          })
          .Case([](FloorDivOp) {
            return [](double a, double b) { return std::floor(a / b); };
          })
          .Case([](FmodOp) {
            return [](double a, double b) { return std::fmod(a, b); };
          })
          .Case([](RemainderOp) {
            // Python's %: the sign of the divisor.
            return [](double a, double b) {
              double r = std::fmod(a, b);
              return r != 0 && ((r < 0) != (b < 0)) ? r + b : r;
            };
          })
          .Case([](Atan2Op) {
            return [](double a, double b) { return std::atan2(a, b); };
          })
          .Default([](Operation *) { return F(); });
  if (!f)
    return {};
  return [f](ArrayRef<Scalar> x, Scalar &r) {
    r.f = f(x[0].f, x[1].f);
    return true;
  };
}

/// The rule of an integer-operand binary op, or null.
Rule intBinary(Operation *op) {
  using F = std::function<bool(int64_t, int64_t, int64_t &)>;
  F f = TypeSwitch<Operation *, F>(op)
            .Case([](AddOp) {
              return [](int64_t a, int64_t b, int64_t &r) {
                r = wrap(bits(a) + bits(b));
                return true;
              };
            })
            .Case([](SubOp) {
              return [](int64_t a, int64_t b, int64_t &r) {
                r = wrap(bits(a) - bits(b));
                return true;
              };
            })
            .Case([](MulOp) {
              return [](int64_t a, int64_t b, int64_t &r) {
                r = wrap(bits(a) * bits(b));
                return true;
              };
            })
            .Case([](DivOp) {
              // Toward zero, as arith.divsi; by zero or overflowing: open.
              return [](int64_t a, int64_t b, int64_t &r) {
                if (b == 0 ||
                    (a == std::numeric_limits<int64_t>::min() && b == -1))
                  return false;
                r = a / b;
                return true;
              };
            })
            .Case([](FloorDivOp) {
              return [](int64_t a, int64_t b, int64_t &r) {
                if (b == 0 ||
                    (a == std::numeric_limits<int64_t>::min() && b == -1))
                  return false;
                r = a / b;
                if ((a % b != 0) && ((a < 0) != (b < 0)))
                  --r;
                return true;
              };
            })
            .Case([](FmodOp) {
              return [](int64_t a, int64_t b, int64_t &r) {
                if (b == 0 || b == -1) {
                  r = 0;
                  return b != 0;
                }
                r = a % b;
                return true;
              };
            })
            .Case([](RemainderOp) {
              return [](int64_t a, int64_t b, int64_t &r) {
                if (b == 0 || b == -1) {
                  r = 0;
                  return b != 0;
                }
                r = a % b;
                if (r != 0 && ((r < 0) != (b < 0)))
                  r += b;
                return true;
              };
            })
            .Case([](MaxOp) {
              return [](int64_t a, int64_t b, int64_t &r) {
                r = std::max(a, b);
                return true;
              };
            })
            .Case([](MinOp) {
              return [](int64_t a, int64_t b, int64_t &r) {
                r = std::min(a, b);
                return true;
              };
            })
            .Case([](PowOp) {
              // Negative exponents have no integer value: open.
              return [](int64_t a, int64_t b, int64_t &r) {
                if (b < 0)
                  return false;
                uint64_t result = 1, base = bits(a);
                for (uint64_t e = bits(b); e; e >>= 1) {
                  if (e & 1)
                    result *= base;
                  base *= base;
                }
                r = wrap(result);
                return true;
              };
            })
            .Case([](AndOp) {
              return [](int64_t a, int64_t b, int64_t &r) {
                r = a & b;
                return true;
              };
            })
            .Case([](OrOp) {
              return [](int64_t a, int64_t b, int64_t &r) {
                r = a | b;
                return true;
              };
            })
            .Case([](XorOp) {
              return [](int64_t a, int64_t b, int64_t &r) {
                r = a ^ b;
                return true;
              };
            })
            .Default([](Operation *) { return F(); });
  if (!f)
    return {};
  return [f](ArrayRef<Scalar> x, Scalar &r) { return f(x[0].i, x[1].i, r.i); };
}

/// The rule of a float unary op, or null.
Rule floatUnary(Operation *op) {
  using F = std::function<double(double)>;
  F f =
      TypeSwitch<Operation *, F>(op)
          .Case([](NegOp) { return [](double x) { return -x; }; })
          .Case([](AbsOp) { return [](double x) { return std::fabs(x); }; })
          .Case([](ExpOp) { return [](double x) { return std::exp(x); }; })
          .Case([](LogOp) { return [](double x) { return std::log(x); }; })
          .Case([](SqrtOp) { return [](double x) { return std::sqrt(x); }; })
          .Case([](RsqrtOp) {
            return [](double x) { return 1.0 / std::sqrt(x); };
          })
          .Case([](TanhOp) { return [](double x) { return std::tanh(x); }; })
          .Case([](ErfOp) { return [](double x) { return std::erf(x); }; })
          .Case([](SigmoidOp) { return [](double x) { return sigmoid(x); }; })
          .Case([](ReluOp) {
            return
                [](double x) { return std::isnan(x) ? x : std::max(x, 0.0); };
          })
          .Case([](SiluOp) { return [](double x) { return x * sigmoid(x); }; })
          .Case([](SinOp) { return [](double x) { return std::sin(x); }; })
          .Case([](CosOp) { return [](double x) { return std::cos(x); }; })
          .Case([](TanOp) { return [](double x) { return std::tan(x); }; })
          .Case([](AsinOp) { return [](double x) { return std::asin(x); }; })
          .Case([](AcosOp) { return [](double x) { return std::acos(x); }; })
          .Case([](AtanOp) { return [](double x) { return std::atan(x); }; })
          .Case([](SinhOp) { return [](double x) { return std::sinh(x); }; })
          .Case([](CoshOp) { return [](double x) { return std::cosh(x); }; })
          .Case([](AsinhOp) { return [](double x) { return std::asinh(x); }; })
          .Case([](AcoshOp) { return [](double x) { return std::acosh(x); }; })
          .Case([](AtanhOp) { return [](double x) { return std::atanh(x); }; })
          .Case([](Log1pOp) { return [](double x) { return std::log1p(x); }; })
          .Case([](Expm1Op) { return [](double x) { return std::expm1(x); }; })
          .Case([](Log2Op) { return [](double x) { return std::log2(x); }; })
          .Case([](Log10Op) { return [](double x) { return std::log10(x); }; })
          .Case([](Exp2Op) { return [](double x) { return std::exp2(x); }; })
          .Case([](FloorOp) { return [](double x) { return std::floor(x); }; })
          .Case([](CeilOp) { return [](double x) { return std::ceil(x); }; })
          // Ties to even (the default rounding mode).
          .Case([](RoundOp) {
            return [](double x) { return std::nearbyint(x); };
          })
          .Case([](TruncOp) { return [](double x) { return std::trunc(x); }; })
          .Case([](SignOp) {
            return [](double x) {
              return std::isnan(x) ? x : (x > 0 ? 1.0 : (x < 0 ? -1.0 : x));
            };
          })
          .Case([](GeluOp gelu) -> F {
            if (gelu.getApproximate() == GeluApproximation::none)
              return [](double x) {
                return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
              };
            return [](double x) {
              return 0.5 * x *
                     (1 + std::tanh(std::sqrt(2.0 / M_PI) *
                                    (x + 0.044715 * x * x * x)));
            };
          })
          .Default([](Operation *) { return F(); });
  if (!f)
    return {};
  return [f](ArrayRef<Scalar> x, Scalar &r) {
    r.f = f(x[0].f);
    return true;
  };
}

/// The rule of an integer unary op, or null.
Rule intUnary(Operation *op, bool isBool) {
  using F = std::function<int64_t(int64_t)>;
  F f =
      TypeSwitch<Operation *, F>(op)
          .Case([](NegOp) { return [](int64_t x) { return wrap(-bits(x)); }; })
          .Case([](AbsOp) {
            return [](int64_t x) { return x < 0 ? wrap(-bits(x)) : x; };
          })
          .Case([](SignOp) {
            return [](int64_t x) -> int64_t { return (x > 0) - (x < 0); };
          })
          .Case([](ReluOp) {
            return [](int64_t x) { return std::max<int64_t>(x, 0); };
          })
          .Case<FloorOp, CeilOp, RoundOp, TruncOp>(
              [](auto) { return [](int64_t x) { return x; }; })
          .Case([&](NotOp) -> F {
            if (isBool)
              return [](int64_t x) -> int64_t { return x == 0; };
            return [](int64_t x) { return ~x; };
          })
          .Default([](Operation *) { return F(); });
  if (!f)
    return {};
  return [f](ArrayRef<Scalar> x, Scalar &r) {
    r.i = f(x[0].i);
    return true;
  };
}

bool compare(ComparePredicate predicate, double a, double b) {
  bool unordered = std::isnan(a) || std::isnan(b);
  switch (predicate) {
  case ComparePredicate::eq:
    return !unordered && a == b;
  case ComparePredicate::ne:
    return unordered || a != b;
  case ComparePredicate::lt:
    return !unordered && a < b;
  case ComparePredicate::le:
    return !unordered && a <= b;
  case ComparePredicate::gt:
    return !unordered && a > b;
  case ComparePredicate::ge:
    return !unordered && a >= b;
  }
  return false;
}

bool compare(ComparePredicate predicate, int64_t a, int64_t b) {
  switch (predicate) {
  case ComparePredicate::eq:
    return a == b;
  case ComparePredicate::ne:
    return a != b;
  case ComparePredicate::lt:
    return a < b;
  case ComparePredicate::le:
    return a <= b;
  case ComparePredicate::gt:
    return a > b;
  case ComparePredicate::ge:
    return a >= b;
  }
  return false;
}

} // namespace

Rule mlir::tensor_program::detail::elementwiseRule(Operation *op,
                                                   ArrayRef<bool> operandFloat,
                                                   Type result) {
  if (auto cmp = dyn_cast<CompareOp>(op)) {
    ComparePredicate predicate = cmp.getPredicate();
    if (operandFloat[0])
      return [predicate](ArrayRef<Scalar> x, Scalar &r) {
        r.i = compare(predicate, x[0].f, x[1].f);
        return true;
      };
    return [predicate](ArrayRef<Scalar> x, Scalar &r) {
      r.i = compare(predicate, x[0].i, x[1].i);
      return true;
    };
  }
  if (isa<WhereOp>(op))
    return [](ArrayRef<Scalar> x, Scalar &r) {
      r = x[0].i != 0 ? x[1] : x[2];
      return true;
    };
  if (isa<CastOp>(op)) {
    bool fromFloat = operandFloat[0];
    if (result.isInteger(1))
      return [fromFloat](ArrayRef<Scalar> x, Scalar &r) {
        r.i = fromFloat ? x[0].f != 0 : x[0].i != 0;
        return true;
      };
    if (isa<FloatType>(result))
      return [fromFloat](ArrayRef<Scalar> x, Scalar &r) {
        r.f = fromFloat ? x[0].f : static_cast<double>(x[0].i);
        return true;
      };
    if (!fromFloat) // Integer to integer: wrapped to the width later.
      return [](ArrayRef<Scalar> x, Scalar &r) {
        r.i = x[0].i;
        return true;
      };
    // Float to integer: toward zero; NaN and values the width cannot hold
    // have no defined result.
    unsigned width = result.getIntOrFloatBitWidth();
    double limit = std::ldexp(1.0, static_cast<int>(width) - 1);
    return [limit](ArrayRef<Scalar> x, Scalar &r) {
      double t = std::trunc(x[0].f);
      if (!(t >= -limit && t < limit))
        return false;
      r.i = static_cast<int64_t>(t);
      return true;
    };
  }
  bool isFloat = operandFloat.back();
  if (op->getNumOperands() == 2)
    return isFloat ? floatBinary(op) : intBinary(op);
  if (op->getNumOperands() == 1)
    return isFloat ? floatUnary(op) : intUnary(op, result.isInteger(1));
  return {};
}
