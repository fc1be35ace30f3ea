"""Layout core ATen ops: views, permutations, slices, splits,
concatenation, padding. Result shapes always come from the node's
metadata, so a view's size arguments (with their -1) need no
interpretation."""

import torch

from .registry import aten, register
from .values import Size, Tensor, UnsupportedError, as_size, float_literal, is_static, \
    normalize_dim, tensor_type


@register(aten.view.default, aten._unsafe_view.default, aten.reshape.default,
          aten.view_copy.default, aten.unsqueeze.default, aten.squeeze.dim, aten.squeeze.dims,
          aten.squeeze.default, aten.flatten.using_ints, aten.unflatten.int)
def _view(imp, node, x, *args, **kwargs):
    shape, _ = imp.meta(node)
    return imp.reshape(x, shape)


@register(aten.expand.default, aten.expand_copy.default)
def _expand(imp, node, x, *args, **kwargs):
    shape, _ = imp.meta(node)
    return imp.broadcast_to(x, shape)


@register(aten.permute.default, aten.permute_copy.default)
def _permute(imp, node, x, dims):
    return imp.permute(x, [normalize_dim(d, x.rank) for d in dims])


@register(aten.t.default, aten.numpy_T.default)
def _t(imp, node, x):
    return imp.permute(x, list(reversed(range(x.rank))))


@register(aten.transpose.int)
def _transpose(imp, node, x, d0, d1):
    permutation = list(range(x.rank))
    d0, d1 = normalize_dim(d0, x.rank), normalize_dim(d1, x.rank)
    permutation[d0], permutation[d1] = permutation[d1], permutation[d0]
    return imp.permute(x, permutation)


def _bound(value, size, default):
    """A slice bound as PyTorch reads it, clamped to [0, size] when the size
    is static; None when it cannot be known at compile time."""
    if value is None:
        value = default
    if isinstance(value, Size):
        value = as_size(value)
        if not isinstance(value, int):
            return None
    value = int(value)
    if is_static(size):
        if value < 0:
            value += size
        return min(max(value, 0), size)
    return value if value >= 0 else None


def slice_value(imp, x, dim, start, end, step, shape):
    """x[start:end:step] along `dim`, result `shape`."""
    dim = normalize_dim(dim, x.rank)
    size = x.shape[dim]
    step = int(step or 1)
    if step <= 0:
        raise UnsupportedError(f"slice step {step}")
    first = _bound(start, size, 0)
    last = _bound(end, size, 2**63 - 1)
    if first is None or last is None:
        # Bounds relative to a dynamic size: the number of elements left
        # at the end is known (x[..., -k:]) or the bound is a size
        # expression; express through the dynamic slice form.
        return _dynamic_slice(imp, x, dim, start, end, step, shape)
    return imp.slice(x, dim, first, max(first, last) if is_static(size) else last, step, shape)


def _dynamic_slice(imp, x, dim, start, end, step, shape):
    size = x.shape[dim]

    def resolve(value, default):
        if value is None:
            return default
        value = as_size(value) if isinstance(value, Size) else int(value)
        if isinstance(value, int) and value < 0:
            return size + value
        if isinstance(value, int) and value > 2**62:
            return size
        return value

    first = resolve(start, 0)
    last = resolve(end, size)
    starts = imp.index(first)
    ends = imp.index(last)
    text = (f"tensor_program.dynamic_slice {x.name} dim {dim} [{starts}, {ends}] step {step} : "
            f"{x.type()} -> {tensor_type(shape, x.dtype)}")
    return imp.op(shape, x.dtype, text)


@register(aten.slice.Tensor, aten.slice_copy.Tensor)
def _slice(imp, node, x, dim=0, start=None, end=None, step=1):
    shape, _ = imp.meta(node)
    return slice_value(imp, x, dim, start, end, step, shape)


