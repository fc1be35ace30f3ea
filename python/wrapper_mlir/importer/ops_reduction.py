"""Reductions, scans and arg-reductions."""

import sympy
import torch

from .registry import aten, register
from .values import Size, UnsupportedError, dims_list, is_static, normalize_dim, tensor_type


def reduce(imp, kind, x, dims, keepdim, shape, dtype):
    """`reduce_<kind>` of `x` (cast to `dtype`) over `dims`."""
    if x.rank == 0:
        return imp.reshape(imp.as_tensor(x, dtype), shape)
    x = imp.as_tensor(x, dtype)
    dims = dims_list(dims, x.rank)
    if not dims:
        return imp.reshape(x, shape)
    keep = " keepdim" if keepdim else ""
    return imp.op(shape, dtype,
                  f"tensor_program.reduce_{kind} {x.name} dims [{', '.join(map(str, dims))}]"
                  f"{keep} : {x.type()} -> {tensor_type(shape, dtype)}")


@register(aten.sum.dim_IntList, aten.sum.default)
def _sum(imp, node, x, dims=None, keepdim=False, dtype=None):
    shape, result_dtype = imp.meta(node)
    return reduce(imp, "sum", x, dims, keepdim, shape, result_dtype)


@register(aten.mean.dim, aten.mean.default)
def _mean(imp, node, x, dims=None, keepdim=False, dtype=None):
    shape, result_dtype = imp.meta(node)
    return reduce(imp, "mean", x, dims, keepdim, shape, result_dtype)


@register(aten.prod.dim_int, aten.prod.default)
def _prod(imp, node, x, dim=None, keepdim=False, dtype=None):
    shape, result_dtype = imp.meta(node)
    return reduce(imp, "prod", x, dim, keepdim, shape, result_dtype)


@register("prims.prod.default")  # PyTorch's decomposition of cumprod
def _prims_prod(imp, node, x, dims, output_dtype=None):
    shape, result_dtype = imp.meta(node)
    return reduce(imp, "prod", x, list(range(x.rank)) if dims is None else dims, False, shape,
                  result_dtype)


def _extremum(imp, kind, x, dims, keepdim, shape, dtype):
    if dtype == torch.bool:
        value = reduce(imp, kind, imp.cast(x, torch.int8), dims, keepdim, shape, torch.int8)
        return imp.cast(value, torch.bool)
    return reduce(imp, kind, x, dims, keepdim, shape, dtype)


@register(aten.amax.default)
def _amax(imp, node, x, dims=(), keepdim=False):
    shape, dtype = imp.meta(node)
    return _extremum(imp, "max", x, dims, keepdim, shape, dtype)


@register(aten.amin.default)
def _amin(imp, node, x, dims=(), keepdim=False):
    shape, dtype = imp.meta(node)
    return _extremum(imp, "min", x, dims, keepdim, shape, dtype)


@register(aten.max.default)
def _max_all(imp, node, x):
    shape, dtype = imp.meta(node)
    return _extremum(imp, "max", x, None, False, shape, dtype)


@register(aten.min.default)
def _min_all(imp, node, x):
    shape, dtype = imp.meta(node)
    return _extremum(imp, "min", x, None, False, shape, dtype)


@register(aten.any.dim, aten.any.dims, aten.any.default)
def _any(imp, node, x, dims=None, keepdim=False):
    shape, _ = imp.meta(node)
    truth = imp.cast(x, torch.bool) if x.dtype != torch.bool else x
    return _extremum(imp, "max", truth, dims, keepdim, shape, torch.bool)


@register(aten.all.dim, aten.all.dims, aten.all.default)
def _all(imp, node, x, dims=None, keepdim=False):
    shape, _ = imp.meta(node)
    truth = imp.cast(x, torch.bool) if x.dtype != torch.bool else x
    return _extremum(imp, "min", truth, dims, keepdim, shape, torch.bool)


def argmax(imp, x, dim, keepdim, shape, negate=False):
    """argmax (or argmin with `negate`) over one dimension (or all)."""
    if dim is None:
        flat = 1
        for size in x.shape:
            flat = flat * size
        x = imp.reshape(x, (flat,))
        dim = 0
        keepdim = False
    dim = normalize_dim(dim, x.rank)
    if negate:
        if x.dtype == torch.bool:
            x = imp.cast(x, torch.int8)
        x = imp.unary("neg", x)
    keep = " keepdim" if keepdim else ""
    value = imp.op(shape, torch.int64,
                   f"tensor_program.argmax {x.name} dim {dim}{keep} : {x.type()} -> "
                   f"{tensor_type(shape, torch.int64)}")
    return value


@register(aten.argmax.default)
def _argmax(imp, node, x, dim=None, keepdim=False):
    shape, _ = imp.meta(node)
    return argmax(imp, x, dim, keepdim, shape)


