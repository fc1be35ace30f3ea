# Writes the GEMM template's B panels of a [K, N] float32 .npy:
# pack_panels.py IN.npy NR OUT.npy -> [ceil(N/NR)][K][NR], zero past N
# (what a swappable package's loader makes; docs/Packages.md).
import sys

import numpy as np

b, nr = np.load(sys.argv[1]), int(sys.argv[2])
rows, cols = b.shape
panels = -(-cols // nr)
padded = np.zeros((rows, panels * nr), np.float32)
padded[:, :cols] = b
np.save(sys.argv[3], np.ascontiguousarray(padded.reshape(rows, panels, nr).transpose(1, 0, 2)))
