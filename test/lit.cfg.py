# -*- Python -*-
# lit configuration of the Wrapper regression tests.

import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "WRAPPER"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".c", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.wrapper_obj_root, "test")
config.excludes = ["Inputs", "CMakeLists.txt", "README.txt", "lit.cfg.py",
                   "lit.site.cfg.py", "Unit"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%shlibext", ".so"))
config.substitutions.append(("%mlir_lib_dir", config.mlir_lib_dir))
config.substitutions.append(("%wrapper_src_root", config.wrapper_src_root))
config.substitutions.append(("%wrapper_obj_root", config.wrapper_obj_root))
config.substitutions.append(
    ("%wrapper_lib_dir", os.path.join(config.wrapper_tools_dir, "..", "lib")))
# Runtime libraries that mlir-runner loads to run compiled programs.
runner_libs = [os.path.join(config.mlir_lib_dir, lib) for lib in
               ("libmlir_runner_utils.so", "libmlir_c_runner_utils.so",
                "libomp.so")]
config.substitutions.append(("%runner_libs", ",".join(runner_libs)))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP",
                                     "ASAN_OPTIONS", "UBSAN_OPTIONS",
                                     "WRAPPER_CUBLAS_LIBRARY", "LD_LIBRARY_PATH",
                                     "WRAPPER_CUDA_DEVICE", "CUDA_VISIBLE_DEVICES",
                                     "CUDA_DEVICE_ORDER", "CUDA_ROOT",
                                     "CUDA_HOME", "CUDA_PATH"])
llvm_config.use_default_substitutions()

tool_dirs = [config.wrapper_tools_dir, config.llvm_tools_dir]
tools = ["wrapper-opt", "wrapper-run", "wrapper-compile", "wrapper-translate",
         "run_model", "train_model", "wrapper-cuda-check", "mlir-runner", "mlir-translate"]
llvm_config.add_tool_substitutions(tools, tool_dirs)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.wrapper_tools_dir, append_path=True)

# %python: the interpreter of the Python-driven tests. PATH's python3 may
# lack NumPy (a fresh machine's does), so the tests run with WRAPPER_PYTHON
# (scripts/test.sh sets it to the .venv that scripts/setup-python.sh makes),
# else that .venv when it exists, else lit's own interpreter. Tests that
# need NumPy say `REQUIRES: python-numpy`.
def _find_python():
    import subprocess
    import sys
    candidates = [os.environ.get("WRAPPER_PYTHON"),
                  os.path.join(config.wrapper_src_root, ".venv", "bin", "python"),
                  sys.executable]
    for candidate in candidates:
        if candidate and os.access(candidate, os.X_OK):
            ok = subprocess.run([candidate, "-c", "import numpy"],
                                capture_output=True).returncode == 0
            if ok:
                return candidate, True
    return sys.executable, False


_python, _has_numpy = _find_python()
config.substitutions.append(("%python", _python))
if _has_numpy:
    config.available_features.add("python-numpy")

# Sanitizer builds (WRAPPER_ENABLE_SANITIZERS): programs linked outside the
# build (g++ against the instrumented runtime) cannot run there.
if getattr(config, "wrapper_sanitizers", False):
    config.available_features.add("asan")


# cuda-runtime: a CUDA driver and a device this process can use (the GPU
# machine; never CI). WRAPPER_CUDA_TESTS=off turns the GPU tests off.
def _cuda_usable():
    import ctypes
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    count = ctypes.c_int(0)
    return (cuda.cuInit(0) == 0 and
            cuda.cuDeviceGetCount(ctypes.byref(count)) == 0 and count.value > 0)


if os.environ.get("WRAPPER_CUDA_TESTS", "auto") != "off" and _cuda_usable():
    config.available_features.add("cuda-runtime")

# cuda-libdevice: a CUDA toolkit with libdevice where --wrapper-cuda-pipeline
# looks by default (the PTX tests of kernels calling exp, erf, ... need it).
_toolkits = [os.environ.get(v) for v in ("CUDA_ROOT", "CUDA_HOME", "CUDA_PATH")]
if any(t and os.path.isfile(os.path.join(t, "nvvm", "libdevice", "libdevice.10.bc"))
       for t in _toolkits + ["/usr/local/cuda"]):
    config.available_features.add("cuda-libdevice")

# cuda-ptxas: a CUDA toolkit with ptxas where --wrapper-cuda-pipeline looks
# by default (binary=cubin).
if any(t and os.path.isfile(os.path.join(t, "bin", "ptxas"))
       for t in _toolkits + ["/usr/local/cuda"]):
    config.available_features.add("cuda-ptxas")

# cuda-stub: the CUDA toolkit's stub libcuda (a driver library whose every
# call fails), to check the runtime's refusals where the toolkit is.
_stub = "/usr/local/cuda/lib64/stubs/libcuda.so"
if os.path.exists(_stub):
    config.available_features.add("cuda-stub")
    config.substitutions.append(("%cuda_stub", _stub))
