"""Elementwise core ATen ops: arithmetic, comparisons, logic, activations,
selection and casts."""

import torch
from torch._prims_common import ELEMENTWISE_TYPE_PROMOTION_KIND, elementwise_dtypes

from .registry import aten, register
from .values import Size, Tensor, UnsupportedError


def _representative(value):
    """A stand-in for type promotion: a meta tensor of the value's dtype
    (zero-dimensional for rank 0, which promotes like a scalar), or the
    number itself."""
    if isinstance(value, Tensor):
        return torch.empty((1,) if value.rank else (), dtype=value.dtype, device="meta")
    if isinstance(value, Size):
        return 1
    return value


def promoted(*values):
    """The dtype PyTorch computes `values` in (its default promotion)."""
    _, result = elementwise_dtypes(*[_representative(v) for v in values],
                                   type_promotion_kind=ELEMENTWISE_TYPE_PROMOTION_KIND.DEFAULT)
    return result


def binary(imp, node, opname, a, b, dtype=None):
    """`opname(a, b)` computed in the node's result dtype (or `dtype`)."""
    shape, result_dtype = imp.meta(node)
    dtype = dtype or result_dtype
    operands = [imp.as_tensor(a, dtype), imp.as_tensor(b, dtype)]
    result = imp.nary(opname, operands, shape, dtype)
    return imp.cast(result, result_dtype)


def unary(imp, node, opname, x, attrs=""):
    shape, dtype = imp.meta(node)
    x = imp.as_tensor(x, dtype)
    return imp.op(shape, dtype, f"tensor_program.{opname} {x.name}{attrs} : {x.type()}")


def _scaled(imp, node, b, alpha, dtype):
    if alpha is None or alpha == 1:
        return b
    if isinstance(b, Tensor):
        return imp.nary("mul", [imp.as_tensor(b, dtype), imp.scalar(alpha, dtype)],
                        b.shape, dtype)
    return b * alpha


@register(aten.add.Tensor, aten.add.Scalar)
def _add(imp, node, a, b, alpha=None):
    _, dtype = imp.meta(node)
    return binary(imp, node, "add", a, _scaled(imp, node, b, alpha, dtype))


@register(aten.sub.Tensor, aten.sub.Scalar)
def _sub(imp, node, a, b, alpha=None):
    _, dtype = imp.meta(node)
    return binary(imp, node, "sub", a, _scaled(imp, node, b, alpha, dtype))


@register(aten.rsub.Tensor, aten.rsub.Scalar)
def _rsub(imp, node, a, b, alpha=None):
    _, dtype = imp.meta(node)
    return binary(imp, node, "sub", b, _scaled(imp, node, a, alpha, dtype))


@register(aten.mul.Tensor, aten.mul.Scalar)
def _mul(imp, node, a, b):
    return binary(imp, node, "mul", a, b)


@register(aten.div.Tensor, aten.div.Scalar, aten.div.Tensor_mode, aten.div.Scalar_mode)
def _div(imp, node, a, b, rounding_mode=None):
    shape, dtype = imp.meta(node)
    if rounding_mode is None:
        return binary(imp, node, "div", a, b)
    if dtype.is_floating_point:
        quotient = binary(imp, node, "div", a, b)
        return imp.unary("floor" if rounding_mode == "floor" else "trunc", quotient)
    if rounding_mode == "trunc":
        return binary(imp, node, "div", a, b)  # integer division truncates
    return binary(imp, node, "floor_div", a, b)


@register(aten.floor_divide.default, aten.floor_divide.Scalar)
def _floor_divide(imp, node, a, b):
    shape, dtype = imp.meta(node)
    if dtype.is_floating_point:
        return imp.unary("floor", binary(imp, node, "div", a, b))
    return binary(imp, node, "floor_div", a, b)


@register(aten.maximum.default, aten.max.other)
def _maximum(imp, node, a, b):
    return binary(imp, node, "max", a, b)


@register(aten.minimum.default, aten.min.other)
def _minimum(imp, node, a, b):
    return binary(imp, node, "min", a, b)


# Primitives that PyTorch's reference decompositions (importer.frontend:
# hypot, fmax, fmin, round with decimals, signbit, copysign) leave in a
# graph; the others (erfc, lgamma, digamma, ...) run in PyTorch as before.
register("prims.add.default")(lambda imp, node, a, b: binary(imp, node, "add", a, b))
register("prims.sub.default")(lambda imp, node, a, b: binary(imp, node, "sub", a, b))
register("prims.mul.default")(lambda imp, node, a, b: binary(imp, node, "mul", a, b))
register("prims.div.default")(lambda imp, node, a, b: binary(imp, node, "div", a, b))
register("prims.round.default")(lambda imp, node, x: unary(imp, node, "round", x))


