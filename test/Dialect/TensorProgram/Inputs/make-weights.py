"""Writes the safetensors files of load-weights.mlir (standard library only):
weights.safetensors with w (f32 [2, 3], 0..5), b (i64 [2]: 7, -1), m (bool
[3]: 1, 0, 1) and h (bf16 [2]: 1.0, -2.0); bad.safetensors, whose header
length exceeds the file."""
import json
import struct
import sys

out = sys.argv[1]
tensors = [
    ("w", "F32", [2, 3], struct.pack("<6f", 0, 1, 2, 3, 4, 5)),
    ("b", "I64", [2], struct.pack("<2q", 7, -1)),
    ("m", "BOOL", [3], bytes([1, 0, 1])),
    ("h", "BF16", [2], bytes([0x80, 0x3F, 0x00, 0xC0])),
]
header, data = {}, b""
for name, dtype, shape, raw in tensors:
    header[name] = {"dtype": dtype, "shape": shape,
                    "data_offsets": [len(data), len(data) + len(raw)]}
    data += raw
text = json.dumps(header).encode()
with open(f"{out}/weights.safetensors", "wb") as f:
    f.write(struct.pack("<Q", len(text)) + text + data)
with open(f"{out}/bad.safetensors", "wb") as f:
    f.write(struct.pack("<Q", 1 << 40) + b"{}")
