"""Values of the torch.fx importer: imported tensors and sizes, the
importer's error, and the small helpers shared by the importer and its
op handlers (wrapper_mlir._fx_ops)."""

import torch


class UnsupportedError(Exception):
    """The graph uses something the importer cannot express."""


_ELEMENT_TYPES = {
    torch.float32: "f32",
    torch.float16: "f16",
    torch.bfloat16: "bf16",
    torch.float64: "f64",
    torch.int64: "i64",
    torch.int32: "i32",
    torch.int16: "i16",
    torch.int8: "i8",
    torch.bool: "i1",
}


def _element_type(dtype, where):
    if dtype not in _ELEMENT_TYPES:
        raise UnsupportedError(f"{where}: dtype {dtype} is not supported")
    return _ELEMENT_TYPES[dtype]


class Tensor:
    """An SSA tensor value: name, shape (None for a dynamic dimension), torch dtype."""

    def __init__(self, name, shape, dtype):
        self.name = name
        self.shape = tuple(shape)
        self.dtype = dtype

    @property
    def rank(self):
        return len(self.shape)

    def type(self):
        dims = "".join(("?" if d is None else str(d)) + "x" for d in self.shape)
        return f"tensor<{dims}{_ELEMENT_TYPES[self.dtype]}>"


class Index:
    """A dynamic Python int of the graph: an SSA `index` value."""

    def __init__(self, name):
        self.name = name


def _normalize_dim(dim, rank):
    return dim + rank if dim < 0 else dim


def _dims_list(dims, rank):
    if dims is None:
        return list(range(rank))
    if isinstance(dims, int):
        dims = [dims]
    return sorted(_normalize_dim(int(d), rank) for d in dims)


def _float_literal(value):
    text = repr(float(value))
    if text in ("inf", "-inf", "nan"):
        bits = {"inf": "0x7F800000", "-inf": "0xFF800000", "nan": "0x7FC00000"}
        return bits[text]
    mantissa, _, exponent = text.partition("e")
    if "." not in mantissa:
        mantissa += ".0"
    return mantissa + ("e" + exponent if exponent else "")
