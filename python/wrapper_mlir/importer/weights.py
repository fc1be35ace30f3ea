"""The weights file of an imported program: safetensors (an 8-byte
little-endian header length, a JSON header naming each tensor's dtype,
shape and byte range, then the raw little-endian bytes), read back by
--tensor-program-load-weights."""

import json
import struct

import torch

from .values import SAFETENSORS_DTYPES, UnsupportedError

_ALIGNMENT = 64


def write_safetensors(path, weights):
    """Writes `weights` ([(name, CPU tensor)]) to `path`."""
    header = {}
    offset = 0
    layout = []
    for name, tensor in weights:
        dtype = SAFETENSORS_DTYPES.get(tensor.dtype)
        if dtype is None:
            raise UnsupportedError(f"weight '{name}': dtype {tensor.dtype} has no file format")
        start = -(-offset // _ALIGNMENT) * _ALIGNMENT
        size = tensor.numel() * tensor.element_size()
        header[name] = {"dtype": dtype, "shape": list(tensor.shape),
                        "data_offsets": [start, start + size]}
        layout.append((start, tensor))
        offset = start + size
    text = json.dumps(header, separators=(",", ":")).encode()
    # The data starts on an 8-byte boundary (safetensors pads the header
    # with spaces); each tensor on a 64-byte one inside it.
    text += b" " * ((-len(text)) % 8)
    with open(path, "wb") as out:
        out.write(struct.pack("<Q", len(text)))
        out.write(text)
        position = 0
        for start, tensor in layout:
            if start > position:
                out.write(b"\0" * (start - position))
            tensor = tensor.detach().contiguous().cpu()
            if tensor.dtype == torch.bfloat16:
                tensor = tensor.view(torch.int16)
            if tensor.dtype == torch.bool:
                tensor = tensor.to(torch.uint8)
            data = tensor.numpy()
            out.write(memoryview(data.reshape(-1)).cast("B"))
            position = start + data.nbytes
