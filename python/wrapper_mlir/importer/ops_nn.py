"""Neural-network core ATen ops: products, softmax, normalizations,
convolution, pooling; and the structural nodes (getitem, asserts)."""

import operator

import torch

from .ops_layout import concat, pad, slice_value
from .ops_reduction import reduce
from .registry import aten, register
from .values import Size, Tensor, UnsupportedError, as_size, float_literal, is_static, \
    normalize_dim, tensor_type


@register(operator.getitem)
def _getitem(imp, node, value, index):
    if isinstance(value, (tuple, list)):
        item = value[index]
        if item is None and node.users:  # nothing reads a dead getitem
            raise UnsupportedError(f"output {index} of '{node.args[0].name}' is not computed")
        return item
    raise UnsupportedError(f"getitem on {type(value).__name__}")


@register(aten._assert_tensor_metadata.default, aten._assert_scalar.default,
          aten.sym_constrain_range_for_size.default, aten._assert_async.msg,
          aten.sym_constrain_range.default)
def _assertion(imp, node, *args, **kwargs):
    return None


def _weight_source(imp, node, position):
    """When argument `position` of `node` is permute(w, [1, 0]) or t(w) of
    a 2-d value, that value (the product is then a linear layer)."""
    arg = node.args[position]
    if not hasattr(arg, "target"):
        return None
    if arg.target in (aten.permute.default,) and list(arg.args[1]) in ([1, 0], [-1, -2]):
        source = imp.env.get(arg.args[0])
    elif arg.target in (aten.t.default,):
        source = imp.env.get(arg.args[0])
    else:
        return None
    if isinstance(source, Tensor) and source.rank == 2:
        return source
    return None


def linear(imp, x, weight, bias, shape, dtype):
    x = imp.as_tensor(x, dtype)
    weight = imp.as_tensor(weight, dtype)
    if bias is not None:
        bias = imp.as_tensor(bias, dtype)
        if bias.rank != 1 or bias.shape[0] != weight.shape[0]:
            bias = None if bias.rank > 1 else bias
    operands = [x, weight] + ([bias] if bias is not None else [])
    bias_text = f" bias {bias.name}" if bias is not None else ""
    return imp.op(shape, dtype,
                  f"tensor_program.linear {x.name}, {weight.name}{bias_text} : "
                  f"({', '.join(v.type() for v in operands)}) -> {tensor_type(shape, dtype)}")


def matmul(imp, a, b, shape, dtype):
    a, b = imp.as_tensor(a, dtype), imp.as_tensor(b, dtype)
    return imp.nary("matmul", [a, b], shape, dtype)


@register(aten.mm.default)
def _mm(imp, node, a, b):
    shape, dtype = imp.meta(node)
    weight = _weight_source(imp, node, 1)
    if weight is not None:
        return linear(imp, a, weight, None, shape, dtype)
    return matmul(imp, a, b, shape, dtype)


@register(aten.bmm.default, aten.matmul.default)
def _bmm(imp, node, a, b):
    shape, dtype = imp.meta(node)
    if a.rank == 1 or b.rank == 1:
        # Vector operands: as matrices, then the added dimension dropped.
        a2 = imp.reshape(a, (1,) + a.shape) if a.rank == 1 else a
        b2 = imp.reshape(b, b.shape + (1,)) if b.rank == 1 else b
        inner = list(shape)
        if a.rank == 1:
            inner.insert(len(inner) - (0 if b.rank == 1 else 1), 1)
        if b.rank == 1:
            inner.append(1)
        return imp.reshape(matmul(imp, a2, b2, tuple(inner), dtype), shape)
    return matmul(imp, a, b, shape, dtype)


@register(aten.addmm.default)
def _addmm(imp, node, bias, a, b, beta=1, alpha=1):
    shape, dtype = imp.meta(node)
    weight = _weight_source(imp, node, 2)
    if (weight is not None and beta == 1 and alpha == 1 and isinstance(bias, Tensor)
            and bias.rank == 1 and bias.shape[0] == weight.shape[0]):
        return linear(imp, a, weight, bias, shape, dtype)
    product = matmul(imp, a, b, shape, dtype)
    if alpha != 1:
        product = imp.nary("mul", [product, imp.scalar(alpha, dtype)], shape, dtype)
    if beta == 0:
        return product
    bias = imp.as_tensor(bias, dtype)
    if beta != 1:
        bias = imp.nary("mul", [bias, imp.scalar(beta, dtype)], bias.shape, dtype)
    return imp.nary("add", [product, bias], shape, dtype)


