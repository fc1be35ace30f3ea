"""Compiles a small torch module with Wrapper, two ways, and checks both
against eager PyTorch (docs/GettingStarted.md, "A torch module").

    WRAPPER_BUILD_DIR=build python examples/torch_module.py
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

import wrapper_mlir


class Block(nn.Module):
    def __init__(self, d=64):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.up = nn.Linear(d, 4 * d)
        self.down = nn.Linear(4 * d, d)

    def forward(self, x):
        return x + self.down(F.gelu(self.up(self.norm(x))))


torch.manual_seed(0)
block = Block().eval()
x = torch.randn(8, 16, 64)

# 1. Ahead of time: torch.export, core ATen, import, compile to a model.so;
#    the batch dimension stays dynamic.
model = wrapper_mlir.compile(block, [x], dynamic_batch=True)
print(model.ir("source").splitlines()[0])        # func.func @main(%arg0: tensor<?x16x64xf32>) -> ...
for batch in (8, 3):
    x = torch.randn(batch, 16, 64)
    with torch.no_grad():
        expected = block(x)
    torch.testing.assert_close(model(x), expected, rtol=1e-4, atol=1e-5)
    print(f"batch {batch}: matches eager")

# 2. As a torch.compile backend (installed packages register it; in a
#    source checkout, register_backend() does).
wrapper_mlir.register_backend()
compiled = torch.compile(block, backend="wrapper")
with torch.no_grad():
    torch.testing.assert_close(compiled(x), block(x), rtol=1e-4, atol=1e-5)
print("torch.compile(backend='wrapper'): matches eager")
