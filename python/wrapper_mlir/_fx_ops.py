"""The op handlers of the torch.fx importer, and the tables that pick them
by what a node calls (a function, a Tensor method, a module type).

Each handler takes the importer, the node, then the node's arguments with
nodes replaced by imported values (Tensor, Index, numbers, tuples of them),
and returns the imported result.
"""

import math
import operator

import torch
import torch.nn as nn
import torch.nn.functional as F

from ._fx_values import (Index, Tensor, UnsupportedError, _dims_list, _float_literal,
                         _normalize_dim)


def _binary(opname):
    def handler(im, node, a, b, *, alpha=None, out=None):
        if out is not None:
            raise UnsupportedError("out= arguments")
        if alpha is not None and alpha != 1:
            b = im.elementwise_to(b.shape, b.dtype, "mul", b, alpha) if isinstance(b, Tensor) else b * alpha
        if not isinstance(a, Tensor) and not isinstance(b, Tensor):
            return _scalar_arith(im, opname, a, b)
        return im.elementwise(node, opname, a, b)
    return handler


def _scalar_arith(im, opname, a, b):
    ops = {"add": "addi", "sub": "subi", "mul": "muli"}
    if opname in ops:
        return im.arith(ops[opname], a, b)
    if opname == "div" and not isinstance(a, Index) and not isinstance(b, Index):
        return a / b
    raise UnsupportedError(f"'{opname}' of Python numbers that change with the batch size")


def _floordiv(im, node, a, b):
    if isinstance(a, Tensor) or isinstance(b, Tensor):
        raise UnsupportedError("floor division of tensors")
    return im.arith("divui", a, b)


def _rsub(im, node, a, b, alpha=1):
    if alpha != 1:
        a = im.elementwise_to(a.shape, a.dtype, "mul", a, alpha)
    return im.elementwise(node, "sub", b, a)


def _unary(opname):
    def handler(im, node, x, *args, **kwargs):
        if opname == "gelu":
            approximate = kwargs.get("approximate", args[0] if args else "none")
            if approximate not in ("none", "tanh"):
                raise UnsupportedError(f"gelu approximate='{approximate}'")
            shape, dtype = im.result_meta(node)
            x = im.cast(x, dtype)
            suffix = " approximate tanh" if approximate == "tanh" else ""
            return im.op(shape, dtype, f"tensor_program.gelu {x.name}{suffix} : {x.type()}")
        return im.elementwise(node, opname, x)
    return handler


def _identity(im, node, x, *args, **kwargs):
    return x


def _dropout(im, node, x, p=0.5, training=False, inplace=False):
    if training:
        raise UnsupportedError("dropout in training mode (call model.eval())")
    return x


def _compare(predicate):
    def handler(im, node, a, b):
        operand_dtype = torch.result_type(
            im.values[node.args[0]] if isinstance(node.args[0], torch.fx.Node) else node.args[0],
            im.values[node.args[1]] if isinstance(node.args[1], torch.fx.Node) else node.args[1])
        shape, _ = im.result_meta(node)
        x, y = im.as_tensor(a, operand_dtype), im.as_tensor(b, operand_dtype)
        result = Tensor("", shape, torch.bool)
        return im.op(shape, torch.bool,
                     f"tensor_program.compare {predicate}, {x.name}, {y.name} : "
                     f"({x.type()}, {y.type()}) -> {result.type()}")
    return handler


def _where(im, node, condition, a, b):
    shape, dtype = im.result_meta(node)
    c = im.as_tensor(condition, torch.bool)
    x, y = im.as_tensor(a, dtype), im.as_tensor(b, dtype)
    result = Tensor("", shape, dtype)
    return im.op(shape, dtype,
                 f"tensor_program.where {c.name}, {x.name}, {y.name} : "
                 f"({c.type()}, {x.type()}, {y.type()}) -> {result.type()}")


def _masked_fill(im, node, x, mask, value):
    return _where(im, node, mask, value, x)


def _to(im, node, x, *args, **kwargs):
    _, dtype = im.result_meta(node)
    return im.cast(x, dtype)