@register(aten.baddbmm.default)
def _baddbmm(imp, node, bias, a, b, beta=1, alpha=1):
    shape, dtype = imp.meta(node)
    product = matmul(imp, a, b, shape, dtype)
    if alpha != 1:
        product = imp.nary("mul", [product, imp.scalar(alpha, dtype)], shape, dtype)
    if beta == 0:
        return product
    bias = imp.as_tensor(bias, dtype)
    if beta != 1:
        bias = imp.nary("mul", [bias, imp.scalar(beta, dtype)], bias.shape, dtype)
    return imp.nary("add", [product, bias], shape, dtype)


@register(aten._softmax.default, aten.softmax.int, aten._log_softmax.default,
          aten.log_softmax.int)
def _softmax(imp, node, x, dim, half_to_float=None, **kwargs):
    shape, dtype = imp.meta(node)
    kind = "log_softmax" if node.target in (aten._log_softmax.default,
                                            aten.log_softmax.int) else "softmax"
    x = imp.as_tensor(x, dtype)
    if x.rank == 0:
        return imp.full((), dtype, 0.0 if kind == "log_softmax" else 1.0)
    dim = normalize_dim(dim, x.rank)
    return imp.op(shape, dtype, f"tensor_program.{kind} {x.name} dim {dim} : {x.type()}")


def _normalized_rank(normalized_shape):
    return len(normalized_shape)


@register(aten.native_layer_norm.default, aten.layer_norm.default)
def _layer_norm(imp, node, x, normalized_shape, weight=None, bias=None, eps=1e-5, *args):
    multi = node.target == aten.native_layer_norm.default
    shape, dtype = imp.meta(node, 0) if multi else imp.meta(node)
    used = imp.used_outputs(node) if multi else None
    rank = _normalized_rank(normalized_shape)
    x = imp.as_tensor(x, dtype)
    operands = [x]
    text = f"tensor_program.layer_norm {x.name}"
    if weight is not None:
        weight = imp.as_tensor(weight, dtype)
        text += f" weight {weight.name}"
        operands.append(weight)
    if bias is not None:
        bias = imp.as_tensor(bias, dtype)
        text += f" bias {bias.name}"
        operands.append(bias)
    text += (f" normalized_rank {rank} eps {float_literal(eps)} : "
             f"({', '.join(v.type() for v in operands)}) -> {tensor_type(shape, dtype)}")
    out = imp.op(shape, dtype, text)
    if not multi:
        return out
    mean = rstd = None
    if used is None or 1 in used or 2 in used:
        stat_shape, stat_dtype = imp.meta(node, 1)
        dims = list(range(x.rank - rank, x.rank))
        mean = reduce(imp, "mean", x, dims, True, stat_shape, dtype)
        centered = imp.nary("sub", [x, mean], x.shape, dtype)
        squares = imp.nary("mul", [centered, centered], x.shape, dtype)
        variance = reduce(imp, "mean", squares, dims, True, stat_shape, dtype)
        shifted = imp.nary("add", [variance, imp.scalar(eps, dtype)], stat_shape, dtype)
        rstd = imp.cast(imp.unary("rsqrt", shifted), stat_dtype)
        mean = imp.cast(mean, stat_dtype)
    return (out, mean, rstd)


