"""Indexing and creation: iota/arange, take (index_select, embedding,
advanced indexing), gather, slice_scatter, full and its variants."""

import math

import torch

from .registry import aten, register
from .values import Size, Tensor, UnsupportedError, as_size, is_static, normalize_dim, \
    tensor_type


def iota(imp, shape, dim, dtype):
    """The index along `dim` at every position of `shape`, as `dtype`."""
    return imp.op(shape, dtype,
                  f"tensor_program.iota dim {dim}{imp.sized(shape)} : {tensor_type(shape, dtype)}")


def _number(value):
    if isinstance(value, Size):
        raise UnsupportedError("a symbolic arange bound used as a value")
    return value


@register(aten.arange.start_step, aten.arange.default, aten.arange.start)
def _arange(imp, node, *args, dtype=None, layout=None, device=None, pin_memory=None):
    shape, result_dtype = imp.meta(node)
    if node.target == aten.arange.default:
        start, step = 0, 1
    elif node.target == aten.arange.start:
        start, step = args[0], 1
    else:
        start = args[0]
        step = args[2] if len(args) > 2 else 1
    start, step = _number(start), _number(step)
    compute = result_dtype if result_dtype.is_floating_point else torch.int64
    value = iota(imp, shape, 0, compute)
    if step != 1:
        value = imp.nary("mul", [value, imp.scalar(step, compute)], shape, compute)
    if start != 0:
        value = imp.nary("add", [value, imp.scalar(start, compute)], shape, compute)
    return imp.cast(value, result_dtype)


def wrap_index(imp, index, size):
    """PyTorch's negative indices counted from the end: i < 0 ? i + size : i
    (skipped for constant indices that are all non-negative)."""
    index = imp.cast(index, torch.int64)
    if is_static(size) and size == 0:
        return index
    zero = imp.scalar(0, torch.int64)
    negative = imp.nary("compare", [index, zero], index.shape, torch.bool, prefix="lt, ")
    bound = imp.as_tensor(size if is_static(size) else Size(size), torch.int64)
    shifted = imp.nary("add", [index, bound], index.shape, torch.int64)
    return imp.nary("where", [negative, shifted, index], index.shape, torch.int64)


def take(imp, x, index, dim, shape):
    """x.index_select(dim, index) for an index of any shape: the result
    replaces dimension `dim` of x by the index's dimensions. Negative
    indices count from the end; indices out of range are clamped (see
    tensor_program.take)."""
    return imp.op(shape, x.dtype,
                  f"tensor_program.take {x.name}, {index.name} dim {dim} : "
                  f"({x.type()}, {index.type()}) -> {tensor_type(shape, x.dtype)}")


@register(aten.embedding.default)
def _embedding(imp, node, weight, indices, padding_idx=-1, scale_grad_by_freq=False,
               sparse=False):
    shape, _ = imp.meta(node)
    return take(imp, weight, indices, 0, shape)


@register(aten.index_select.default)
def _index_select(imp, node, x, dim, index):
    shape, _ = imp.meta(node)
    dim = normalize_dim(dim, x.rank)
    if index.rank == 0:
        index = imp.reshape(index, (1,))
    return take(imp, x, index, dim, shape)