@register("prims.signbit.default")  # PyTorch's decompositions of signbit, copysign
def _signbit(imp, node, x):
    """x < 0, and for zeros whether 1/x is -inf (-0.0); NaN as positive."""
    shape, _ = imp.meta(node)
    dtype = x.dtype if isinstance(x, Tensor) else torch.float32
    x = imp.as_tensor(x, dtype)
    if not dtype.is_floating_point:
        return imp.nary("compare", [x, imp.scalar(0, dtype)], shape, torch.bool, prefix="lt, ")
    zero = imp.scalar(0, dtype)
    negative = imp.nary("compare", [x, zero], shape, torch.bool, prefix="lt, ")
    reciprocal = imp.nary("div", [imp.scalar(1, dtype), x], shape, dtype)
    negative_zero = imp.nary("compare", [reciprocal, zero], shape, torch.bool, prefix="lt, ")
    is_zero = imp.nary("compare", [x, zero], shape, torch.bool, prefix="eq, ")
    return imp.nary("where", [is_zero, negative_zero, negative], shape, torch.bool)


@register("prims.convert_element_type.default")
def _convert_element_type(imp, node, x, dtype):
    _, result_dtype = imp.meta(node)
    return imp.as_tensor(x, result_dtype)


@register("prims.hypot.default")
def _hypot(imp, node, a, b):
    shape, dtype = imp.meta(node)
    a, b = imp.as_tensor(a, dtype), imp.as_tensor(b, dtype)
    squares = imp.nary("add", [imp.nary("mul", [a, a], shape, dtype),
                               imp.nary("mul", [b, b], shape, dtype)], shape, dtype)
    return imp.unary("sqrt", squares)


def _nan_ignoring(imp, node, kind, a, b):
    """fmax/fmin: the larger/smaller value, the other one where one is NaN."""
    shape, dtype = imp.meta(node)
    a, b = imp.as_tensor(a, dtype), imp.as_tensor(b, dtype)
    extremum = imp.nary(kind, [a, b], shape, dtype)
    a_nan = imp.nary("compare", [a, a], shape, torch.bool, prefix="ne, ")
    b_nan = imp.nary("compare", [b, b], shape, torch.bool, prefix="ne, ")
    extremum = imp.nary("where", [a_nan, b, extremum], shape, dtype)
    return imp.nary("where", [b_nan, a, extremum], shape, dtype)


register("prims.fmax.default")(lambda imp, node, a, b: _nan_ignoring(imp, node, "max", a, b))
register("prims.fmin.default")(lambda imp, node, a, b: _nan_ignoring(imp, node, "min", a, b))


@register(aten.fmod.Tensor, aten.fmod.Scalar)
def _fmod(imp, node, a, b):
    return binary(imp, node, "fmod", a, b)


@register(aten.remainder.Tensor, aten.remainder.Scalar, aten.remainder.Scalar_Tensor)
def _remainder(imp, node, a, b):
    return binary(imp, node, "remainder", a, b)


@register(aten.atan2.default)
def _atan2(imp, node, a, b):
    return binary(imp, node, "atan2", a, b)


@register(aten.pow.Tensor_Tensor, aten.pow.Tensor_Scalar, aten.pow.Scalar)
def _pow(imp, node, a, b):
    shape, dtype = imp.meta(node)
    if isinstance(a, Tensor) and isinstance(b, (int, float)) and not isinstance(b, bool):
        x = imp.as_tensor(a, dtype)
        if b == 1:
            return x
        if b == 2:
            return imp.nary("mul", [x, x], shape, dtype)
        if dtype.is_floating_point:
            if b == 0.5:
                return imp.unary("sqrt", x)
            if b == -0.5:
                return imp.unary("rsqrt", x)
            if b == -1:
                return imp.nary("div", [imp.scalar(1, dtype), x], shape, dtype)
    if not dtype.is_floating_point:
        raise UnsupportedError("integer pow with a non-constant exponent")
    return binary(imp, node, "pow", a, b)


def _logical(imp, node, opname, a, b):
    shape, dtype = imp.meta(node)
    operands = [_truth(imp, a), _truth(imp, b)]
    return imp.nary(opname, operands, shape, torch.bool)


