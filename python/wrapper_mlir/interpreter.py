"""A NumPy reference interpreter of tensor_program: the oracle of the
Python tests.

    outputs = interpret(text, [x, w])           # tensor_program text, NumPy arrays
    outputs = interpret(text, [x], entry="f")   # another function

It reads the program in MLIR's generic form, which `wrapper-opt
--mlir-print-op-generic` prints (so the program is verified by the compiler's
own parser first, and this file needs no parser of the custom syntax), and
evaluates each op with NumPy in float64, rounding every result to its element
type, as PyTorch does per op. It is written from the ops' documented
semantics (docs/Dialects/TensorProgram.md), not from the compiler's lowering
or its C++ interpreter. bf16 values are held as float32 arrays rounded to
bf16. `fused` regions are evaluated op by op; the externs `aten::conv2d` and
`aten::embedding` are implemented here.
"""

import math
import re
import subprocess

import numpy as np

from ._compile import WrapperError, find_tool

_NUMPY_TYPES = {
    "f32": np.float32, "f64": np.float64, "f16": np.float16, "bf16": np.float32,
    "i64": np.int64, "i32": np.int32, "i16": np.int16, "i8": np.int8, "i1": np.bool_,
    "ui8": np.uint8,
}
_PREDICATES = ["eq", "ne", "lt", "le", "gt", "ge"]


class InterpreterError(WrapperError):
    """The program uses something the interpreter does not evaluate."""


# -- types and attributes ------------------------------------------------------

class TensorType:
    def __init__(self, shape, element):
        self.shape = shape
        self.element = element

    def round(self, array):
        """`array` in this element type (float64 math rounded per op)."""
        return _round(np.asarray(array), self.element)


def _round(array, element):
    if element == "bf16":
        bits = np.asarray(array, dtype=np.float32).view(np.uint32).astype(np.uint64)
        nan = np.isnan(np.asarray(array, dtype=np.float32))
        rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
        out = rounded.astype(np.uint32).view(np.float32)
        return np.where(nan, np.float32(np.nan), out)
    if element == "i1":
        return np.asarray(array) != 0
    target = _NUMPY_TYPES[element]
    if np.issubdtype(target, np.integer) and np.issubdtype(np.asarray(array).dtype, np.floating):
        array = np.nan_to_num(np.trunc(array), nan=0.0)
        info = np.iinfo(target)
        if info.bits < 64:
            modulus = 2.0 ** info.bits
            array = np.mod(array, modulus)
            array = np.where(array >= modulus / 2, array - modulus, array)
    with np.errstate(over="ignore", invalid="ignore"):
        return np.asarray(array).astype(target)


def _parse_type(text):
    text = text.strip()
    if text.startswith("tensor<"):
        body = text[len("tensor<"):-1]
        parts = body.split("x")
        element = parts[-1]
        shape = [None if p == "?" else int(p) for p in parts[:-1]]
        return TensorType(shape, element)
    return text


def _split_top(text, separator=","):
    """Splits at `separator` outside brackets and strings."""
    parts, depth, current, quoted = [], 0, [], False
    i = 0
    while i < len(text):
        c = text[i]
        if quoted:
            current.append(c)
            if c == "\\":
                current.append(text[i + 1])
                i += 1
            elif c == '"':
                quoted = False
        elif c == '"':
            quoted = True
            current.append(c)
        elif c in "<([{":
            depth += 1
            current.append(c)
        elif c in ">)]}":
            if c == ">" and i > 0 and text[i - 1] == "-":  # the '->' of a function type
                current.append(c)
            else:
                depth -= 1
                current.append(c)
        elif c == separator and depth == 0:
            parts.append("".join(current).strip())
            current = []
        else:
            current.append(c)
        i += 1
    tail = "".join(current).strip()
    if tail:
        parts.append(tail)
    return parts


def _matching(text, start):
    """Index just past the bracket group starting at text[start]."""
    pairs = {"(": ")", "[": "]", "{": "}", "<": ">"}
    stack, quoted, i = [], False, start
    while i < len(text):
        c = text[i]
        if quoted:
            if c == "\\":
                i += 1
            elif c == '"':
                quoted = False
        elif c == '"':
            quoted = True
        elif c in pairs:
            stack.append(pairs[c])
        elif stack and c == stack[-1] and not (c == ">" and text[i - 1] == "-"):
            stack.pop()
            if not stack:
                return i + 1
        i += 1
    raise InterpreterError(f"unbalanced brackets in: {text[start:start + 80]}")