@register(aten._fused_rms_norm.default, aten.rms_norm.default)
def _rms_norm(imp, node, x, normalized_shape, weight=None, eps=None):
    """tensor_program.rms_norm over the last dimension; several normalized
    dimensions are flattened into one around it. The fused op's second
    output (the reciprocal RMS) is computed only when used."""
    multi = node.target == aten._fused_rms_norm.default
    shape, dtype = imp.meta(node, 0) if multi else imp.meta(node)
    if eps is None:
        eps = torch.finfo(dtype).eps
    rank = _normalized_rank(normalized_shape)
    x = imp.as_tensor(x, dtype)
    if rank > 1 and not all(is_static(d) for d in x.shape[x.rank - rank:]):
        raise UnsupportedError("rms_norm over several dimensions of dynamic size")
    inner = 1
    for d in x.shape[x.rank - rank:]:
        inner *= d
    flat_shape = list(x.shape[:x.rank - rank]) + [inner]
    flat = imp.reshape(x, flat_shape) if rank > 1 else x
    operands = [flat]
    text = f"tensor_program.rms_norm {flat.name}"
    if weight is not None:
        weight = imp.as_tensor(weight, dtype)
        weight = imp.reshape(weight, [inner]) if weight.rank != 1 else weight
        text += f" weight {weight.name}"
        operands.append(weight)
    text += (f" eps {float_literal(eps)} : ({', '.join(v.type() for v in operands)}) -> "
             f"{tensor_type(flat_shape, dtype)}")
    out = imp.op(flat_shape, dtype, text)
    out = imp.reshape(out, shape) if rank > 1 else out
    if not multi:
        return out
    used = imp.used_outputs(node)
    rstd = None
    if used is None or 1 in used:
        stat_shape, stat_dtype = imp.meta(node, 1)
        dims = list(range(x.rank - rank, x.rank))
        squares = imp.nary("mul", [x, x], x.shape, dtype)
        mean = reduce(imp, "mean", squares, dims, True, stat_shape, dtype)
        shifted = imp.nary("add", [mean, imp.scalar(eps, dtype)], stat_shape, dtype)
        rstd = imp.cast(imp.unary("rsqrt", shifted), stat_dtype)
    return (out, rstd)


def _channel_view(imp, value, rank, dtype):
    """A per-channel [C] parameter viewed as [C, 1, ..., 1] against an
    input of `rank` laid out [N, C, ...]."""
    value = imp.as_tensor(value, dtype)
    return imp.reshape(value, (value.shape[0],) + (1,) * (rank - 2))


def _batch_statistics(imp, x, dtype, eps):
    """(mean, rsqrt(var + eps)) over every dimension but the channels
    (dimension 1), biased, kept as [1, C, 1, ...]: batch norm with batch
    statistics (instance norm, track_running_stats=False)."""
    dims = [0] + list(range(2, x.rank))
    kept = tuple(1 if d != 1 else x.shape[1] for d in range(x.rank))
    mean = reduce(imp, "mean", x, dims, True, kept, dtype)
    centered = imp.nary("sub", [x, mean], x.shape, dtype)
    squares = imp.nary("mul", [centered, centered], x.shape, dtype)
    variance = reduce(imp, "mean", squares, dims, True, kept, dtype)
    shifted = imp.nary("add", [variance, imp.scalar(eps, dtype)], kept, dtype)
    return mean, imp.unary("rsqrt", shifted)


@register(aten._native_batch_norm_legit.no_stats)
def _batch_norm_no_stats(imp, node, x, weight, bias, training, momentum, eps):
    shape, dtype = imp.meta(node, 0)
    used = imp.used_outputs(node)
    if used is not None and (used - {0}):
        raise UnsupportedError("batch_norm's saved statistics are used")
    x = imp.as_tensor(x, dtype)
    mean, inv = _batch_statistics(imp, x, dtype, eps)
    out = imp.nary("mul", [imp.nary("sub", [x, mean], shape, dtype), inv], shape, dtype)
    if weight is not None:
        out = imp.nary("mul", [out, _channel_view(imp, weight, x.rank, dtype)], shape, dtype)
    if bias is not None:
        out = imp.nary("add", [out, _channel_view(imp, bias, x.rank, dtype)], shape, dtype)
    return (out, None, None)


@register(aten._native_batch_norm_legit_no_training.default,
          aten._native_batch_norm_legit.default, aten.native_batch_norm.default,
          aten.batch_norm.default, aten._native_batch_norm_legit_functional.default)