@register(aten.argmin.default)
def _argmin(imp, node, x, dim=None, keepdim=False):
    shape, _ = imp.meta(node)
    return argmax(imp, x, dim, keepdim, shape, negate=True)


@register(aten.max.dim, aten.min.dim)
def _max_dim(imp, node, x, dim, keepdim=False):
    (shape, dtype), _ = imp.meta(node, 0), None
    used = imp.used_outputs(node)
    kind = "max" if node.target == aten.max.dim else "min"
    values = indices = None
    if used is None or 0 in used:
        values = _extremum(imp, kind, x, [dim], keepdim, shape, dtype)
    if used is None or 1 in used:
        indices = argmax(imp, x, dim, keepdim, shape, negate=kind == "min")
    return (values, indices)


def _count(imp, x, dims):
    count = 1
    for d in dims_list(dims, x.rank):
        count = count * x.shape[d]
    return count


@register(aten.var.correction, aten.var.dim, aten.var_mean.correction, aten.std.correction,
          aten.std.dim, aten.var_mean.dim)
def _var(imp, node, x, dims=None, *args, correction=None, keepdim=False, unbiased=None):
    target = node.target
    if target in (aten.var.dim, aten.std.dim, aten.var_mean.dim):
        unbiased = args[0] if args else (True if unbiased is None else unbiased)
        keepdim = args[1] if len(args) > 1 else keepdim
        correction = 1 if unbiased else 0
    if correction is None:
        correction = 1
    multi = target in (aten.var_mean.correction, aten.var_mean.dim)
    shape, dtype = imp.meta(node, 0) if multi else imp.meta(node)
    x = imp.as_tensor(x, dtype)
    count = _count(imp, x, dims)
    if not is_static(count) and correction != int(correction):
        raise UnsupportedError("variance over a dynamic dimension with a fractional correction")
    kept = list(x.shape)
    for d in dims_list(dims, x.rank):
        kept[d] = 1
    mean = reduce(imp, "mean", x, dims, True, tuple(kept), dtype)
    centered = imp.nary("sub", [x, mean], x.shape, dtype)
    squares = imp.nary("mul", [centered, centered], x.shape, dtype)
    total = reduce(imp, "sum", squares, dims, keepdim, shape, dtype)
    if is_static(count):
        divisor = imp.scalar(max(count - correction, 0), dtype)
    else:  # computed from the sizes at run time
        divisor = imp.as_tensor(Size(sympy.Max(count - int(correction), 0)), dtype)
    variance = imp.nary("div", [total, divisor], shape, dtype)
    if target in (aten.std.correction, aten.std.dim):
        return imp.unary("sqrt", variance)
    if multi:
        return (variance, imp.reshape(mean, shape))
    return variance


@register(aten.cumsum.default)
def _cumsum(imp, node, x, dim, dtype=None):
    shape, result_dtype = imp.meta(node)
    x = imp.as_tensor(x, result_dtype)
    if x.rank == 0:
        return x
    dim = normalize_dim(dim, x.rank)
    return imp.op(shape, result_dtype,
                  f"tensor_program.cumsum {x.name} dim {dim} : {x.type()}")


@register(aten.linalg_vector_norm.default)
def _vector_norm(imp, node, x, ord=2, dim=None, keepdim=False, dtype=None):
    """The p-norm over `dim` (all dimensions when None): sqrt of the sum of
    squares for 2, sum of magnitudes for 1, largest or smallest magnitude
    for +-inf, count of non-zeros for 0, (sum |x|^p)^(1/p) otherwise."""
    shape, result_dtype = imp.meta(node)
    x = imp.as_tensor(x, result_dtype)
    dims = list(range(x.rank)) if dim is None else dim
    ord = float(ord)
    if ord == 0:
        nonzero = imp.nary("compare", [x, imp.scalar(0, result_dtype)], x.shape, torch.bool,
                           prefix="ne, ")
        return reduce(imp, "sum", imp.cast(nonzero, result_dtype), dims, keepdim, shape,
                      result_dtype)
    magnitude = imp.unary("abs", x)
    if ord in (float("inf"), float("-inf")):
        kind = "max" if ord > 0 else "min"
        return reduce(imp, kind, magnitude, dims, keepdim, shape, result_dtype)
    if ord == 1:
        return reduce(imp, "sum", magnitude, dims, keepdim, shape, result_dtype)
    if ord == 2:
        squares = imp.nary("mul", [x, x], x.shape, result_dtype)
        return imp.unary("sqrt", reduce(imp, "sum", squares, dims, keepdim, shape, result_dtype))
    powers = imp.nary("pow", [magnitude, imp.scalar(ord, result_dtype)], x.shape, result_dtype)
    total = reduce(imp, "sum", powers, dims, keepdim, shape, result_dtype)
    return imp.nary("pow", [total, imp.scalar(1.0 / ord, result_dtype)], shape, result_dtype)