@register(aten.index.Tensor, aten._unsafe_index.Tensor)
def _index(imp, node, x, indices):
    """Advanced indexing: x[i0, :, i2] with index tensors broadcast
    together. The indexed dimensions are moved to the front (when not
    adjacent, as PyTorch places the result there), flattened into one, and
    the index tensors combined into one flat index: one take."""
    shape, _ = imp.meta(node)
    positions = [d for d, i in enumerate(indices) if i is not None]
    if not positions:
        return x
    for d in positions:
        if indices[d].dtype == torch.bool:
            raise UnsupportedError("indexing with a boolean mask (its size depends on values)")
    tensors = [indices[d] for d in positions]
    adjacent = positions == list(range(positions[0], positions[-1] + 1))
    first = positions[0] if adjacent else 0
    if not adjacent:
        rest = [d for d in range(x.rank) if d not in positions]
        x = imp.permute(x, positions + rest)
        positions = list(range(len(positions)))
    if len(tensors) == 1:
        # One index tensor: take counts negative indices from the end.
        index_tensors = [tensors[0]]
    else:
        index_tensors = [wrap_index(imp, t, x.shape[p]) for t, p in zip(tensors, positions)]
    # Broadcast shape of the index tensors.
    rank = max(t.rank for t in index_tensors)
    index_shape = list(shape[first:first + rank])
    # Flatten the indexed dimensions: flat = ((i0 * s1) + i1) * s2 + i2 ...
    flat = None
    for t, p in zip(index_tensors, positions):
        if flat is None:
            flat = t
            continue
        size = x.shape[p]
        bound = imp.as_tensor(size if is_static(size) else Size(size), torch.int64)
        grown = imp.nary("mul", [flat, bound], _broadcast(flat.shape, ()), torch.int64)
        flat = imp.nary("add", [grown, t], _broadcast(grown.shape, t.shape), torch.int64)
    if flat.shape != tuple(index_shape):
        flat = imp.broadcast_to(flat, tuple(index_shape))
    if len(positions) > 1:
        merged = 1
        for p in positions:
            merged = merged * x.shape[p]
        merged_shape = x.shape[:positions[0]] + (merged,) + x.shape[positions[-1] + 1:]
        x = imp.reshape(x, merged_shape)
    return take(imp, x, flat, positions[0], shape)


def _broadcast(a, b):
    rank = max(len(a), len(b))
    a = (1,) * (rank - len(a)) + tuple(a)
    b = (1,) * (rank - len(b)) + tuple(b)
    return tuple(y if x == 1 else x for x, y in zip(a, b))


@register(aten.gather.default)
def _gather(imp, node, x, dim, index, sparse_grad=False):
    shape, _ = imp.meta(node)
    dim = normalize_dim(dim, x.rank)
    return imp.op(shape, x.dtype,
                  f"tensor_program.gather {x.name}, {index.name} dim {dim} : "
                  f"({x.type()}, {index.type()}) -> {tensor_type(shape, x.dtype)}")


@register(aten.slice_scatter.default)
def _slice_scatter(imp, node, x, src, dim=0, start=None, end=None, step=1):
    shape, dtype = imp.meta(node)
    dim = normalize_dim(dim, x.rank)
    size = x.shape[dim]
    src = imp.as_tensor(src, dtype)
    if not is_static(size):
        # The whole of a dynamic dimension (functionalized `x[:, a:b] = y`
        # writes through a full slice of the batch): the source is the
        # result there.
        first = as_size(start) if start is not None else 0
        last = as_size(end) if end is not None else None
        whole = first == 0 and (step or 1) == 1 and (
            last is None or (isinstance(last, int) and last >= 2**62) or last == size)
        if whole and src.shape == tuple(shape):
            return src
        if whole:
            return imp.broadcast_to(src, shape)
        raise UnsupportedError("slice_scatter into part of a dynamic dimension")
    first, last, step = slice(start, end if end is not None and not isinstance(end, Size)
                              else None, step or 1).indices(size)
    return imp.op(shape, dtype,
                  f"tensor_program.slice_scatter {x.name}, {src.name} dim {dim} start {first} "
                  f"end {last} step {step} : ({x.type()}, {src.type()}) -> "
                  f"{tensor_type(shape, dtype)}")


