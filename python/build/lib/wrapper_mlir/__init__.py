"""Python interface of the Wrapper MLIR compiler.

    import wrapper_mlir
    model = wrapper_mlir.compile(open("model.mlir").read())   # tensor_program text
    (y,) = model(x, w)                                        # numpy arrays in and out
    print(model.ir("frontend"))                               # the IR after a stage

The compiled form is the AOT `model.so` of `wrapper-compile` (its versioned
C ABI, include/Wrapper/Runtime/WrapperModel.h), loaded with ctypes. Inputs
that are C-contiguous arrays of the right dtype are passed without a copy;
outputs are NumPy arrays over the model's own buffers (freed with them).
"""

from ._compile import CompiledModel, WrapperError, compile, find_tool

__all__ = ["compile", "CompiledModel", "WrapperError", "find_tool"]