def _type_method(dtype):
    def handler(im, node, x):
        return im.cast(x, dtype)
    return handler


def _pow(im, node, a, b):
    if isinstance(b, (int, float)) and b == 2 and isinstance(a, Tensor):
        return im.elementwise(node, "mul", a, a)
    if isinstance(b, (int, float)) and b == 0.5 and isinstance(a, Tensor):
        return im.elementwise(node, "sqrt", a)
    return im.elementwise(node, "pow", a, b)


def _linear(im, node, x, weight, bias=None):
    return im.linear(node, x, weight, bias)


def _matmul(im, node, a, b):
    return im.matmul(node, a, b)


def _bmm(im, node, a, b):
    shape, dtype = im.result_meta(node)
    result = Tensor("", shape, dtype)
    return im.op(shape, dtype,
                 f"tensor_program.batch_matmul {a.name}, {b.name} : ({a.type()}, {b.type()}) -> {result.type()}")


def _scaled_sum(im, node, product, bias, beta, alpha):
    if alpha != 1:
        product = im.elementwise_to(product.shape, product.dtype, "mul", product, alpha)
    if beta == 0:
        return product
    if beta != 1:
        bias = im.elementwise_to(bias.shape, bias.dtype, "mul", bias, beta)
    return im.elementwise(node, "add", bias, product)


def _addmm(im, node, bias, a, b, *, beta=1, alpha=1):
    return _scaled_sum(im, node, im.matmul(node, a, b), bias, beta, alpha)


def _baddbmm(im, node, bias, a, b, *, beta=1, alpha=1):
    return _scaled_sum(im, node, _bmm(im, node, a, b), bias, beta, alpha)


def _softmax(kind):
    def handler(im, node, x, dim=None, *args, dtype=None, **kwargs):
        shape, result_dtype = im.result_meta(node)
        if dim is None:
            raise UnsupportedError(f"{kind} without dim")
        x = im.cast(x, result_dtype)
        return im.op(shape, result_dtype,
                     f"tensor_program.{kind} {x.name} dim {_normalize_dim(dim, x.rank)} : {x.type()}")
    return handler


def _layer_norm(im, node, x, normalized_shape, weight=None, bias=None, eps=1e-5, *_cudnn_enable):
    return im.normalization(node, "layer_norm", x, len(normalized_shape), weight, bias, eps)


def _rms_norm(im, node, x, normalized_shape, weight=None, eps=None):
    if eps is None:
        eps = torch.finfo(im.values[node].dtype).eps
    return im.normalization(node, "rms_norm", x, len(normalized_shape), weight, None, eps)


def _reduction(kind):
    def handler(im, node, x, dim=None, keepdim=False, *, dtype=None):
        if dim == () or dim == []:
            dim = None
        return im.reduce(node, kind, x, dim, keepdim)
    return handler


def _view(im, node, x, *sizes):
    return im.reshape(x, im.view_sizes(x, sizes, node), node)


def _reshape_function(im, node, x, shape):
    return im.reshape(x, im.view_sizes(x, shape, node), node)


def _flatten(im, node, x, start_dim=0, end_dim=-1):
    start, end = _normalize_dim(start_dim, x.rank), _normalize_dim(end_dim, x.rank)
    merged = 1
    for d in range(start, end + 1):
        merged = im.arith("muli", merged, im.dim(x, d))
    sizes = [im.dim(x, d) for d in range(start)] + [merged] + [im.dim(x, d) for d in range(end + 1, x.rank)]
    return im.reshape(x, sizes, node)


def _unsqueeze(im, node, x, dim):
    dim = _normalize_dim(dim, x.rank + 1)
    sizes = [im.dim(x, d) for d in range(x.rank)]
    sizes.insert(dim, 1)
    return im.reshape(x, sizes)


def _squeeze(im, node, x, dim=None):
    dims = _dims_list(dim, x.rank) if dim is not None else [d for d in range(x.rank) if x.shape[d] == 1]
    sizes = [im.dim(x, d) for d in range(x.rank) if not (d in dims and x.shape[d] == 1)]
    return im.reshape(x, sizes)