@register(aten.as_strided_scatter.default)
def _as_strided_scatter(imp, node, x, src, size, stride, storage_offset=None):
    """`src` written through a strided view of `x` whose elements are one
    contiguous block (row-major strides of `size`, from `storage_offset`):
    a slice_scatter of the flattened tensors. (Functionalized in-place
    updates of a view, as AOTAutograd writes them.)"""
    shape, dtype = imp.meta(node)
    size = [int(s) for s in size]
    expected, step = [], 1
    for extent in reversed(size):
        expected.insert(0, step)
        step *= extent
    strides = [int(s) for s in stride]
    if any(e != s for e, s, n in zip(expected, strides, size) if n != 1) or \
            not all(is_static(d) for d in x.shape):
        raise UnsupportedError("as_strided_scatter through a view that is not one "
                               "contiguous block of a static tensor")
    total = 1
    for d in x.shape:
        total *= d
    offset = int(storage_offset or 0)
    count = step
    if offset + count > total:
        raise UnsupportedError("as_strided_scatter past the end of the tensor")
    src = imp.as_tensor(src, dtype)
    if count == total:
        return imp.reshape(src, shape)
    flat = imp.reshape(x, (total,))
    flat_src = imp.reshape(src, (count,))
    written = imp.op((total,), dtype,
                     f"tensor_program.slice_scatter {flat.name}, {flat_src.name} dim 0 start "
                     f"{offset} end {offset + count} step 1 : ({flat.type()}, {flat_src.type()}) "
                     f"-> {tensor_type((total,), dtype)}")
    return imp.reshape(written, shape)


@register(aten.select_scatter.default)
def _select_scatter(imp, node, x, src, dim, index):
    shape, dtype = imp.meta(node)
    dim = normalize_dim(dim, x.rank)
    size = x.shape[dim]
    if not is_static(size):
        raise UnsupportedError("select_scatter on a dynamic dimension")
    index = int(index) + (size if int(index) < 0 else 0)
    expanded = list(src.shape)
    expanded.insert(dim, 1)
    src = imp.reshape(imp.as_tensor(src, dtype), tuple(expanded))
    return imp.op(shape, dtype,
                  f"tensor_program.slice_scatter {x.name}, {src.name} dim {dim} start {index} "
                  f"end {index + 1} step 1 : ({x.type()}, {src.type()}) -> "
                  f"{tensor_type(shape, dtype)}")


def _fill_value(value):
    if isinstance(value, Size):
        raise UnsupportedError("a symbolic size as a fill value")
    return value


@register(aten.full.default, aten.new_full.default, aten.full_like.default)
def _full(imp, node, *args, **kwargs):
    shape, dtype = imp.meta(node)
    if node.target == aten.full.default:
        value = args[1]
    elif node.target == aten.new_full.default:
        value = args[2]
    else:
        value = args[1]
    return imp.full(shape, dtype, _fill_value(value))


@register(aten.zeros.default, aten.new_zeros.default, aten.zeros_like.default,
          aten.empty.memory_format, aten.new_empty.default, aten.empty_like.default,
          aten.empty_strided.default, aten.new_empty_strided.default,
          aten.empty_permuted.default)
def _zeros(imp, node, *args, **kwargs):
    shape, dtype = imp.meta(node)
    return imp.full(shape, dtype, 0)


@register(aten.ones.default, aten.new_ones.default, aten.ones_like.default)
def _ones(imp, node, *args, **kwargs):
    shape, dtype = imp.meta(node)
    return imp.full(shape, dtype, 1)


@register(aten.scalar_tensor.default, "prims.scalar_tensor.default")
def _scalar_tensor(imp, node, value, **kwargs):
    shape, dtype = imp.meta(node)
    return imp.as_tensor(value, dtype)


@register(aten.fill.Scalar)
def _fill(imp, node, x, value):
    shape, dtype = imp.meta(node)
    return imp.full(shape, dtype, _fill_value(value))


@register(aten.copy.default)
def _copy(imp, node, dest, src, non_blocking=False):
    """The functional copy: `src` in `dest`'s dtype and shape."""
    shape, dtype = imp.meta(node)
    return imp.broadcast_to(imp.as_tensor(src, dtype), shape)


def scatter(imp, x, dim, index, src, reduce, shape, dtype):
    x = imp.as_tensor(x, dtype)
    if not isinstance(src, Tensor):
        src = imp.broadcast_to(imp.as_tensor(src, dtype), index.shape)
    src = imp.as_tensor(src, dtype)
    suffix = f" reduce {reduce}" if reduce != "none" else ""
    return imp.op(shape, dtype,
                  f"tensor_program.scatter {x.name}, {index.name}, {src.name} dim {dim}{suffix} : "
                  f"({x.type()}, {index.type()}, {src.type()}) -> {tensor_type(shape, dtype)}")