def _truth(imp, value):
    """`value != 0` as a bool tensor."""
    if isinstance(value, Tensor):
        if value.dtype == torch.bool:
            return value
        return imp.nary("compare", [value, imp.scalar(0, value.dtype)], value.shape,
                        torch.bool, prefix="ne, ")
    return imp.scalar(bool(value), torch.bool)


@register(aten.logical_and.default)
def _logical_and(imp, node, a, b):
    return _logical(imp, node, "and", a, b)


@register(aten.logical_or.default)
def _logical_or(imp, node, a, b):
    return _logical(imp, node, "or", a, b)


@register(aten.logical_xor.default)
def _logical_xor(imp, node, a, b):
    return _logical(imp, node, "xor", a, b)


@register(aten.logical_not.default)
def _logical_not(imp, node, a):
    return imp.unary("not", _truth(imp, a))


@register(aten.bitwise_and.Tensor, aten.bitwise_and.Scalar)
def _bitwise_and(imp, node, a, b):
    return binary(imp, node, "and", a, b)


@register(aten.bitwise_or.Tensor, aten.bitwise_or.Scalar)
def _bitwise_or(imp, node, a, b):
    return binary(imp, node, "or", a, b)


@register(aten.bitwise_xor.Tensor, aten.bitwise_xor.Scalar)
def _bitwise_xor(imp, node, a, b):
    return binary(imp, node, "xor", a, b)


@register(aten.bitwise_not.default)
def _bitwise_not(imp, node, a):
    return unary(imp, node, "not", a)


_PREDICATES = {
    aten.eq: "eq", aten.ne: "ne", aten.lt: "lt", aten.le: "le", aten.gt: "gt", aten.ge: "ge",
}


def _compare(imp, node, a, b):
    shape, _ = imp.meta(node)
    predicate = _PREDICATES[node.target.overloadpacket]
    dtype = promoted(a, b)
    operands = [imp.as_tensor(a, dtype), imp.as_tensor(b, dtype)]
    return imp.nary("compare", operands, shape, torch.bool, prefix=f"{predicate}, ")


for _packet in _PREDICATES:
    register(_packet.Tensor, _packet.Scalar)(_compare)


_UNARY = {
    aten.neg.default: "neg", aten.abs.default: "abs", aten.exp.default: "exp",
    aten.log.default: "log", aten.sqrt.default: "sqrt", aten.rsqrt.default: "rsqrt",
    aten.tanh.default: "tanh", aten.erf.default: "erf", aten.sigmoid.default: "sigmoid",
    aten.relu.default: "relu", aten.silu.default: "silu", aten.sin.default: "sin",
    aten.cos.default: "cos", aten.tan.default: "tan", aten.floor.default: "floor",
    aten.ceil.default: "ceil", aten.round.default: "round", aten.trunc.default: "trunc",
    aten.sign.default: "sign", aten.sgn.default: "sign", aten.log1p.default: "log1p",
    aten.expm1.default: "expm1", aten.log2.default: "log2", aten.exp2.default: "exp2",
    aten.atan.default: "atan", aten.asin.default: "asin", aten.acos.default: "acos",
    aten.sinh.default: "sinh", aten.cosh.default: "cosh", aten.asinh.default: "asinh",
    aten.acosh.default: "acosh", aten.atanh.default: "atanh", aten.log10.default: "log10",
    aten.erfinv.default: "erfinv",
}


def _unary_table(imp, node, x):
    opname = _UNARY[node.target]
    shape, dtype = imp.meta(node)
    if opname in ("floor", "ceil", "round", "trunc") and not dtype.is_floating_point:
        return imp.as_tensor(x, dtype)  # integers are their own floor
    if opname == "abs" and dtype == torch.bool:
        return imp.as_tensor(x, dtype)
    return unary(imp, node, opname, x)


for _target in _UNARY:
    register(_target)(_unary_table)


def _prim_unary(opname):
    return lambda imp, node, x: unary(imp, node, opname, x)


# The primitives of the same functions (PyTorch's reference decompositions
# use them: copysign's abs and neg).
for _opname in sorted(set(_UNARY.values())):
    if hasattr(torch.ops.prims, _opname) and _opname not in ("round",):
        register(f"prims.{_opname}.default")(_prim_unary(_opname))


@register(aten.reciprocal.default)
def _reciprocal(imp, node, x):
    shape, dtype = imp.meta(node)
    return imp.nary("div", [imp.scalar(1, dtype), imp.as_tensor(x, dtype)], shape, dtype)