def _parse_attribute(text):
    text = text.strip()
    if text.startswith('"'):
        return bytes(text[1:-1], "utf-8").decode("unicode_escape")
    if text.startswith("array<"):
        body = text[len("array<"):-1]
        if ":" not in body:
            return []
        return [int(v) for v in body.split(":", 1)[1].split(",") if v.strip()]
    if text.startswith("dense<"):
        end = _matching(text, len("dense"))
        return ("dense", text[len("dense<"):end - 1], _parse_type(text[end:].split(":", 1)[1]))
    if text.startswith("{"):
        return _parse_dict(text)
    if text.startswith("["):
        return [_parse_attribute(v) for v in _split_top(text[1:-1])]
    if text in ("true", "false"):
        return text == "true"
    value = text.split(":")[0].strip() if ":" in text else text
    try:
        return int(value, 0) if re.fullmatch(r"-?(0x[0-9A-Fa-f]+|\d+)", value) else float(value)
    except ValueError:
        return text


def _parse_dict(text):
    body = text.strip()[1:-1]
    result = {}
    for item in _split_top(body):
        if "=" in item:
            key, value = item.split("=", 1)
            result[key.strip()] = _parse_attribute(value)
        else:
            result[item.strip()] = True
    return result


def _dense(body, tensor_type):
    shape = tensor_type.shape
    element = tensor_type.element
    count = int(np.prod(shape)) if shape else 1
    if body.startswith('"0x'):
        raw = bytes.fromhex(body[3:-1])
        storage = {"bf16": np.uint16, "f16": np.float16, "i1": np.uint8}.get(element, _NUMPY_TYPES.get(element))
        values = np.frombuffer(raw, dtype=np.dtype(storage).newbyteorder("<"))
        if element == "bf16":
            values = (values.astype(np.uint32) << 16).view(np.float32)
        if values.size == 1:
            values = np.full(count, values[0])
        return tensor_type.round(values.reshape(shape))
    tokens = re.findall(r"true|false|0x[0-9A-Fa-f]+|[-+]?(?:inf|nan|\d+\.?\d*(?:[eE][-+]?\d+)?)", body)
    values = []
    for token in tokens:
        if token in ("true", "false"):
            values.append(1.0 if token == "true" else 0.0)
        elif token.startswith("0x"):
            bits = int(token, 16)
            if element == "f32":
                values.append(float(np.array([bits], dtype=np.uint32).view(np.float32)[0]))
            elif element == "f64":
                values.append(float(np.array([bits], dtype=np.uint64).view(np.float64)[0]))
            elif element == "f16":
                values.append(float(np.array([bits], dtype=np.uint16).view(np.float16)[0]))
            elif element == "bf16":
                values.append(float(np.array([bits << 16], dtype=np.uint32).view(np.float32)[0]))
            else:
                values.append(float(bits))
        else:
            values.append(float(token))
    array = np.array(values, dtype=np.float64)
    if array.size == 1 and count != 1:
        array = np.full(count, array[0])
    return tensor_type.round(array.reshape(shape))


# -- the program -------------------------------------------------------------

class Operation:
    def __init__(self, results, name, operands, attributes, result_types, region):
        self.results = results
        self.name = name
        self.operands = operands
        self.attributes = attributes
        self.result_types = result_types
        self.region = region  # (block arguments, operations) or None


_OP_LINE = re.compile(r'^\s*(?:(%[\w.$-]+)(?::(\d+))?\s*=\s*)?"([\w.]+)"\((.*?)\)(.*)$')


