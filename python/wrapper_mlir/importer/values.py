"""Imported values and the small helpers the importer and its op handlers
share: element types, literals, dimension normalization."""

import sympy
import torch


class UnsupportedError(Exception):
    """The graph uses something the importer cannot express (an op outside
    the table, an overload or argument it does not handle, a dtype)."""


ELEMENT_TYPES = {
    torch.float32: "f32",
    torch.float16: "f16",
    torch.bfloat16: "bf16",
    torch.float64: "f64",
    torch.int64: "i64",
    torch.int32: "i32",
    torch.int16: "i16",
    torch.int8: "i8",
    torch.uint8: "i8",
    torch.bool: "i1",
}

# safetensors dtype names of the weights file.
SAFETENSORS_DTYPES = {
    torch.float32: "F32",
    torch.float16: "F16",
    torch.bfloat16: "BF16",
    torch.float64: "F64",
    torch.int64: "I64",
    torch.int32: "I32",
    torch.int16: "I16",
    torch.int8: "I8",
    torch.uint8: "U8",
    torch.bool: "BOOL",
}


def element_type(dtype, where="value"):
    if dtype not in ELEMENT_TYPES:
        raise UnsupportedError(f"{where}: dtype {dtype} is not supported")
    return ELEMENT_TYPES[dtype]


def is_static(size):
    return isinstance(size, int)


def size_text(size):
    return str(size) if is_static(size) else "?"


def tensor_type(shape, dtype):
    dims = "".join(size_text(d) + "x" for d in shape)
    return f"tensor<{dims}{element_type(dtype)}>"


class Tensor:
    """An SSA tensor value: its name, shape (ints for static sizes, sympy
    expressions of the inputs' size symbols for dynamic ones) and dtype."""

    __slots__ = ("name", "shape", "dtype")

    def __init__(self, name, shape, dtype):
        self.name = name
        self.shape = tuple(shape)
        self.dtype = dtype

    @property
    def rank(self):
        return len(self.shape)

    def type(self):
        return tensor_type(self.shape, self.dtype)

    def __repr__(self):
        return f"Tensor({self.name}: {self.type()})"


class Size:
    """A symbolic Python int of the graph (a SymInt): a sympy expression of
    the inputs' size symbols."""

    __slots__ = ("expr",)

    def __init__(self, expr):
        self.expr = sympy.sympify(expr)

    def __repr__(self):
        return f"Size({self.expr})"


def as_size(value):
    """A size argument as an int or a sympy expression."""
    if isinstance(value, Size):
        expr = value.expr
        return int(expr) if expr.is_number else expr
    if isinstance(value, torch.SymInt):
        expr = value.node.expr
        return int(expr) if expr.is_number else expr
    if isinstance(value, sympy.Expr):
        return int(value) if value.is_number else value
    return int(value)


def shape_of(value):
    """The shape of a FakeTensor (or tensor) as ints and sympy expressions."""
    return tuple(as_size(s) for s in value.shape)


def normalize_dim(dim, rank):
    dim = int(dim)
    if rank == 0 and dim in (0, -1):
        return 0
    if not -rank <= dim < rank:
        raise UnsupportedError(f"dimension {dim} is out of range for rank {rank}")
    return dim + rank if dim < 0 else dim


def dims_list(dims, rank):
    if dims is None or (isinstance(dims, (list, tuple)) and len(dims) == 0):
        return list(range(rank))
    if isinstance(dims, int):
        dims = [dims]
    return sorted({normalize_dim(d, rank) for d in dims})


def float_literal(value):
    value = float(value)
    if value != value:
        return "0x7FF8000000000000"
    if value in (float("inf"), float("-inf")):
        return "0x7FF0000000000000" if value > 0 else "0xFFF0000000000000"
    text = repr(value)
    mantissa, _, exponent = text.partition("e")
    if "." not in mantissa:
        mantissa += ".0"
    return mantissa + ("e" + exponent if exponent else "")


def typed_literal(value, dtype):
    """A scalar as the literal of a dense attribute of `dtype`."""
    if dtype == torch.bool:
        return "true" if value else "false"
    if dtype.is_floating_point:
        value = float(value)
        if value != value or value in (float("inf"), float("-inf")):
            # Hex literals must have the width of the element type.
            bits = {
                torch.float32: ("0x7FC00000", "0x7F800000", "0xFF800000"),
                torch.float64: ("0x7FF8000000000000", "0x7FF0000000000000",
                                "0xFFF0000000000000"),
                torch.float16: ("0x7E00", "0x7C00", "0xFC00"),
                torch.bfloat16: ("0x7FC0", "0x7F80", "0xFF80"),
            }[dtype]
            return bits[0] if value != value else (bits[1] if value > 0 else bits[2])
        return float_literal(value)
    return str(int(value))