@register(aten.square.default)
def _square(imp, node, x):
    shape, dtype = imp.meta(node)
    x = imp.as_tensor(x, dtype)
    return imp.nary("mul", [x, x], shape, dtype)


@register(aten.gelu.default)
def _gelu(imp, node, x, approximate="none"):
    if approximate not in ("none", "tanh"):
        raise UnsupportedError(f"gelu approximate='{approximate}'")
    return unary(imp, node, "gelu", x, "" if approximate == "none" else " approximate tanh")


@register(aten.isnan.default)
def _isnan(imp, node, x):
    if not x.dtype.is_floating_point:
        return imp.full(x.shape, torch.bool, False)
    return imp.nary("compare", [x, x], x.shape, torch.bool, prefix="ne, ")


@register(aten.isinf.default)
def _isinf(imp, node, x):
    if not x.dtype.is_floating_point:
        return imp.full(x.shape, torch.bool, False)
    magnitude = imp.unary("abs", x)
    return imp.nary("compare", [magnitude, imp.scalar(float("inf"), x.dtype)], x.shape,
                    torch.bool, prefix="eq, ")


def clamp(imp, x, low, high, shape, dtype):
    value = imp.as_tensor(x, dtype)
    if low is not None:
        value = imp.nary("max", [value, imp.as_tensor(low, dtype)], shape, dtype)
    if high is not None:
        value = imp.nary("min", [value, imp.as_tensor(high, dtype)], shape, dtype)
    return value


@register(aten.clamp.default, aten.clamp.Tensor)
def _clamp(imp, node, x, min=None, max=None):
    shape, dtype = imp.meta(node)
    return clamp(imp, x, min, max, shape, dtype)


@register(aten.clamp_min.default, aten.clamp_min.Tensor)
def _clamp_min(imp, node, x, low):
    shape, dtype = imp.meta(node)
    return clamp(imp, x, low, None, shape, dtype)


@register(aten.clamp_max.default, aten.clamp_max.Tensor)
def _clamp_max(imp, node, x, high):
    shape, dtype = imp.meta(node)
    return clamp(imp, x, None, high, shape, dtype)


@register(aten.hardtanh.default)
def _hardtanh(imp, node, x, low=-1.0, high=1.0):
    shape, dtype = imp.meta(node)
    return clamp(imp, x, low, high, shape, dtype)


@register(aten.where.self, aten.where.ScalarSelf, aten.where.ScalarOther, aten.where.Scalar,
          "prims.where.default")
def _where(imp, node, condition, a, b):
    shape, dtype = imp.meta(node)
    operands = [_truth(imp, condition), imp.as_tensor(a, dtype), imp.as_tensor(b, dtype)]
    return imp.nary("where", operands, shape, dtype)


@register(aten.masked_fill.Scalar, aten.masked_fill.Tensor)
def _masked_fill(imp, node, x, mask, value):
    shape, dtype = imp.meta(node)
    operands = [_truth(imp, mask), imp.as_tensor(value, dtype), imp.as_tensor(x, dtype)]
    return imp.nary("where", operands, shape, dtype)


@register(aten.nan_to_num.default)
def _nan_to_num(imp, node, x, nan=0.0, posinf=None, neginf=None):
    shape, dtype = imp.meta(node)
    if not dtype.is_floating_point:
        return x
    info = torch.finfo(dtype)
    posinf = info.max if posinf is None else posinf
    neginf = info.min if neginf is None else neginf
    isnan = imp.nary("compare", [x, x], shape, torch.bool, prefix="ne, ")
    out = imp.nary("where", [isnan, imp.scalar(nan, dtype), x], shape, dtype)
    big = imp.nary("compare", [x, imp.scalar(float("inf"), dtype)], shape, torch.bool, prefix="eq, ")
    out = imp.nary("where", [big, imp.scalar(posinf, dtype), out], shape, dtype)
    small = imp.nary("compare", [x, imp.scalar(float("-inf"), dtype)], shape, torch.bool,
                     prefix="eq, ")
    return imp.nary("where", [small, imp.scalar(neginf, dtype), out], shape, dtype)


@register(aten._to_copy.default, aten.to.dtype, aten.to.dtype_layout,
          aten._to_dtype.default if hasattr(aten, "_to_dtype") else aten._to_copy.default)