def _parse_operation(lines, i):
    """The operation starting at lines[i] (with its region); returns it and
    the index of the next line."""
    line = lines[i]
    match = _OP_LINE.match(line)
    if not match:
        raise InterpreterError(f"cannot read line: {line.strip()}")
    result, count, name, operands, rest = match.groups()
    results = []
    if result:
        results = [result] if count is None else [f"{result}#{k}" for k in range(int(count))]
    operands = [o.strip() for o in operands.split(",") if o.strip()]
    rest = rest.strip()
    attributes = {}
    if rest.startswith("<{"):
        end = _matching(rest, 1)
        attributes.update(_parse_dict(rest[1:end]))
        rest = rest[end + 1:].strip()
    if rest.startswith("{"):
        end = _matching(rest, 0)
        attributes.update(_parse_dict(rest[:end]))
        rest = rest[end:].strip()
    region = None
    i += 1
    if rest.startswith("({"):
        arguments, body = [], []
        while not lines[i].strip().startswith("})"):
            text = lines[i].strip()
            if text.startswith("^"):
                inside = text[text.index("(") + 1:text.rindex(")")]
                arguments = [a.split(":")[0].strip() for a in _split_top(inside)]
                i += 1
                continue
            op, i = _parse_operation(lines, i)
            body.append(op)
        region = (arguments, body)
        rest = lines[i].strip()[2:].strip()
        i += 1
    signature = rest[1:].strip() if rest.startswith(":") else ""
    result_types = []
    if "->" in signature:
        tail = signature.rsplit("->", 1)[1].strip()
        if tail.startswith("("):
            tail = tail[1:-1]
        result_types = [_parse_type(t) for t in _split_top(tail)]
    return Operation(results, name, operands, attributes, result_types, region), i


def parse_generic(text):
    """{function name: (argument names, operations)} of a generic-form module."""
    lines = [line for line in text.splitlines() if line.strip() and not line.strip().startswith("//")]
    functions = {}
    i = 0
    while i < len(lines):
        if '"func.func"' in lines[i]:
            op, i = _parse_operation(lines, i)
            if op.region is not None:
                functions[op.attributes["sym_name"]] = op.region
        else:
            i += 1
    return functions


# -- evaluation ----------------------------------------------------------------

def _gelu(x, approximate):
    if approximate == 1:
        return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))


_erf = np.vectorize(math.erf, otypes=[np.float64])


def _sigmoid(x):
    with np.errstate(over="ignore"):
        return 1.0 / (1.0 + np.exp(-x))