def _permute(im, node, x, *dims):
    if len(dims) == 1 and isinstance(dims[0], (list, tuple)):
        dims = dims[0]
    return im.permute(x, dims)


def _transpose(im, node, x, d0, d1):
    return im.transpose(x, d0, d1)


def _t(im, node, x):
    return x if x.rank < 2 else im.transpose(x, 0, 1)


def _expand(im, node, x, *sizes):
    if len(sizes) == 1 and isinstance(sizes[0], (list, tuple, torch.Size)):
        sizes = sizes[0]
    offset = len(sizes) - x.rank
    resolved = []
    for i, s in enumerate(sizes):
        if not isinstance(s, Index) and s == -1:
            if i < offset:
                raise UnsupportedError("expand: -1 for a new dimension")
            s = im.dim(x, i - offset)
        resolved.append(s)
    return im.broadcast_to(x, resolved)


def _expand_as(im, node, x, other):
    return im.broadcast_to(x, [im.dim(other, d) for d in range(other.rank)])


def _cat(im, node, tensors, dim=0):
    return im.concat(list(tensors), dim, node)


def _split(im, node, x, split_size, dim=0):
    dim = _normalize_dim(dim, x.rank)
    size = x.shape[dim]
    if size is None:
        raise UnsupportedError("split of a dynamic dimension")
    sizes = list(split_size) if isinstance(split_size, (list, tuple)) else \
        [min(split_size, size - s) for s in range(0, size, split_size)]
    pieces, start = [], 0
    for length in sizes:
        pieces.append(im.slice(x, dim, start, start + length, 1))
        start += length
    return tuple(pieces)


def _chunk(im, node, x, chunks, dim=0):
    size = x.shape[_normalize_dim(dim, x.rank)]
    if size is None:
        raise UnsupportedError("chunk of a dynamic dimension")
    return _split(im, node, x, math.ceil(size / chunks), dim)


def _unbind(im, node, x, dim=0):
    dim = _normalize_dim(dim, x.rank)
    pieces = []
    for i in range(x.shape[dim]):
        part = im.slice(x, dim, i, i + 1, 1)
        pieces.append(im.reshape(part, [im.dim(part, d) for d in range(x.rank) if d != dim]))
    return tuple(pieces)


def _narrow(im, node, x, dim, start, length):
    return im.slice(x, dim, start, start + length, 1)


def _getitem(im, node, container, index):
    if isinstance(container, (tuple, list)):
        return container[index]
    if isinstance(container, Tensor):
        return _tensor_index(im, container, index)
    raise UnsupportedError(f"indexing a {type(container).__name__}")


def _tensor_index(im, x, index):
    if not isinstance(index, tuple):
        index = (index,)
    if any(isinstance(i, Tensor) for i in index):
        raise UnsupportedError("indexing with a tensor")
    explicit = sum(1 for i in index if i is not None and i is not Ellipsis)
    expanded = []
    for i in index:
        if i is Ellipsis:
            expanded.extend([slice(None)] * (x.rank - explicit))
        else:
            expanded.append(i)
    value, dim, sizes_after = x, 0, []
    for i in expanded:
        if i is None:
            sizes_after.append(("new", None))
            continue
        if isinstance(i, slice):
            value = im.slice(value, dim, i.start, i.stop, i.step)
            sizes_after.append(("keep", dim))
        elif isinstance(i, int):
            start = i if i >= 0 or value.shape[dim] is None else i + value.shape[dim]
            value = im.slice(value, dim, start, start + 1, 1)
        else:
            raise UnsupportedError(f"index of type {type(i).__name__}")
        dim += 1
    sizes_after.extend(("keep", d) for d in range(dim, value.rank))
    sizes = [1 if kind == "new" else im.dim(value, d) for kind, d in sizes_after]
    return im.reshape(value, sizes)


