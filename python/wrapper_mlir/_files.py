"""File writing shared by the package writer and the importer's weights
files (a leaf module: it imports nothing of the package)."""

_BLOCK = 16 << 20
_ZEROS = bytes(_BLOCK)


def write_sparse(out, data):
    """Writes `data` (bytes-like) at `out`'s position, seeking over blocks
    that are all zero instead of writing them: weights that are mostly zero
    (a large table filled later, a test's 8 GiB embedding) become holes of
    a sparse file, neither written nor stored. The file is extended by the
    caller (truncate) when it ends in a hole."""
    view = memoryview(data).cast("B")
    for begin in range(0, len(view), _BLOCK):
        block = view[begin:begin + _BLOCK]
        # bytes == bytes is a memcmp; memoryview comparisons go per element.
        if bytes(block) == (_ZEROS if len(block) == _BLOCK else bytes(len(block))):
            out.seek(len(block), 1)
        else:
            out.write(block)