def _batch_norm(imp, node, x, weight, bias, running_mean, running_var, *args):
    target = node.target
    if target == aten._native_batch_norm_legit_no_training.default:
        momentum, eps = args
        training = False
    elif target == aten.batch_norm.default:
        training, momentum, eps = args[0], args[1], args[2]
    else:
        training, momentum, eps = args[0], args[1], args[2]
    if training:
        raise UnsupportedError("batch_norm in training mode (it updates the running "
                               "statistics)")
    if running_mean is None or running_var is None:
        raise UnsupportedError("batch_norm without running statistics")
    multi = target != aten.batch_norm.default
    shape, dtype = imp.meta(node, 0) if multi else imp.meta(node)
    used = imp.used_outputs(node) if multi else None
    if used is not None and (used - {0}):
        raise UnsupportedError("batch_norm's saved statistics are used")
    rank = x.rank
    x = imp.as_tensor(x, dtype)
    # scale = weight * rsqrt(var + eps), shift = bias - mean * scale: folded
    # at compile time when the statistics are weights.
    variance = _channel_view(imp, running_var, rank, dtype)
    mean = _channel_view(imp, running_mean, rank, dtype)
    stat_shape = variance.shape
    inv = imp.unary("rsqrt", imp.nary("add", [variance, imp.scalar(eps, dtype)], stat_shape,
                                      dtype))
    scale = inv
    if weight is not None:
        scale = imp.nary("mul", [inv, _channel_view(imp, weight, rank, dtype)], stat_shape, dtype)
    shift = imp.unary("neg", imp.nary("mul", [mean, scale], stat_shape, dtype))
    if bias is not None:
        shift = imp.nary("add", [shift, _channel_view(imp, bias, rank, dtype)], stat_shape, dtype)
    out = imp.nary("add", [imp.nary("mul", [x, scale], shape, dtype), shift], shape, dtype)
    if not multi:
        return out
    return (out, None, None) if target != aten._native_batch_norm_legit_functional.default \
        else (out, None, None, None, None)