_SCATTER_REDUCE = {None: "none", "add": "add", "sum": "add", "multiply": "mul", "prod": "mul",
                   "amax": "max", "amin": "min"}


@register(aten.scatter.src, aten.scatter.value, aten.scatter.reduce, aten.scatter.value_reduce,
          aten.scatter_add.default, aten.scatter_reduce.two)
def _scatter(imp, node, x, dim, index, src, reduce=None, include_self=True):
    shape, dtype = imp.meta(node)
    if node.target == aten.scatter_add.default:
        reduce = "add"
    if node.target == aten.scatter_reduce.two and not include_self:
        raise UnsupportedError("scatter_reduce with include_self=False")
    if reduce not in _SCATTER_REDUCE:
        raise UnsupportedError(f"scatter reduce='{reduce}'")
    return scatter(imp, x, normalize_dim(dim, x.rank), index, src, _SCATTER_REDUCE[reduce],
                   shape, dtype)


@register(aten.index_put.default, aten._unsafe_index_put.default)
def _index_put(imp, node, x, indices, values, accumulate=False):
    """x[i0, i1, ...] = values (+= with accumulate): the indexed dimensions
    (moved to the front when not adjacent) flattened into one, the index
    tensors combined into one flat index as for `index`, then one scatter
    along that dimension with the index and values broadcast over the other
    dimensions."""
    shape, dtype = imp.meta(node)
    positions = [d for d, i in enumerate(indices) if i is not None]
    tensors = [indices[d] for d in positions]
    if any(t.dtype == torch.bool for t in tensors):
        raise UnsupportedError("index_put with a boolean mask (its size depends on values)")
    adjacent = positions == list(range(positions[0], positions[-1] + 1))
    order = list(range(x.rank))
    if not adjacent:
        order = positions + [d for d in range(x.rank) if d not in positions]
        x = imp.permute(x, order)
        positions = list(range(len(positions)))
    first = positions[0]
    flat = tensors[0] if len(tensors) == 1 else wrap_index(imp, tensors[0], x.shape[positions[0]])
    for t, p in zip(tensors[1:], positions[1:]):
        bound = imp.as_tensor(x.shape[p] if is_static(x.shape[p]) else Size(x.shape[p]),
                              torch.int64)
        grown = imp.nary("mul", [flat, bound], flat.shape, torch.int64)
        t = wrap_index(imp, t, x.shape[p])
        flat = imp.nary("add", [grown, t], _broadcast(grown.shape, t.shape), torch.int64)
    # The indexed dimensions as one, of size M; the index as [B] (its
    # broadcast shape flattened).
    merged = 1
    for p in positions:
        merged = merged * x.shape[p]
    prefix, suffix = x.shape[:first], x.shape[positions[-1] + 1:]
    base = imp.reshape(x, prefix + (merged,) + suffix)
    count = 1
    for size in flat.shape:
        count = count * size
    flat = imp.reshape(imp.cast(flat, torch.int64), (count,))
    # The values as [prefix, B..., suffix] (PyTorch's layout of x[i] when
    # the indexed dimensions are adjacent, else [B..., rest]).
    value_shape = (prefix + tuple(_broadcast_index_shape(tensors)) + suffix)
    values = imp.as_tensor(values, dtype)
    values = imp.broadcast_to(values, value_shape)
    values = imp.reshape(values, prefix + (count,) + suffix)
    index_shape = prefix + (count,) + suffix
    index = imp.broadcast_to(imp.reshape(flat, (1,) * len(prefix) + (count,) + (1,) * len(suffix)),
                             index_shape)
    scattered = scatter(imp, base, len(prefix), index, values,
                        "add" if accumulate else "none", base.shape, dtype)
    out = imp.reshape(scattered, x.shape)
    if not adjacent:
        inverse = [order.index(d) for d in range(len(order))]
        out = imp.permute(out, inverse)
    return out


def _broadcast_index_shape(tensors):
    shape = ()
    for t in tensors:
        shape = _broadcast(shape, t.shape)
    return shape