def _to_copy(imp, node, x, *args, **kwargs):
    shape, dtype = imp.meta(node)
    return imp.as_tensor(x, dtype)


@register(aten.clone.default, aten.alias.default, aten.lift_fresh_copy.default,
          aten.detach.default, aten.contiguous.default, aten.dropout.default)
def _identity(imp, node, x, *args, **kwargs):
    if node.target == aten.dropout.default and len(args) > 1 and args[1]:
        raise UnsupportedError("dropout in training mode")
    return x


def _draw(imp, shape, probability):
    """A bool tensor of `shape`, each element true with `probability`."""
    return imp.nary("compare", [imp.uniform(shape, torch.float32),
                                imp.scalar(probability, torch.float32)],
                    shape, torch.bool, prefix="lt, ")


@register(aten.native_dropout.default)
def _native_dropout(imp, node, x, p, train):
    """Training-mode dropout: keep = uniform < 1 - p (counter-based random
    numbers from the program's seed), out = x * keep / (1 - p); the mask is
    the second result (AOTAutograd saves it for the backward)."""
    shape, dtype = imp.meta(node, 0)
    x = imp.as_tensor(x, dtype)
    p = float(p)
    if not train or p == 0.0:
        return (x, imp.full(shape, torch.bool, True))
    if p >= 1.0:
        return (imp.full(shape, dtype, 0.0), imp.full(shape, torch.bool, False))
    keep = _draw(imp, shape, 1.0 - p)
    scaled = imp.nary("mul", [x, imp.scalar(1.0 / (1.0 - p), dtype)], shape, dtype)
    out = imp.nary("where", [keep, scaled, imp.scalar(0.0, dtype)], shape, dtype)
    return (out, keep)


@register(aten.rand.default, aten.rand_like.default)
def _rand(imp, node, *args, **kwargs):
    shape, dtype = imp.meta(node)
    if not dtype.is_floating_point:
        raise UnsupportedError(f"rand of dtype {dtype}")
    return imp.cast(imp.uniform(shape, torch.float32), dtype)


@register(aten.bernoulli.p)
def _bernoulli(imp, node, x, p=0.5, *, generator=None):
    if generator is not None:
        raise UnsupportedError("bernoulli with a generator")
    shape, dtype = imp.meta(node)
    return imp.cast(_draw(imp, shape, float(p)), dtype)


@register("prims.fma.default")  # defined by torch._inductor.inductor_prims
def _fma(imp, node, a, b, c):
    """a * b + c (lerp's decomposition, used by Adam): a multiply and an
    add, which LLVM may contract."""
    shape, dtype = imp.meta(node)
    product = imp.nary("mul", [imp.as_tensor(a, dtype), imp.as_tensor(b, dtype)], shape, dtype)
    return imp.nary("add", [product, imp.as_tensor(c, dtype)], shape, dtype)


@register(aten.copy_.default)
def _copy_into_input(imp, node, dst, src, non_blocking=False):
    """`dst.copy_(src)` of a functionalized graph: the input's new value
    (src cast and broadcast to it), written back after the call."""
    shape, dtype = imp.meta(node)
    value = imp.broadcast_to(imp.as_tensor(src, dtype), shape)
    imp.mutate_input(node.args[0], value)
    return value


@register(aten.leaky_relu.default)
def _leaky_relu(imp, node, x, slope=0.01):
    shape, dtype = imp.meta(node)
    positive = imp.nary("compare", [x, imp.scalar(0, dtype)], shape, torch.bool, prefix="gt, ")
    scaled = imp.nary("mul", [x, imp.scalar(slope, dtype)], shape, dtype)
    return imp.nary("where", [positive, x, scaled], shape, dtype)


@register(aten.elu.default)
def _elu(imp, node, x, alpha=1.0, scale=1.0, input_scale=1.0):
    shape, dtype = imp.meta(node)
    x = imp.as_tensor(x, dtype)
    positive = imp.nary("compare", [x, imp.scalar(0, dtype)], shape, torch.bool, prefix="gt, ")
    scaled = imp.nary("mul", [x, imp.scalar(input_scale, dtype)], shape, dtype) \
        if input_scale != 1 else x
    negative = imp.nary("mul", [imp.unary("expm1", scaled), imp.scalar(alpha, dtype)], shape,
                        dtype)
    out = imp.nary("where", [positive, x, negative], shape, dtype)
    if scale != 1:
        out = imp.nary("mul", [out, imp.scalar(scale, dtype)], shape, dtype)
    return out