@register(aten.native_group_norm.default, aten.group_norm.default)
def _group_norm(imp, node, x, *args):
    target = node.target
    if target == aten.native_group_norm.default:
        weight, bias, n, c, hw, groups, eps = args
        shape, dtype = imp.meta(node, 0)
        used = imp.used_outputs(node)
        if used is not None and (used - {0}):
            raise UnsupportedError("group_norm's saved statistics are used")
    else:
        groups, weight, bias, eps = (list(args) + [None, None, 1e-5])[:4]
        shape, dtype = imp.meta(node)
    x = imp.as_tensor(x, dtype)
    channels = x.shape[1]
    if not is_static(channels):
        raise UnsupportedError("group_norm with a dynamic channel count")
    rest = 1
    for size in x.shape[2:]:
        rest = rest * size
    grouped_shape = (x.shape[0], groups, (channels // groups) * rest)
    grouped = imp.reshape(x, grouped_shape)
    normalized = imp.op(grouped_shape, dtype,
                        f"tensor_program.layer_norm {grouped.name} normalized_rank 1 eps "
                        f"{float_literal(eps)} : ({grouped.type()}) -> "
                        f"{tensor_type(grouped_shape, dtype)}")
    out = imp.reshape(normalized, x.shape)
    if weight is not None:
        out = imp.nary("mul", [out, _channel_view(imp, weight, x.rank, dtype)], shape, dtype)
    if bias is not None:
        out = imp.nary("add", [out, _channel_view(imp, bias, x.rank, dtype)], shape, dtype)
    if target == aten.native_group_norm.default:
        return (out, None, None)
    return out


def _ints(values, count, name):
    values = [int(as_size(v)) for v in values]
    if len(values) == 1 and count > 1:
        values = values * count
    if len(values) != count:
        raise UnsupportedError(f"{name} has {len(values)} entries for {count} spatial dims")
    return values


def _list(values):
    return ", ".join(str(v) for v in values)


@register(aten.convolution.default, aten._convolution.default, aten.conv2d.default,
          aten.conv1d.default, aten.conv3d.default)
def _convolution(imp, node, x, weight, bias=None, stride=(1,), padding=(0,), dilation=(1,),
                 transposed=False, output_padding=(0,), groups=1, *rest):
    target = node.target
    if target in (aten.conv1d.default, aten.conv2d.default, aten.conv3d.default):
        # conv2d(input, weight, bias, stride, padding, dilation, groups)
        groups = transposed if not isinstance(transposed, bool) else 1
        transposed, output_padding = False, (0,)
        if isinstance(padding, str):
            raise UnsupportedError(f"padding='{padding}'")
    shape, dtype = imp.meta(node)
    spatial = x.rank - 2
    stride = _ints(stride, spatial, "stride")
    padding = _ints(padding, spatial, "padding")
    dilation = _ints(dilation, spatial, "dilation")
    groups = int(groups)
    x = imp.as_tensor(x, dtype)
    weight = imp.as_tensor(weight, dtype)
    if transposed:
        output_padding = _ints(output_padding, spatial, "output_padding")
        x, weight, padding_low, padding_high = _transposed_as_direct(
            imp, x, weight, stride, padding, dilation, output_padding, groups)
        stride = [1] * spatial
    else:
        padding_low = padding_high = padding
    operands = [x, weight]
    bias_text = ""
    if bias is not None:
        bias = imp.as_tensor(bias, dtype)
        operands.append(bias)
        bias_text = f" bias {bias.name}"
    if any(padding_low) or any(padding_high):
        padded = list(x.shape)
        for d in range(spatial):
            padded[2 + d] = padded[2 + d] + padding_low[d] + padding_high[d]
        operands[0] = pad(imp, x, [0, 0] + list(padding_low), [0, 0] + list(padding_high), 0.0,
                          tuple(padded))
    text = (f"tensor_program.convolution {operands[0].name}, {weight.name}{bias_text} "
            f"stride [{_list(stride)}] dilation [{_list(dilation)}] groups {groups} : "
            f"({', '.join(v.type() for v in operands)}) -> {tensor_type(shape, dtype)}")
    return imp.op(shape, dtype, text)


def _transposed_as_direct(imp, x, weight, stride, padding, dilation, output_padding, groups):
    """A transposed convolution as a direct one: the input with stride-1
    zeros between its elements, the kernel flipped and its in/out channels
    swapped (per group), padding dilation*(k-1)-padding (plus the output
    padding on the high side)."""
    from .ops_layout import flip

    spatial = x.rank - 2
    dtype = x.dtype
    # Zeros between elements: [.., H] -> [.., H, 1] -> pad to [.., H, s] ->
    # [.., H*s] -> cut to (H-1)*s+1.
    for d in range(spatial):
        s = stride[d]
        if s == 1:
            continue
        axis = 2 + d
        size = x.shape[axis]
        if not is_static(size):
            raise UnsupportedError("transposed convolution with stride over a dynamic size")
        expanded = x.shape[:axis + 1] + (1,) + x.shape[axis + 1:]
        x = imp.reshape(x, expanded)
        widened = list(expanded)
        widened[axis + 1] = s
        low = [0] * len(expanded)
        high = [0] * len(expanded)
        high[axis + 1] = s - 1
        x = pad(imp, x, low, high, 0.0, tuple(widened))
        merged = expanded[:axis] + (size * s,) + expanded[axis + 2:]
        x = imp.reshape(x, merged)
        cut = list(merged)
        cut[axis] = (size - 1) * s + 1
        x = imp.slice(x, axis, 0, cut[axis], 1, tuple(cut))
    # Weight [Cin, Cout/g, k...] -> [Cout, Cin/g, k...], flipped.
    cin, cout_g = weight.shape[0], weight.shape[1]
    kernel = weight.shape[2:]
    grouped = imp.reshape(weight, (groups, cin // groups, cout_g) + kernel)
    swapped = imp.permute(grouped, [0, 2, 1] + list(range(3, 3 + spatial)))
    weight = imp.reshape(swapped, (groups * cout_g, cin // groups) + kernel)
    weight = flip(imp, weight, [2 + d for d in range(spatial) if kernel[d] != 1])
    low = [dilation[d] * (kernel[d] - 1) - padding[d] for d in range(spatial)]
    high = [low[d] + output_padding[d] for d in range(spatial)]
    if any(v < 0 for v in low):
        raise UnsupportedError("transposed convolution with padding above dilation*(k-1)")
    return x, weight, low, high


def _pool_geometry(x, kernel, stride, padding, dilation, ceil_mode, shape):
    """Low and high padding per spatial dimension such that the plain
    (floor) window count gives the node's output shape (ceil_mode adds high
    padding)."""
    spatial = len(kernel)
    low = list(padding)
    high = []
    for d in range(spatial):
        size = x.shape[x.rank - spatial + d]
        out = shape[len(shape) - spatial + d]
        if not ceil_mode:
            high.append(padding[d])
            continue
        if not is_static(size) or not is_static(out):
            raise UnsupportedError("ceil_mode pooling over a dynamic size")
        needed = (out - 1) * stride[d] + dilation[d] * (kernel[d] - 1) + 1 - size - low[d]
        high.append(max(needed, padding[d]))
    return low, high


@register(aten.max_pool2d_with_indices.default, aten.max_pool2d.default,
          aten.max_pool1d.default, aten.max_pool3d_with_indices.default,
          aten.max_pool3d.default)
def _max_pool(imp, node, x, kernel, stride=(), padding=(0,), dilation=(1,), ceil_mode=False):
    multi = node.target in (aten.max_pool2d_with_indices.default,
                            aten.max_pool3d_with_indices.default)
    shape, dtype = imp.meta(node, 0) if multi else imp.meta(node)
    want_indices = False
    if multi:
        used = imp.used_outputs(node)
        want_indices = used is None or 1 in used
    spatial = len(kernel) if len(kernel) > 1 else x.rank - 2
    if node.target == aten.max_pool2d_with_indices.default or node.target == aten.max_pool2d.default:
        spatial = 2
    kernel = _ints(kernel, spatial, "kernel_size")
    stride = _ints(stride or kernel, spatial, "stride")
    padding = _ints(padding, spatial, "padding")
    dilation = _ints(dilation, spatial, "dilation")
    low, high = _pool_geometry(x, kernel, stride, padding, dilation, ceil_mode, shape)
    if want_indices:
        return _max_pool_with_indices(imp, x, kernel, stride, dilation, low, high, shape, dtype)
    out = imp.op(shape, dtype,
                 f"tensor_program.max_pool {x.name} window [{_list(kernel)}] stride "
                 f"[{_list(stride)}] dilation [{_list(dilation)}] padding_low [{_list(low)}] "
                 f"padding_high [{_list(high)}] : {x.type()} -> {tensor_type(shape, dtype)}")
    return (out, None) if multi else out


@register(aten.avg_pool2d.default, aten.avg_pool1d.default, aten.avg_pool3d.default)
def _avg_pool(imp, node, x, kernel, stride=(), padding=(0,), ceil_mode=False,
              count_include_pad=True, divisor_override=None):
    shape, dtype = imp.meta(node)
    spatial = {aten.avg_pool1d.default: 1, aten.avg_pool2d.default: 2,
               aten.avg_pool3d.default: 3}[node.target]
    kernel = _ints(kernel, spatial, "kernel_size")
    stride = _ints(stride or kernel, spatial, "stride")
    padding = _ints(padding, spatial, "padding")
    low, high = _pool_geometry(x, kernel, stride, padding, [1] * spatial, ceil_mode, shape)
    return avg_pool(imp, x, kernel, stride, low, high, padding, count_include_pad,
                    divisor_override, shape, dtype)


def avg_pool(imp, x, kernel, stride, low, high, padding, count_include_pad, divisor, shape,
             dtype):
    text = (f"tensor_program.avg_pool {x.name} window [{_list(kernel)}] stride "
            f"[{_list(stride)}] padding_low [{_list(low)}] padding_high [{_list(high)}]")
    if count_include_pad:
        # PyTorch counts the padding, but not the ceil_mode overhang.
        text += f" count_padding [{_list(padding)}]"
    if divisor:
        text += f" divisor {int(divisor)}"
    return imp.op(shape, dtype, f"{text} : {x.type()} -> {tensor_type(shape, dtype)}")


@register(aten._adaptive_avg_pool2d.default, aten.adaptive_avg_pool2d.default,
          aten._adaptive_avg_pool3d.default, aten.adaptive_avg_pool1d.default)
def _adaptive_avg_pool(imp, node, x, output_size):
    shape, dtype = imp.meta(node)
    spatial = len(output_size)
    return _adaptive(imp, x, spatial, shape, dtype, "avg")


@register(aten.adaptive_max_pool2d.default, aten.adaptive_max_pool1d.default)
def _adaptive_max_pool(imp, node, x, output_size):
    shape, dtype = imp.meta(node, 0)
    used = imp.used_outputs(node)
    if used is None or 1 in used:
        raise UnsupportedError("adaptive_max_pool indices are used")
    spatial = len(output_size)
    return (_adaptive(imp, x, spatial, shape, dtype, "max"), None)


def _adaptive(imp, x, spatial, shape, dtype, kind):
    """Adaptive pooling: one pool when every input size divides by its
    output size, else each output cell's window pooled on its own."""
    sizes = x.shape[x.rank - spatial:]
    outs = shape[len(shape) - spatial:]
    if not all(is_static(s) for s in sizes) or not all(is_static(s) for s in outs):
        raise UnsupportedError("adaptive pooling over a dynamic size")
    if all(s % o == 0 for s, o in zip(sizes, outs)):
        kernel = [s // o for s, o in zip(sizes, outs)]
        if kind == "avg":
            return avg_pool(imp, x, kernel, kernel, [0] * spatial, [0] * spatial, [0] * spatial,
                            False, None, shape, dtype)
        return imp.op(shape, dtype,
                      f"tensor_program.max_pool {x.name} window [{_list(kernel)}] stride "
                      f"[{_list(kernel)}] dilation [{_list([1] * spatial)}] padding_low "
                      f"[{_list([0] * spatial)}] padding_high [{_list([0] * spatial)}] : "
                      f"{x.type()} -> {tensor_type(shape, dtype)}")
    # Separable: pool one spatial dimension at a time, cell by cell.
    value = x
    for d in range(spatial):
        axis = x.rank - spatial + d
        size, out = sizes[d], outs[d]
        cells = []
        for i in range(out):
            start = (i * size) // out
            end = -((-(i + 1) * size) // out)
            cell_shape = list(value.shape)
            cell_shape[axis] = end - start
            cell = imp.slice(value, axis, start, end, 1, tuple(cell_shape))
            kept = list(cell_shape)
            kept[axis] = 1
            cells.append(reduce(imp, "mean" if kind == "avg" else "max", cell, [axis], True,
                                tuple(kept), dtype))
        merged = list(value.shape)
        merged[axis] = out
        value = cells[0] if len(cells) == 1 else concat(imp, cells, axis, tuple(merged), dtype)
    return value


@register(aten.upsample_nearest1d.vec, aten.upsample_nearest2d.vec,
          aten.upsample_nearest3d.vec, aten._upsample_nearest_exact1d.vec,
          aten._upsample_nearest_exact2d.vec, aten._upsample_nearest_exact3d.vec)
def _upsample_nearest(imp, node, x, output_size=None, scale_factors=None):
    """Nearest-neighbour resizing: one take per spatial dimension with the
    source index of each output position (PyTorch's rule: floor(o * in /
    out), or floor((o + 0.5) * in / out) for nearest-exact)."""
    from .ops_indexing import take

    shape, dtype = imp.meta(node)
    exact = "exact" in node.target._opname
    spatial = x.rank - 2
    value = x
    for i in range(spatial):
        axis = 2 + i
        size, out = x.shape[axis], shape[axis]
        if not is_static(size) or not is_static(out):
            raise UnsupportedError("nearest resizing of a dynamic size")
        scale = (1.0 / scale_factors[i]) if scale_factors else size / out
        sources = [min(int((o + (0.5 if exact else 0.0)) * scale), size - 1) for o in range(out)]
        if sources == list(range(size)):
            continue
        index = imp.constant(torch.tensor(sources, dtype=torch.int64), "resize_index")
        resized = list(value.shape)
        resized[axis] = out
        value = take(imp, value, index, axis, tuple(resized))
    return value


@register(aten.upsample_bilinear2d.vec, aten.upsample_linear1d.vec,
          aten.upsample_trilinear3d.vec, aten.upsample_bilinear2d.default)
def _upsample_linear(imp, node, x, output_size=None, align_corners=False, scale_factors=None,
                     *rest):
    """Linear resizing, one spatial dimension at a time: the two source
    rows of each output position (take) blended by constant weights, with
    PyTorch's source coordinates (align_corners or half-pixel)."""
    from .ops_indexing import take

    if node.target == aten.upsample_bilinear2d.default:
        scale_factors = [s for s in (rest or []) if s is not None] or None
    shape, dtype = imp.meta(node)
    spatial = x.rank - 2
    value = imp.as_tensor(x, dtype)
    for i in range(spatial):
        axis = 2 + i
        size, out = x.shape[axis], shape[axis]
        if not is_static(size) or not is_static(out):
            raise UnsupportedError("linear resizing of a dynamic size")
        if size == out:
            continue
        low, high, weights = [], [], []
        for o in range(out):
            if align_corners:
                source = o * (size - 1) / (out - 1) if out > 1 else 0.0
            else:
                scale = (1.0 / scale_factors[i]) if scale_factors else size / out
                source = max((o + 0.5) * scale - 0.5, 0.0)
            first = min(int(source), size - 1)
            low.append(first)
            high.append(min(first + 1, size - 1))
            weights.append(source - first)
        resized = list(value.shape)
        resized[axis] = out
        resized = tuple(resized)
        a = take(imp, value, imp.constant(torch.tensor(low), "resize_low"), axis, resized)
        b = take(imp, value, imp.constant(torch.tensor(high), "resize_high"), axis, resized)
        w = imp.constant(torch.tensor(weights, dtype=dtype).reshape(
            (out,) + (1,) * (value.rank - axis - 1)), "resize_weight")
        blend = imp.nary("mul", [imp.nary("sub", [b, a], resized, dtype), w], resized, dtype)
        value = imp.nary("add", [a, blend], resized, dtype)
    return value


def _max_pool_with_indices(imp, x, kernel, stride, dilation, low, high, shape, dtype):
    """max_pool's values and PyTorch's indices (the flat position of each
    maximum in its input plane): the windows gathered with a constant index
    (as im2col), reduced with max and argmax, the argmax mapped to input
    positions through a constant table. Static spatial sizes."""
    import itertools

    from .ops_indexing import take

    k = len(kernel)
    lead = x.rank - k
    sizes = x.shape[lead:]
    outs = shape[lead:]
    if not all(is_static(s) for s in sizes) or not all(is_static(s) for s in outs):
        raise UnsupportedError("max_pool indices over a dynamic size")
    padded_sizes = [s + l + h for s, l, h in zip(sizes, low, high)]
    padded = pad(imp, x, [0] * lead + list(low), [0] * lead + list(high), float("-inf"),
                 x.shape[:lead] + tuple(padded_sizes))
    plane = 1
    for s in padded_sizes:
        plane *= s
    flat = imp.reshape(padded, x.shape[:lead] + (plane,))
    windows, table = [], []
    for o in itertools.product(*[range(n) for n in outs]):
        for w in itertools.product(*[range(n) for n in kernel]):
            at = [o[i] * stride[i] + w[i] * dilation[i] for i in range(k)]
            position = 0
            for i in range(k):
                position = position * padded_sizes[i] + at[i]
            windows.append(position)
            # The position in the unpadded plane (padding never wins).
            original = 0
            for i in range(k):
                original = original * sizes[i] + min(max(at[i] - low[i], 0), sizes[i] - 1)
            table.append(original)
    positions = 1
    for n in outs:
        positions *= n
    window = 1
    for n in kernel:
        window *= n
    index = imp.constant(torch.tensor(windows, dtype=torch.int64).reshape(positions, window),
                         "pool_window")
    gathered = take(imp, flat, index, lead, x.shape[:lead] + (positions, window))
    values = reduce(imp, "max", gathered, [lead + 1], False, x.shape[:lead] + (positions,), dtype)
    best = imp.op(x.shape[:lead] + (positions,), torch.int64,
                  f"tensor_program.argmax {gathered.name} dim {lead + 1} : {gathered.type()} -> "
                  f"{tensor_type(x.shape[:lead] + (positions,), torch.int64)}")
    from .ops_indexing import iota

    rows = iota(imp, (positions,), 0, torch.int64)
    at = imp.nary("add", [imp.nary("mul", [rows, imp.scalar(window, torch.int64)], (positions,),
                                   torch.int64), best],
                  best.shape, torch.int64)
    lookup = imp.constant(torch.tensor(table, dtype=torch.int64), "pool_table")
    indices = take(imp, lookup, at, 0, at.shape)
    return (imp.reshape(values, tuple(shape)), imp.reshape(indices, tuple(shape)))