def _conv2d(x, w, b, stride, padding, dilation, groups):
    n, c, h, width = x.shape
    out_channels, per_group, kh, kw = w.shape
    sh, sw = stride
    ph, pw = padding
    dh, dw = dilation
    oh = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    ow = (width + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    padded = np.zeros((n, c, h + 2 * ph, width + 2 * pw))
    padded[:, :, ph:ph + h, pw:pw + width] = x
    out = np.zeros((n, out_channels, oh, ow))
    per_out = out_channels // groups
    for g in range(groups):
        inputs = padded[:, g * per_group:(g + 1) * per_group]
        weights = w[g * per_out:(g + 1) * per_out]
        for i in range(kh):
            for j in range(kw):
                window = inputs[:, :, i * dh: i * dh + sh * (oh - 1) + 1: sh,
                                j * dw: j * dw + sw * (ow - 1) + 1: sw]
                out[:, g * per_out:(g + 1) * per_out] += np.einsum("nchw,oc->nohw", window, weights[:, :, i, j])
    if b is not None:
        out += b.reshape(1, -1, 1, 1)
    return out


def _pair(value):
    if isinstance(value, list):
        return value if len(value) == 2 else value * 2
    return [value, value]


def _extern(op, values):
    callee = op.attributes.get("callee")
    args = op.attributes.get("args", {})
    if callee == "aten::conv2d":
        x, w = values[0], values[1]
        b = values[2] if len(values) > 2 else None
        return [_conv2d(x.astype(np.float64), w.astype(np.float64),
                        None if b is None else b.astype(np.float64),
                        _pair(args.get("stride", 1)), _pair(args.get("padding", 0)),
                        _pair(args.get("dilation", 1)), args.get("groups", 1))]
    if callee == "aten::embedding":
        weight, indices = values
        return [weight[indices]]
    raise InterpreterError(f"extern '{callee}' is not implemented by the NumPy interpreter")


def _slice(x, dim, start, end, step):
    index = [slice(None)] * x.ndim
    index[dim] = slice(start, end, step)
    return x[tuple(index)]


def _windows(x, lead, windows, strides, dilations, out_sizes):
    """Yields (window index tuple, the input elements each output position
    reads at that window offset) over the trailing dimensions."""
    import itertools

    k = len(windows)
    for offsets in itertools.product(*[range(w) for w in windows]):
        index = [slice(None)] * lead
        for i in range(k):
            start = offsets[i] * dilations[i]
            index.append(slice(start, start + strides[i] * (out_sizes[i] - 1) + 1, strides[i]))
        yield offsets, x[tuple(index)]


def _convolution(x, w, b, strides, dilations, groups):
    k = x.ndim - 2
    filters, per_group = w.shape[0], w.shape[1]
    outs = [(x.shape[2 + i] - dilations[i] * (w.shape[2 + i] - 1) - 1) // strides[i] + 1
            for i in range(k)]
    out = np.zeros((x.shape[0], filters) + tuple(max(o, 0) for o in outs))
    if min(outs) <= 0:
        return out
    per_out = filters // groups
    letters = "xyzuvw"[:k]
    for g in range(groups):
        xs = x[:, g * per_group:(g + 1) * per_group]
        ws = w[g * per_out:(g + 1) * per_out]
        for offsets, window in _windows(xs, 2, w.shape[2:], strides, dilations, outs):
            kernel = ws[(slice(None), slice(None)) + tuple(offsets)]
            out[:, g * per_out:(g + 1) * per_out] += np.einsum(
                f"nc{letters},fc->nf{letters}", window, kernel)
    if b is not None:
        out += b.reshape((1, -1) + (1,) * k)
    return out


def _pool(x, attrs, is_max):
    windows, strides = attrs["window"], attrs["stride"]
    k = len(windows)
    lead = x.ndim - k
    dilations = attrs.get("dilation", [1] * k) if is_max else [1] * k
    low, high = attrs["padding_low"], attrs["padding_high"]
    fill = -np.inf if is_max else 0.0
    padded = np.pad(x, [(0, 0)] * lead + list(zip(low, high)), constant_values=fill)
    outs = [(padded.shape[lead + i] - dilations[i] * (windows[i] - 1) - 1) // strides[i] + 1
            for i in range(k)]
    out = np.full(x.shape[:lead] + tuple(outs), fill)
    for _, window in _windows(padded, lead, windows, strides, dilations, outs):
        out = np.maximum(out, window) if is_max else out + window
    if is_max:
        return out
    if "divisor" in attrs:
        return out / attrs["divisor"]
    count_padding = attrs.get("count_padding", [0] * k)
    divisor = np.ones(outs)
    grids = np.meshgrid(*[np.arange(o) for o in outs], indexing="ij")
    for i in range(k):
        start = grids[i] * strides[i] - low[i]
        first = np.maximum(start, -count_padding[i])
        last = np.minimum(start + windows[i], x.shape[lead + i] + count_padding[i])
        divisor = divisor * np.maximum(last - first, 0)
    return out / divisor


def _integer_safe(function, a, b):
    """An integer division-like op with a zero divisor giving 0."""
    a, b = np.broadcast_arrays(np.asarray(a).astype(np.int64), np.asarray(b).astype(np.int64))
    safe = np.where(b == 0, 1, b)
    return np.where(b == 0, 0, function(a, safe))


def _evaluate(op, values, env):
    name = op.name
    attrs = op.attributes
    kind = name.split(".", 1)[1] if name.startswith("tensor_program.") else None
    f = [np.asarray(v, dtype=np.float64) if isinstance(v, np.ndarray) else v for v in values]
    binary = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "max": np.maximum,
              "min": np.minimum, "pow": np.power}
    unary = {"neg": np.negative, "abs": np.abs, "exp": np.exp, "log": np.log, "sqrt": np.sqrt,
             "rsqrt": lambda x: 1.0 / np.sqrt(x), "tanh": np.tanh, "erf": _erf, "sigmoid": _sigmoid,
             "relu": lambda x: np.where(np.isnan(x), x, np.maximum(x, 0.0)),
             "silu": lambda x: x * _sigmoid(x)}
    with np.errstate(all="ignore"):
        if kind in binary:
            return [binary[kind](f[0], f[1])]
        if kind == "div":
            if op.result_types[0].element.startswith("f") or op.result_types[0].element == "bf16":
                return [f[0] / f[1]]
            a, b = np.broadcast_arrays(values[0].astype(np.int64), values[1].astype(np.int64))
            safe = np.where(b == 0, 1, b)
            quotient = np.abs(a) // np.abs(safe) * np.sign(a) * np.sign(safe)
            return [np.where(b == 0, 0, quotient)]
        if kind in unary:
            return [unary[kind](f[0])]
        more_unary = {"sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin,
                      "acos": np.arccos, "atan": np.arctan, "sinh": np.sinh, "cosh": np.cosh,
                      "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh,
                      "log1p": np.log1p, "expm1": np.expm1, "log2": np.log2, "log10": np.log10,
                      "exp2": np.exp2, "floor": np.floor, "ceil": np.ceil, "round": np.rint,
                      "trunc": np.trunc, "sign": np.sign}
        if kind in more_unary:
            return [more_unary[kind](f[0])]
        element = (op.result_types[0].element
                   if op.result_types and isinstance(op.result_types[0], TensorType) else "")
        is_bool = element == "i1"
        if kind == "not":
            if is_bool:
                return [np.logical_not(values[0])]
            return [np.invert(values[0].astype(np.int64))]
        if kind in ("and", "or", "xor"):
            if is_bool:
                return [{"and": np.logical_and, "or": np.logical_or,
                         "xor": np.logical_xor}[kind](values[0], values[1])]
            return [{"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[kind](
                values[0].astype(np.int64), values[1].astype(np.int64))]
        is_float = element.startswith("f") or element == "bf16"
        if kind == "floor_div":
            return [_integer_safe(np.floor_divide, values[0], values[1])]
        if kind == "fmod":
            return [np.fmod(f[0], f[1]) if is_float else _integer_safe(np.fmod, values[0], values[1])]
        if kind == "remainder":
            return [np.remainder(f[0], f[1]) if is_float
                    else _integer_safe(np.remainder, values[0], values[1])]
        if kind == "atan2":
            return [np.arctan2(f[0], f[1])]
        if kind == "iota":
            shape = _result_shape(op.result_types[0], values)
            dim = attrs["dim"]
            line = np.arange(shape[dim]).reshape([-1 if d == dim else 1 for d in range(len(shape))])
            return [np.broadcast_to(line, shape).astype(np.float64)]
        if kind == "uniform":
            shape = _result_shape(op.result_types[0], values[1:])
            count = int(np.prod(shape, dtype=np.int64))
            word = _philox_first(int(values[0]), np.arange(count, dtype=np.uint64),
                                 int(attrs["stream"]))
            uniform = (word >> np.uint64(8)).astype(np.float32) * np.float32(2.0 ** -24)
            return [uniform.astype(np.float64).reshape(shape)]
        if kind == "cumsum":
            return [np.cumsum(f[0], axis=attrs["dim"])]
        if kind == "dynamic_slice":
            n = values[0].shape[attrs["dim"]]
            start = min(max(int(values[1]), 0), n)
            end = min(max(int(values[2]), 0), n)
            return [_slice(values[0], attrs["dim"], start, end, attrs.get("step", 1))]
        if kind == "slice_scatter":
            out = np.array(values[0], copy=True)
            index = [slice(None)] * out.ndim
            index[attrs["dim"]] = slice(attrs["start"], attrs["end"], attrs.get("step", 1))
            out[tuple(index)] = values[1]
            return [out]
        if kind == "from_index":
            return [np.asarray(float(values[0]))]
        if kind == "take":
            n = values[0].shape[attrs["dim"]]
            index = values[1].astype(np.int64)
            index = np.clip(np.where(index < 0, index + n, index), 0, n - 1)
            return [np.take(values[0], index, axis=attrs["dim"])]
        if kind == "gather":
            dim = attrs["dim"]
            n = values[0].shape[dim]
            index = values[1].astype(np.int64)
            index = np.clip(np.where(index < 0, index + n, index), 0, n - 1)
            box = tuple(slice(None) if d == dim else slice(0, index.shape[d])
                        for d in range(index.ndim))
            return [np.take_along_axis(values[0][box], index, axis=dim)]
        if kind == "scatter":
            out = np.array(f[0], copy=True)
            dim = attrs["dim"]
            n = out.shape[dim]
            index = values[1].astype(np.int64)
            index = np.clip(np.where(index < 0, index + n, index), 0, n - 1)
            reduce = attrs.get("reduce", 0)
            for at in np.ndindex(*index.shape):
                to = list(at)
                to[dim] = index[at]
                to = tuple(to)
                v = f[2][at]
                if reduce == 0:
                    out[to] = v
                elif reduce == 1:
                    out[to] = out[to] + v
                elif reduce == 2:
                    out[to] = out[to] * v
                elif reduce == 3:
                    out[to] = v if np.isnan(v) else max(out[to], v)
                else:
                    out[to] = v if np.isnan(v) else min(out[to], v)
            return [out]
        if kind == "convolution":
            bias = f[2] if len(f) > 2 else None
            return [_convolution(f[0], f[1], bias, attrs["stride"], attrs["dilation"],
                                 attrs["groups"])]
        if kind in ("max_pool", "avg_pool"):
            return [_pool(f[0], attrs, kind == "max_pool")]
        if kind == "gelu":
            return [_gelu(f[0], attrs.get("approximate", 0))]
        if kind == "compare":
            predicate = _PREDICATES[attrs["predicate"]]
            return [getattr(np, {"eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal",
                                 "gt": "greater", "ge": "greater_equal"}[predicate])(f[0], f[1])]
        if kind == "where":
            return [np.where(values[0], f[1], f[2])]
        if kind == "cast":
            return [f[0]]
        if kind == "constant":
            _, body, tensor_type = attrs["value"]
            return [_dense(body, tensor_type)]
        if kind == "full":
            shape = _result_shape(op.result_types[0], values)
            return [np.full(shape, float(attrs["value"]))]
        if kind and kind.startswith("reduce_"):
            reducer = {"sum": np.sum, "mean": np.mean, "max": np.max, "min": np.min, "prod": np.prod}[kind[7:]]
            return [reducer(f[0], axis=tuple(attrs["dims"]), keepdims="keepdim" in attrs)]
        if kind == "argmax":
            return [np.argmax(f[0], axis=attrs["dim"], keepdims="keepdim" in attrs)]
        if kind == "reshape":
            return [values[0].reshape(_result_shape(op.result_types[0], values[1:]))]
        if kind == "permute":
            return [np.transpose(values[0], attrs["permutation"])]
        if kind == "flip":
            return [np.flip(values[0], tuple(attrs["dims"])).copy()]
        if kind == "broadcast":
            return [np.broadcast_to(values[0], _result_shape(op.result_types[0], values[1:])).copy()]
        if kind == "slice":
            end = attrs.get("end", None)
            if end is not None and end >= 2 ** 62:
                end = None
            return [_slice(values[0], attrs["dim"], attrs.get("start", 0), end, attrs.get("step", 1))]
        if kind == "concat":
            return [np.concatenate(values, axis=attrs["dim"])]
        if kind == "pad":
            widths = list(zip(attrs["low"], attrs["high"]))
            return [np.pad(f[0], widths, constant_values=float(attrs["value"]))]
        if kind == "as_strided":
            flat = np.ascontiguousarray(values[0]).reshape(-1)
            view = np.lib.stride_tricks.as_strided(
                flat[attrs.get("offset", 0):], shape=attrs["sizes"],
                strides=[s * flat.itemsize for s in attrs["strides"]])
            return [view.copy()]
        if kind in ("matmul", "batch_matmul"):
            return [np.matmul(f[0], f[1])]
        if kind == "linear":
            out = np.matmul(f[0], f[1].T)
            return [out + f[2] if len(f) > 2 else out]
        if kind in ("softmax", "log_softmax"):
            axis = attrs["dim"]
            shifted = f[0] - np.max(f[0], axis=axis, keepdims=True)
            if kind == "softmax":
                e = np.exp(shifted)
                return [e / np.sum(e, axis=axis, keepdims=True)]
            return [shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))]
        if kind == "layer_norm":
            axes = tuple(range(f[0].ndim - attrs["normalized_rank"], f[0].ndim))
            mean = np.mean(f[0], axis=axes, keepdims=True)
            var = np.mean((f[0] - mean) ** 2, axis=axes, keepdims=True)
            out = (f[0] - mean) / np.sqrt(var + attrs["eps"])
            _, has_weight, has_bias = attrs["operandSegmentSizes"]
            if has_weight:
                out = out * f[1]
            if has_bias:
                out = out + f[1 + has_weight]
            return [out]
        if kind == "rms_norm":
            out = f[0] / np.sqrt(np.mean(f[0] ** 2, axis=-1, keepdims=True) + attrs["eps"])
            return [out * f[1] if len(f) > 1 else out]
        if kind == "extern":
            return _extern(op, values)
        if kind == "fused":
            arguments, body = op.region
            inner = dict(zip(arguments, values))
            return _run_block(body, inner)
    if name == "arith.constant":
        value = attrs["value"]
        if isinstance(value, tuple):
            return [_dense(value[1], value[2])]
        return [value]
    if name == "tensor.dim":
        return [values[0].shape[values[1]]]
    index_ops = {"arith.muli": lambda a, b: a * b, "arith.addi": lambda a, b: a + b,
                 "arith.subi": lambda a, b: a - b, "arith.divui": lambda a, b: a // b,
                 "arith.divsi": lambda a, b: int(a / b), "arith.ceildivui": lambda a, b: -(-a // b),
                 "arith.floordivsi": lambda a, b: a // b, "arith.ceildivsi": lambda a, b: -(-a // b),
                 "arith.remsi": lambda a, b: int(math.fmod(a, b)), "arith.remui": lambda a, b: a % b,
                 "arith.minsi": min, "arith.maxsi": max}
    if name in index_ops:
        return [index_ops[name](int(values[0]), int(values[1]))]
    raise InterpreterError(f"the NumPy interpreter does not evaluate '{name}'")


def _philox_first(seed, index, stream):
    """Philox4x32-10's first word for key `seed` and counters (index, stream)
    (NumPy, vectorized over `index`), as tensor_program.uniform defines it."""
    mask = np.uint64(0xFFFFFFFF)
    seed &= (1 << 64) - 1
    stream &= (1 << 64) - 1
    k0, k1 = np.uint64(seed & 0xFFFFFFFF), np.uint64(seed >> 32)
    c0 = index & mask
    c1 = index >> np.uint64(32)
    c2 = np.full_like(index, stream & 0xFFFFFFFF)
    c3 = np.full_like(index, stream >> 32)
    for _ in range(10):
        p0 = np.uint64(0xD2511F53) * c0
        p1 = np.uint64(0xCD9E8D57) * c2
        c0, c1, c2, c3 = (((p1 >> np.uint64(32)) ^ c1 ^ k0) & mask, p1 & mask,
                          ((p0 >> np.uint64(32)) ^ c3 ^ k1) & mask, p0 & mask)
        k0 = (k0 + np.uint64(0x9E3779B9)) & mask
        k1 = (k1 + np.uint64(0xBB67AE85)) & mask
    return c0


def _result_shape(result_type, dynamic):
    dynamic = [int(v) for v in dynamic]
    shape = []
    for size in result_type.shape:
        shape.append(dynamic.pop(0) if size is None else size)
    return shape


class _Return(Exception):
    def __init__(self, values):
        self.values = values


def _run_block(operations, env):
    for op in operations:
        values = [env[name] for name in op.operands]
        if op.name in ("func.return", "tensor_program.yield"):
            return values
        if op.name == "tensor_program.copy_back":
            raise InterpreterError("the NumPy interpreter does not evaluate 'tensor_program.copy_back'")
        results = _evaluate(op, values, env)
        for name, result, result_type in zip(op.results, results, op.result_types):
            if isinstance(result_type, TensorType):
                result = result_type.round(result)
            env[name] = result
    raise InterpreterError("block without a terminator")


def to_generic(text, weights_file=None):
    """The program in generic form, verified by wrapper-opt (constants kept
    in a safetensors weights file get their values first)."""
    command = [find_tool("wrapper-opt"), "-", "--mlir-print-op-generic",
               "--mlir-print-elementsattrs-with-hex-if-larger=16"]
    if weights_file:
        command.insert(2, f"--tensor-program-load-weights=file={weights_file}")
    result = subprocess.run(command, input=text, capture_output=True, text=True)
    if result.returncode != 0:
        raise WrapperError(f"wrapper-opt rejected the program:\n{result.stderr.strip()}")
    return result.stdout


def interpret(text, inputs, entry=None, weights=None):
    """Runs a tensor_program function (text in any form) on NumPy arrays;
    returns a list of arrays (bf16 results as float32). `weights` are the
    program's dense_resource constants ([(name, torch tensor)], as
    ImportedProgram.weights holds them)."""
    if weights:
        import tempfile

        from .importer.weights import write_safetensors

        with tempfile.TemporaryDirectory(prefix="wrapper_interp_") as folder:
            path = f"{folder}/weights.safetensors"
            write_safetensors(path, weights)
            functions = parse_generic(to_generic(text, path))
    else:
        functions = parse_generic(to_generic(text))
    if not functions:
        raise InterpreterError("the module has no function")
    if entry is None:
        entry = "main" if "main" in functions else next(iter(functions))
    if entry not in functions:
        raise InterpreterError(f"no function '@{entry}'")
    arguments, body = functions[entry]
    if len(inputs) != len(arguments):
        raise InterpreterError(f"@{entry} takes {len(arguments)} inputs, got {len(inputs)}")
    env = {name: np.asarray(value) for name, value in zip(arguments, inputs)}
    return _run_block(body, env)
