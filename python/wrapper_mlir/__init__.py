"""Python interface of the Wrapper MLIR compiler.

    import torch, wrapper_mlir
    model = wrapper_mlir.compile(torch_module.eval(), [x])    # torch.export -> core ATen
    y = model(x)                                              # torch tensors in and out
    print(model.ir("source"))                                 # the tensor_program (weights in a file)

    model = wrapper_mlir.compile(open("model.mlir").read())   # tensor_program text
    (y,) = model(x, w)                                        # numpy arrays in and out

    compiled = torch.compile(torch_module, backend="wrapper")  # through AOTAutograd
    step = wrapper_mlir.compile_training(model, loss_fn, optimizer, [x, y])
    loss = step(x, y)                                         # one AOT training step
    step.save("trainer/")                                     # train_step.so + state/*.npy
    print(wrapper_mlir.explain(torch_module, [x]))             # coverage, without compiling

The compiled form is the AOT `model.so` of `wrapper-compile` (its versioned
C ABI, include/Wrapper/Runtime/WrapperModel.h), loaded with ctypes. Inputs
that are C-contiguous arrays of the right dtype are passed without a copy;
outputs are arrays over the model's own buffers (freed with them); torch
tensors go in and out through the buffer protocol, also without copies. A
CUDA model runs on CUDA tensors where they are, on PyTorch's current stream,
and returns CUDA tensors over its runtime's device memory (DLPack):
`cuda_stats()` counts the copies between host and device.
Torch graphs are imported at the core ATen level (wrapper_mlir.importer);
an op outside its table runs in PyTorch on its own (a proxy call) unless
`fallback=False`. `wrapper_mlir.interpreter.interpret` is a NumPy reference
interpreter of tensor_program. torch is optional: only the torch front end
needs it.
"""

import sys

from ._api import compile
from ._compile import CompiledModel, WrapperError, cuda_stats, find_tool, reset_cuda_peak
from ._install import __version__
from ._stats import reset_stats, stats

__all__ = ["compile", "compile_training", "CompiledModel", "TrainingStep", "WrapperError",
           "cuda_stats", "explain", "find_tool", "load", "package", "register_backend",
           "reset_cuda_peak",
           "reset_stats", "stats"]


def package(model, example_inputs=None, path=None, **options):
    """Compiles a model for one or more targets into one package file (see
    wrapper_mlir._package and docs/Packages.md); returns its path."""
    from ._package import package as run

    return run(model, example_inputs, path, **options)


def load(source, target=None):
    """Loads a package (a path or its bytes) made by package(); returns a
    callable PackagedModel."""
    from ._package import load as run

    return run(source, target)


def compile_training(model, loss_fn, optimizer, example_inputs, **options):
    """One whole training step (forward, loss, backward, optimizer update)
    compiled AOT into a TrainingStep (see wrapper_mlir._training)."""
    from ._training import compile_training as run

    return run(model, loss_fn, optimizer, example_inputs, **options)


def __getattr__(name):
    # TrainingStep without importing torch with the package.
    if name == "TrainingStep":
        from ._training import TrainingStep

        return TrainingStep
    raise AttributeError(f"module 'wrapper_mlir' has no attribute {name!r}")


def explain(model, example_inputs, example_kwargs=None, **options):
    """What the compiler makes of a torch model, op by op, without compiling
    it (see wrapper_mlir._explain)."""
    from ._explain import explain as run

    return run(model, example_inputs, example_kwargs, **options)


def register_backend():
    """Registers `torch.compile(..., backend="wrapper")`."""
    from ._torch import register_backend as register

    register()


# With torch already imported, make the backend available right away (an
# installed package also registers it through its entry point).
if "torch" in sys.modules:
    try:
        register_backend()
    except Exception:  # an incompatible torch must not break the NumPy API
        pass