@register(aten.select.int, aten.select_copy.int)
def _select(imp, node, x, dim, index):
    shape, _ = imp.meta(node)
    dim = normalize_dim(dim, x.rank)
    index = as_size(index) if isinstance(index, Size) else int(index)
    size = x.shape[dim]
    if isinstance(index, int) and index < 0:
        if is_static(size):
            index += size
        else:
            index = size + index
    sliced_shape = list(x.shape)
    sliced_shape[dim] = 1
    sliced = slice_value(imp, x, dim, index, index + 1 if isinstance(index, int) else index + 1,
                         1, tuple(sliced_shape))
    return imp.reshape(sliced, shape)


@register(aten.split_with_sizes.default, aten.split.Tensor, aten.split.sizes,
          aten.unbind.int, aten.chunk.default, aten.tensor_split.sections,
          aten.split_with_sizes_copy.default)
def _split(imp, node, x, *args, **kwargs):
    results = imp.meta_value(node)
    target = node.target
    if target in (aten.unbind.int,):
        dim = args[0] if args else kwargs.get("dim", 0)
    elif target in (aten.split_with_sizes.default, aten.split.Tensor, aten.split.sizes,
                    aten.chunk.default, aten.split_with_sizes_copy.default,
                    aten.tensor_split.sections):
        dim = args[1] if len(args) > 1 else kwargs.get("dim", 0)
    dim = normalize_dim(dim, x.rank)
    used = imp.used_outputs(node)
    outputs = []
    offset = 0
    for i, piece in enumerate(results):
        shape = tuple(as_size(s) for s in piece.shape)
        length = shape[dim]
        if target == aten.unbind.int:
            length = 1
        if used is not None and i not in used:
            outputs.append(None)
        else:
            sliced_shape = list(shape)
            if target == aten.unbind.int:
                sliced_shape.insert(dim, 1)
            piece_value = slice_value(imp, x, dim, offset, offset + length, 1,
                                      tuple(sliced_shape))
            if target == aten.unbind.int:
                piece_value = imp.reshape(piece_value, shape)
            outputs.append(piece_value)
        offset = offset + length
    return tuple(outputs)


@register(aten.cat.default, aten.concat.default)
def _cat(imp, node, tensors, dim=0):
    shape, dtype = imp.meta(node)
    values = [imp.as_tensor(t, dtype) for t in tensors
              if not (isinstance(t, Tensor) and t.rank == 1 and t.shape[0] == 0
                      and len(shape) != 1)]
    values = [v for v in values if not (is_static(v.shape[normalize_dim(dim, len(shape))])
                                        and v.shape[normalize_dim(dim, len(shape))] == 0)] or values
    if len(values) == 1:
        return imp.reshape(values[0], shape)
    dim = normalize_dim(dim, len(shape))
    return concat(imp, values, dim, shape, dtype)


def concat(imp, values, dim, shape, dtype):
    return imp.op(shape, dtype,
                  f"tensor_program.concat {', '.join(v.name for v in values)} dim {dim} : "
                  f"({', '.join(v.type() for v in values)}) -> {tensor_type(shape, dtype)}")


@register(aten.stack.default)
def _stack(imp, node, tensors, dim=0):
    shape, dtype = imp.meta(node)
    dim = normalize_dim(dim, len(shape))
    pieces = []
    for t in tensors:
        piece_shape = list(t.shape)
        piece_shape.insert(dim, 1)
        pieces.append(imp.reshape(imp.as_tensor(t, dtype), tuple(piece_shape)))
    if len(pieces) == 1:
        return pieces[0]
    return concat(imp, pieces, dim, shape, dtype)


def pad(imp, x, low, high, value, shape):
    """x padded by `low`/`high` per dimension (negative amounts cut)."""
    if any(l < 0 for l in low) or any(h < 0 for h in high):
        # Cut first, then pad by the positive amounts.
        for dim in range(x.rank):
            if low[dim] < 0 or high[dim] < 0:
                start = max(-low[dim], 0)
                size = x.shape[dim]
                if not is_static(size):
                    raise UnsupportedError("negative padding of a dynamic dimension")
                end = size - max(-high[dim], 0)
                cut = list(x.shape)
                cut[dim] = max(end - start, 0)
                x = imp.slice(x, dim, start, end, 1, tuple(cut))
        low = [max(l, 0) for l in low]
        high = [max(h, 0) for h in high]
    if not any(low) and not any(high):
        return x
    if isinstance(value, bool):
        value = float(value)
    return imp.op(shape, x.dtype,
                  f"tensor_program.pad {x.name} low [{', '.join(map(str, low))}] high "
                  f"[{', '.join(map(str, high))}] value {float_literal(value)} : {x.type()} -> "
                  f"{tensor_type(shape, x.dtype)}")