def _size(im, node, x, dim=None):
    if dim is None:
        return tuple(im.dim(x, d) for d in range(x.rank))
    return im.dim(x, _normalize_dim(dim, x.rank))


def _getattr(im, node, x, name):
    if isinstance(x, Tensor):
        if name == "shape":
            return _size(im, node, x)
        if name == "T":
            return im.permute(x, list(reversed(range(x.rank))))
        if name == "dtype":
            return x.dtype
        if name == "ndim":
            return x.rank
    raise UnsupportedError(f"attribute '{name}'")


def _dim_method(im, node, x):
    return x.rank


def _contiguous(im, node, x, *args, **kwargs):
    return x


def _full_like(value):
    def handler(im, node, x, *args, **kwargs):
        shape, dtype = im.result_meta(node)
        sizes = [im.dim(x, d) for d in range(x.rank)]
        dynamic = [s.name for s in sizes if isinstance(s, Index)]
        operands = f" [{', '.join(dynamic)}]" if dynamic else ""
        result = Tensor("", shape, dtype)
        fill = args[0] if value is None else value
        return im.op(shape, dtype, f"tensor_program.full {_float_literal(fill)}{operands} : {result.type()}")
    return handler


def _sdpa(im, node, q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, enable_gqa=False):
    if dropout_p:
        raise UnsupportedError("scaled_dot_product_attention with dropout")
    if enable_gqa:
        raise UnsupportedError("scaled_dot_product_attention with enable_gqa")
    shape, dtype = im.result_meta(node)
    head = q.shape[-1]
    scale = scale if scale is not None else 1.0 / math.sqrt(head)
    kt = im.transpose(k, -2, -1)
    scores_shape = q.shape[:-1] + (k.shape[-2],)
    s = im.op(scores_shape, dtype,
              f"tensor_program.matmul {q.name}, {kt.name} : ({q.type()}, {kt.type()}) -> "
              f"{Tensor('', scores_shape, dtype).type()}")
    scale_value = im.scalar(scale, dtype)
    s = im.op(scores_shape, dtype,
              f"tensor_program.mul {s.name}, {scale_value.name} : ({s.type()}, {scale_value.type()}) -> "
              f"{Tensor('', scores_shape, dtype).type()}")
    if is_causal:
        length, source = q.shape[-2], k.shape[-2]
        if length is None or source is None:
            raise UnsupportedError("causal attention over a dynamic sequence length")
        mask = torch.ones(length, source, dtype=torch.bool).tril()
        bias = torch.zeros(length, source, dtype=im.values[node].dtype).masked_fill(~mask, float("-inf"))
        attn_mask = im.constant(bias, "causal mask")
    if attn_mask is not None:
        if attn_mask.dtype == torch.bool:
            zero = im.scalar(0.0, dtype)
            minus = im.scalar(float("-inf"), dtype)
            mask_shape = attn_mask.shape
            attn_mask = im.op(mask_shape, dtype,
                              f"tensor_program.where {attn_mask.name}, {zero.name}, {minus.name} : "
                              f"({attn_mask.type()}, {zero.type()}, {minus.type()}) -> "
                              f"{Tensor('', mask_shape, dtype).type()}")
        attn_mask = im.cast(attn_mask, dtype)
        s = im.op(scores_shape, dtype,
                  f"tensor_program.add {s.name}, {attn_mask.name} : ({s.type()}, {attn_mask.type()}) -> "
                  f"{Tensor('', scores_shape, dtype).type()}")
    p = im.op(scores_shape, dtype, f"tensor_program.softmax {s.name} dim {len(scores_shape) - 1} : {s.type()}")
    return im.op(shape, dtype,
                 f"tensor_program.matmul {p.name}, {v.name} : ({p.type()}, {v.type()}) -> "
                 f"{Tensor('', shape, dtype).type()}")


def _int_list(value, length=2):
    if isinstance(value, int):
        value = [value] * length
    return "[" + ", ".join(str(int(v)) for v in value) + "]"


