"""The weights file of an imported program: safetensors (an 8-byte
little-endian header length, a JSON header naming each tensor's dtype,
shape and byte range, then the raw little-endian bytes), read back by
--tensor-program-load-weights."""

import json
import struct

import torch

from .._files import write_sparse
from .values import SAFETENSORS_DTYPES, UnsupportedError

_ALIGNMENT = 64
_PAGE = 4096


def write_safetensors(path, weights):
    """Writes `weights` ([(name, tensor)]) to `path`: the data starts on a
    page and each tensor on 64 bytes inside it, the gaps as U8 tensors
    `wrapper.pad.<N>` (safetensors allows no holes), so that the file can
    be mapped and used in place and any safetensors reader reads it.
    Returns {name: (safetensors dtype, offset of its bytes in the file,
    byte count, shape)}."""
    header, layout, end = {}, [], 0
    for name, tensor in weights:
        dtype = SAFETENSORS_DTYPES.get(tensor.dtype)
        if dtype is None:
            raise UnsupportedError(f"weight '{name}': dtype {tensor.dtype} has no file format")
        start = -(-end // _ALIGNMENT) * _ALIGNMENT
        if start > end:
            header[f"wrapper.pad.{len(layout)}"] = {"dtype": "U8", "shape": [start - end],
                                                   "data_offsets": [end, start]}
        size = tensor.numel() * tensor.element_size()
        header[name] = {"dtype": dtype, "shape": list(tensor.shape),
                        "data_offsets": [start, start + size]}
        layout.append((name, start, tensor))
        end = start + size
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-(8 + len(text)) % _PAGE)
    data = 8 + len(text)
    with open(path, "wb") as out:
        out.write(struct.pack("<Q", len(text)) + text)
        for _, start, tensor in layout:
            value = tensor.detach().contiguous().cpu().reshape(-1)
            if value.numel():
                out.seek(data + start)
                write_sparse(out, memoryview(value.view(torch.uint8).numpy()).cast("B"))
        out.truncate(data + end)
    return {name: (header[name]["dtype"], data + start, header[name]["data_offsets"][1] - start,
                   list(tensor.shape)) for name, start, tensor in layout}