@register(aten.constant_pad_nd.default)
def _constant_pad_nd(imp, node, x, padding, value=0):
    shape, _ = imp.meta(node)
    low = [0] * x.rank
    high = [0] * x.rank
    for i in range(len(padding) // 2):
        dim = x.rank - 1 - i
        low[dim] = as_size(padding[2 * i])
        high[dim] = as_size(padding[2 * i + 1])
    if all(is_static(a) for a in low + high):
        return pad(imp, x, low, high, value, shape)
    return _pad_symbolic(imp, x, low, high, value)


def _nonnegative(expr):
    """Whether sympy proves the size expression `expr` at least 0, with
    floor divisions by positive numbers written as (p - p mod q) / q (a
    strided convolution's backward pads by `a - 2 * (a - 3) // 2 - 1`,
    which is `(a - 3) mod 2 + 2`)."""
    import sympy

    if expr.is_nonnegative:
        return True

    def floor_division(term):
        return (getattr(term.func, "__name__", "") == "FloorDiv" and len(term.args) == 2
                and term.args[1].is_positive)

    rewritten = expr.replace(floor_division, lambda term: (
        term.args[0] - sympy.Mod(term.args[0], term.args[1])) / term.args[1])
    return bool(sympy.simplify(rewritten).is_nonnegative)


def _pad_symbolic(imp, x, low, high, value):
    """x padded by amounts some of which are size expressions (the
    convolution backward's under dynamic shapes): per dimension, blocks of
    `value` joined on before and after (tensor_program.pad takes static
    amounts). An amount that is not provably at least 0 is refused."""
    import sympy

    for dim in range(x.rank):
        before, after = low[dim], high[dim]
        for amount in (before, after):
            if not is_static(amount) and not _nonnegative(sympy.sympify(amount)):
                raise UnsupportedError(f"padding by '{amount}', which may be negative")
            if is_static(amount) and amount < 0:
                raise UnsupportedError("negative padding next to a symbolic one")
        if before == 0 and after == 0:
            continue

        def block(amount):
            shape = list(x.shape)
            shape[dim] = amount
            return [] if amount == 0 else [imp.full(tuple(shape), x.dtype, value)]

        joined = block(before) + [x] + block(after)
        shape = list(x.shape)
        shape[dim] = sympy.sympify(before + shape[dim] + after)
        shape[dim] = int(shape[dim]) if shape[dim].is_number else shape[dim]
        x = concat(imp, joined, dim, tuple(shape), x.dtype)
    return x


def _product(values):
    total = 1
    for v in values:
        total = total * v
    return total


def _same(a, b):
    """Whether two sizes (ints or sympy expressions) are provably equal."""
    import sympy

    if isinstance(a, int) and isinstance(b, int):
        return a == b
    return sympy.simplify(sympy.sympify(a) - sympy.sympify(b)) == 0


def _sample(value):
    """A size evaluated with every symbol at 7 (to order strides)."""
    if isinstance(value, int):
        return value
    return int(value.subs({s: 7 for s in value.free_symbols}))


def strided_as_view(imp, x, shape, strides, offset):
    """as_strided of a (logically contiguous) value that is a reshape,
    possibly followed by a permutation: strides that are the row-major
    strides of the sizes in some order (size-1 dimensions ignored). None
    otherwise."""
    if not _same(offset, 0) or not _same(_product(shape), _product(x.shape)):
        return None
    dims = [d for d, size in enumerate(shape) if not (is_static(size) and size == 1)]
    order = sorted(dims, key=lambda d: -_sample(strides[d]))
    expected = 1
    for d in reversed(order):
        if not _same(strides[d], expected):
            return None
        expected = expected * shape[d]
    if order == dims:
        return imp.reshape(x, tuple(shape))
    permuted = imp.reshape(x, tuple(shape[d] for d in order))
    inverse = [order.index(d) for d in dims]
    value = imp.permute(permuted, inverse)
    return imp.reshape(value, tuple(shape))


@register(aten.as_strided.default, aten.as_strided_copy.default)
def _as_strided(imp, node, x, size, stride, storage_offset=None):
    shape, _ = imp.meta(node)
    strides = [as_size(s) for s in stride]
    offset = as_size(storage_offset) if storage_offset is not None else 0
    view = strided_as_view(imp, x, shape, strides, offset)
    if view is not None:
        return view
    if not all(is_static(s) for s in shape) or not all(isinstance(s, int) for s in strides) \
            or not isinstance(offset, int):
        raise UnsupportedError("as_strided with symbolic sizes or strides that is not a "
                               "reshape or permutation of its input")
    return imp.op(shape, x.dtype,
                  f"tensor_program.as_strided {x.name} sizes [{', '.join(map(str, shape))}] "
                  f"strides [{', '.join(str(int(s)) for s in strides)}] offset {offset} : "
                  f"{x.type()} -> {tensor_type(shape, x.dtype)}")


@register(aten.unfold.default)
def _unfold(imp, node, x, dimension, size, step):
    """Sliding windows of `size` elements every `step` along `dimension`, as
    a new last dimension: a strided view of the (row-major) input when its
    sizes are static; otherwise `size` strided slices (window offsets 0 to
    size - 1) stacked along the new dimension, which needs only the
    unfolded dimension to be static."""
    shape, _ = imp.meta(node)
    if x.rank == 0:
        raise UnsupportedError("unfold of a rank-0 tensor")
    dim = dimension % x.rank
    if all(is_static(s) for s in x.shape) and all(is_static(s) for s in shape):
        row_major = [1] * x.rank
        for d in range(x.rank - 2, -1, -1):
            row_major[d] = row_major[d + 1] * x.shape[d + 1]
        strides = list(row_major)
        strides[dim] = row_major[dim] * step
        strides.append(row_major[dim])
        return imp.op(shape, x.dtype,
                      f"tensor_program.as_strided {x.name} sizes [{', '.join(map(str, shape))}] "
                      f"strides [{', '.join(map(str, strides))}] offset 0 : "
                      f"{x.type()} -> {tensor_type(shape, x.dtype)}")
    if not is_static(x.shape[dim]) or not is_static(shape[dim]):
        raise UnsupportedError("unfold of a dimension with a symbolic size")
    windows = shape[dim]
    pieces = []
    sliced_shape = list(x.shape)
    sliced_shape[dim] = windows
    for offset in range(size):
        end = offset + step * (windows - 1) + 1
        piece = imp.slice(x, dim, offset, end, step, tuple(sliced_shape))
        pieces.append(imp.reshape(piece, tuple(sliced_shape) + (1,)))
    if len(pieces) == 1:
        return pieces[0]
    return concat(imp, pieces, x.rank, shape, x.dtype)


@register(aten.repeat.default)
def _repeat(imp, node, x, repeats):
    shape, _ = imp.meta(node)
    repeats = [as_size(r) for r in repeats]
    lead = len(repeats) - x.rank
    source = list(x.shape)
    # [r0, r1*s1...]: broadcast each dimension to [r, s] then merge.
    expanded_input = []
    expanded = []
    for i, r in enumerate(repeats):
        size = source[i - lead] if i >= lead else 1
        expanded_input += [1, size]
        expanded += [r, size]
    value = imp.reshape(x, tuple(expanded_input))
    value = imp.broadcast_to(value, tuple(expanded))
    return imp.reshape(value, shape)


@register(aten.flip.default)
def _flip(imp, node, x, dims):
    dims = sorted({normalize_dim(dim, x.rank) for dim in dims})
    return flip(imp, x, dims)


def flip(imp, x, dims):
    """x reversed along `dims` (tensor_program.flip; none: x itself)."""
    if not dims:
        return x
    return imp.op(x.shape, x.dtype,
                  f"tensor_program.flip {x.name} [{', '.join(map(str, dims))}] : {x.type()}")