def _conv2d(im, node, x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    if isinstance(padding, str):
        raise UnsupportedError(f"conv2d padding='{padding}'")
    if x.rank != 4:
        raise UnsupportedError("conv2d on a tensor of rank other than 4")
    operands = [x, weight] + ([bias] if bias is not None else [])
    args = {"stride": _int_list(stride), "padding": _int_list(padding),
            "dilation": _int_list(dilation), "groups": f"{int(groups)} : i64"}
    return im.extern(node, "aten::conv2d", operands, args)


def _embedding(im, node, indices, weight, padding_idx=None, max_norm=None, *args, **kwargs):
    if max_norm is not None:
        raise UnsupportedError("embedding with max_norm")
    return im.extern(node, "aten::embedding", [weight, indices], {})


def _parameters(im, node, module, *names):
    """The module's parameters `names` as frozen constants (None where the
    module has none)."""
    return [None if getattr(module, name, None) is None
            else im.weight(getattr(module, name), f"{node.target}.{name}") for name in names]


def _module_linear(im, node, module, x):
    weight, bias = _parameters(im, node, module, "weight", "bias")
    return im.linear(node, x, weight, bias)


def _module_layer_norm(im, node, module, x):
    weight, bias = _parameters(im, node, module, "weight", "bias")
    return im.normalization(node, "layer_norm", x, len(module.normalized_shape), weight, bias, module.eps)


def _module_rms_norm(im, node, module, x):
    (weight,) = _parameters(im, node, module, "weight")
    eps = module.eps if module.eps is not None else torch.finfo(im.values[node].dtype).eps
    return im.normalization(node, "rms_norm", x, len(module.normalized_shape), weight, None, eps)


def _module_conv2d(im, node, module, x):
    if module.padding_mode != "zeros":
        raise UnsupportedError(f"Conv2d padding_mode='{module.padding_mode}'")
    weight, bias = _parameters(im, node, module, "weight", "bias")
    return _conv2d(im, node, x, weight, bias, module.stride, module.padding, module.dilation, module.groups)


def _module_embedding(im, node, module, indices):
    if module.max_norm is not None:
        raise UnsupportedError("Embedding with max_norm")
    (weight,) = _parameters(im, node, module, "weight")
    return im.extern(node, "aten::embedding", [weight, indices], {})


def _module_unary(name):
    handler = _unary(name)

    def module_handler(im, node, module, x):
        if name == "gelu":
            return handler(im, node, x, approximate=module.approximate)
        return handler(im, node, x)
    return module_handler


def _module_softmax(kind):
    handler = _softmax(kind)

    def module_handler(im, node, module, x):
        return handler(im, node, x, module.dim)
    return module_handler


def _module_dropout(im, node, module, x):
    if module.training and module.p > 0:
        raise UnsupportedError("Dropout in training mode (call model.eval())")
    return x


def _module_flatten(im, node, module, x):
    return _flatten(im, node, x, module.start_dim, module.end_dim)


_MODULES = {
    nn.Linear: _module_linear,
    nn.LayerNorm: _module_layer_norm,
    nn.Conv2d: _module_conv2d,
    nn.Embedding: _module_embedding,
    nn.ReLU: _module_unary("relu"),
    nn.GELU: _module_unary("gelu"),
    nn.SiLU: _module_unary("silu"),
    nn.Tanh: _module_unary("tanh"),
    nn.Sigmoid: _module_unary("sigmoid"),
    nn.Softmax: _module_softmax("softmax"),
    nn.LogSoftmax: _module_softmax("log_softmax"),
    nn.Dropout: _module_dropout,
    nn.Identity: lambda im, node, module, x, *a, **k: x,
    nn.Flatten: _module_flatten,
}
if hasattr(nn, "RMSNorm"):
    _MODULES[nn.RMSNorm] = _module_rms_norm

_COMMON = {
    "add": _binary("add"), "sub": _binary("sub"), "mul": _binary("mul"), "div": _binary("div"),
    "maximum": _binary("max"), "minimum": _binary("min"), "pow": _pow,
    "neg": _unary("neg"), "abs": _unary("abs"), "exp": _unary("exp"), "log": _unary("log"),
    "sqrt": _unary("sqrt"), "rsqrt": _unary("rsqrt"), "tanh": _unary("tanh"), "erf": _unary("erf"),
    "sigmoid": _unary("sigmoid"), "relu": _unary("relu"),
    "matmul": _matmul, "bmm": _bmm, "addmm": _addmm, "baddbmm": _baddbmm,
    "softmax": _softmax("softmax"), "log_softmax": _softmax("log_softmax"),
    "mean": _reduction("mean"), "sum": _reduction("sum"), "amax": _reduction("max"),
    "amin": _reduction("min"), "prod": _reduction("prod"),
    "reshape": _view, "permute": _permute, "transpose": _transpose, "t": _t,
    "flatten": _flatten, "unsqueeze": _unsqueeze, "squeeze": _squeeze,
    "split": _split, "chunk": _chunk, "unbind": _unbind, "narrow": _narrow,
    "where": _where, "masked_fill": _masked_fill,
    "eq": _compare("eq"), "ne": _compare("ne"), "lt": _compare("lt"), "le": _compare("le"),
    "gt": _compare("gt"), "ge": _compare("ge"),
    "contiguous": _contiguous, "clone": _contiguous, "detach": _contiguous,
    "cat": _cat, "concat": _cat, "concatenate": _cat,
}

_METHODS = dict(_COMMON)
_METHODS.update({
    "view": _view, "expand": _expand, "expand_as": _expand_as, "size": _size, "dim": _dim_method,
    "to": _to, "float": _type_method(torch.float32), "half": _type_method(torch.float16),
    "bfloat16": _type_method(torch.bfloat16), "double": _type_method(torch.float64),
    "long": _type_method(torch.int64), "int": _type_method(torch.int32), "bool": _type_method(torch.bool),
    "type_as": lambda im, node, x, other: im.cast(x, other.dtype),
    "gelu": _unary("gelu"), "silu": _unary("silu"), "transpose_": None,
})
_METHODS = {k: v for k, v in _METHODS.items() if v is not None}

_FUNCTIONS = {getattr(torch, name): handler for name, handler in _COMMON.items()
              if hasattr(torch, name) and name not in ("contiguous",)}
_FUNCTIONS.update({
    operator.add: _binary("add"), operator.sub: _binary("sub"), operator.mul: _binary("mul"),
    operator.truediv: _binary("div"), operator.floordiv: _floordiv, operator.neg: _unary("neg"),
    operator.matmul: _matmul, operator.pow: _pow, operator.getitem: _getitem,
    operator.eq: _compare("eq"), operator.ne: _compare("ne"), operator.lt: _compare("lt"),
    operator.le: _compare("le"), operator.gt: _compare("gt"), operator.ge: _compare("ge"),
    getattr: _getattr, torch.rsub: _rsub,
    torch.true_divide: _binary("div"), torch.max: None,
    F.linear: _linear, F.relu: _unary("relu"), F.gelu: _unary("gelu"), F.silu: _unary("silu"),
    F.tanh: _unary("tanh"), F.sigmoid: _unary("sigmoid"),
    F.softmax: _softmax("softmax"), F.log_softmax: _softmax("log_softmax"),
    F.layer_norm: _layer_norm, F.dropout: _dropout, F.conv2d: _conv2d, F.embedding: _embedding,
    F.scaled_dot_product_attention: _sdpa,
    torch.nn.functional.relu: _unary("relu"),
    torch.zeros_like: _full_like(0.0), torch.ones_like: _full_like(1.0),
    torch.full_like: _full_like(None),
})
if hasattr(F, "rms_norm"):
    _FUNCTIONS[F.rms_norm] = _rms_norm
if hasattr(torch, "rms_norm"):  # what Dynamo records for nn.RMSNorm
    _FUNCTIONS[torch.rms_norm] = _rms_norm
_FUNCTIONS[torch.layer_norm] = _layer_norm
_FUNCTIONS = {k: v for k, v in _FUNCTIONS.items() if v is not None}
