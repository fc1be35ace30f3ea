"""`python -m wrapper_mlir --doctor`: what this machine offers the compiler,
what is missing, and which features that turns off.

Each check is a Check: a name, whether it passed, what was found (or why
not), what its absence turns off, and whether the package is unusable
without it (`essential`). `diagnose()` runs them all; `main` prints them and
exits 1 when an essential one failed.
"""

import ctypes
import dataclasses
import os
import platform
import shutil
import subprocess
import tempfile
from pathlib import Path

from . import _install


@dataclasses.dataclass
class Check:
    name: str
    ok: bool
    found: str
    without: str = ""
    essential: bool = False


def _check_tools():
    checks = []
    for name in ("wrapper-compile", "wrapper-opt"):
        try:
            path, origin = _install.locate_tool(name)
            info = _install.tool_version(path)
            _install.check_tool(path, origin)
            checks.append(Check(name, True, f"{path} ({origin}; Wrapper {info['version']}, "
                                f"commit {info['commit']}, model ABI {info['model_abi']})",
                                essential=True))
        except _install.WrapperError as error:
            checks.append(Check(name, False, str(error), "nothing compiles", essential=True))
    return checks


def _check_bundle():
    bundle = _install.manifest()
    if not bundle:
        return [Check("bundled compiler", True,
                      "none (an editable install or a checkout: the tools of a build tree)")]
    bad = _install.verify_bundle()
    if bad:
        return [Check("bundled compiler", False, "; ".join(bad[:5]) +
                      (f" and {len(bad) - 5} more" if len(bad) > 5 else ""),
                      "reinstall wrapper_mlir", essential=True)]
    return [Check("bundled compiler", True,
                  f"{len(bundle.get('files', {}))} files intact under {_install.NATIVE_DIR}")]


def _layout():
    try:
        return _install.tool_version(_install.locate_tool("wrapper-compile")[0])
    except _install.WrapperError:
        return {}


def _check_c_compiler():
    """wrapper-compile links model.so with a C compiler: the one it was built
    with when present, else `cc`."""
    compiler = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not compiler:
        return [Check("C compiler", False, "no cc, gcc or clang on PATH",
                      "model.so cannot be linked: compile() and torch.compile fail "
                      "(install gcc or clang)", essential=True)]
    layout = _layout()
    include = layout.get("include_dir", "")
    with tempfile.TemporaryDirectory() as work:
        source = Path(work) / "probe.c"
        source.write_text('#include "Wrapper/Runtime/WrapperModel.h"\n'
                          "int probe(void) { return WRAPPER_MODEL_ABI_VERSION; }\n")
        command = [compiler, "-shared", "-fPIC", "-o", str(Path(work) / "probe.so"),
                   str(source)]
        if include:
            command.insert(1, f"-I{include}")
        result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        return [Check("C compiler", False,
                      f"{compiler} cannot build a shared library with the runtime headers: "
                      f"{(result.stderr or result.stdout).strip()[:300]}",
                      "model.so cannot be linked", essential=True)]
    return [Check("C compiler", True, f"{compiler} (headers: {include or 'unknown'})",
                  essential=True)]


def _check_libraries():
    layout = _layout()
    checks = []
    runtime_dir = Path(layout.get("runtime_dir", ""))
    runtime = runtime_dir / "libwrapper_runtime.so"
    try:
        ctypes.CDLL(str(runtime))
        checks.append(Check("runtime library", True, str(runtime), essential=True))
    except OSError as error:
        checks.append(Check("runtime library", False, str(error),
                            "compiled models cannot load", essential=True))
    openmp = Path(layout.get("openmp_dir", "")) / "libomp.so"
    if openmp.is_file():
        checks.append(Check("OpenMP (libomp)", True, str(openmp)))
    else:
        checks.append(Check("OpenMP (libomp)", False, f"no {openmp}",
                            "parallel CPU code cannot link: compile with "
                            "options={'parallel': False} (one thread)"))
    return checks


def _cuda_driver():
    """(ok, text) about libcuda: the driver version and the devices."""
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError as error:
        return False, f"libcuda.so.1 does not load ({error})"
    if cuda.cuInit(0) != 0:
        return False, "cuInit failed (no GPU, or the driver cannot reach one)"
    version, count = ctypes.c_int(), ctypes.c_int()
    cuda.cuDriverGetVersion(ctypes.byref(version))
    cuda.cuDeviceGetCount(ctypes.byref(count))
    names = []
    for index in range(count.value):
        device, name = ctypes.c_int(), ctypes.create_string_buffer(100)
        if cuda.cuDeviceGet(ctypes.byref(device), index) == 0:
            cuda.cuDeviceGetName(name, 100, device)
            names.append(name.value.decode(errors="replace"))
    major, minor = version.value // 1000, version.value % 1000 // 10
    if not names:
        return False, f"driver {major}.{minor}, no device"
    return True, f"driver {major}.{minor}; {', '.join(names)}"


def _cuda_toolkit():
    """The toolkit directory the compiler searches: $CUDA_ROOT, $CUDA_HOME,
    $CUDA_PATH, /usr/local/cuda (Pipelines.cpp, findInToolkit)."""
    for variable in ("CUDA_ROOT", "CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(variable):
            return Path(os.environ[variable])
    return Path("/usr/local/cuda")


def _loadable(names):
    for name in names:
        if not name:
            continue
        try:
            ctypes.CDLL(name)
            return name
        except OSError:
            continue
    return None


def _imports(module):
    try:
        __import__(module)
        return True
    except ImportError:
        return False


def _check_cuda():
    checks = []
    ok, text = _cuda_driver()
    checks.append(Check("CUDA driver", ok, text,
                        "" if ok else "target='cuda' and CUDA tensors do not run"))
    toolkit = _cuda_toolkit()
    libdevice = toolkit / "nvvm" / "libdevice" / "libdevice.10.bc"
    ptxas = toolkit / "bin" / "ptxas"
    checks.append(Check("CUDA libdevice", libdevice.is_file(),
                        str(libdevice) if libdevice.is_file() else f"no {libdevice}",
                        "" if libdevice.is_file() else
                        "CUDA kernels calling exp, erf, tanh, pow ... do not compile "
                        "(set CUDA_HOME to a CUDA toolkit)"))
    checks.append(Check("CUDA ptxas", ptxas.is_file(),
                        str(ptxas) if ptxas.is_file() else f"no {ptxas}",
                        "" if ptxas.is_file() else
                        "binary=cubin unavailable (PTX, compiled by the driver, still works)"))
    # The runtime's search (CudaBlas.c), first in this process as it is, then
    # after importing torch, whose nvidia-cublas wheel it loads.
    names = [os.environ.get("WRAPPER_CUBLAS_LIBRARY"), "libcublas.so.13", "libcublas.so.12",
             "libcublas.so"]
    cublas = _loadable(names)
    if cublas is None and _imports("torch"):
        cublas = _loadable(names)
        if cublas:
            cublas += " (once torch is imported: its nvidia-cublas wheel)"
    checks.append(Check("cuBLAS", cublas is not None, cublas or "no libcublas.so.13/.12 loads",
                        "" if cublas else "matrix products on CUDA fail "
                        "(set WRAPPER_CUBLAS_LIBRARY to libcublas.so)"))
    cudnn = _loadable(["libcudnn.so.9", "libcudnn.so.8", "libcudnn.so"])
    checks.append(Check("cuDNN", cudnn is not None,
                        (cudnn + " (not used by this version)") if cudnn else
                        "no libcudnn loads (not used by this version)"))
    return checks


def _check_python():
    checks = []
    try:
        import numpy
        checks.append(Check("numpy", True, numpy.__version__, essential=True))
    except ImportError:
        checks.append(Check("numpy", False, "not installed", "the package does not import",
                            essential=True))
    try:
        import torch
        checks.append(Check("torch", True, f"{torch.__version__}"
                            f" (CUDA {torch.version.cuda or 'none'})"))
    except ImportError:
        checks.append(Check("torch", False, "not installed",
                            "torch.compile(backend='wrapper'), compile(nn.Module), explain "
                            "and training are off; tensor_program text still compiles"))
    return checks


def _check_cpu():
    flags = set()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                flags = set(line.split(":", 1)[1].split())
                break
    except OSError:
        pass
    vector = ("AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags
              else "SSE only" if flags else "unknown")
    extras = [name for flag, name in (("avx512_bf16", "AVX512-BF16"), ("amx_tile", "AMX"))
              if flag in flags]
    text = f"{platform.machine()}, {os.cpu_count()} cores, {vector}"
    if extras:
        text += ", " + ", ".join(extras)
    return [Check("CPU", True, text)]


def diagnose():
    """All checks, in the order they print."""
    # CUDA before torch: importing torch loads its own CUDA libraries.
    return (_check_bundle() + _check_tools() + _check_c_compiler() + _check_libraries()
            + _check_cpu() + _check_cuda() + _check_python())


def report(checks):
    """The checks as text, one per line, and a last line saying whether the
    package is usable."""
    lines = []
    for check in checks:
        mark = "ok" if check.ok else ("MISSING" if check.essential else "off")
        lines.append(f"[{mark:>7}] {check.name}: {check.found}")
        if not check.ok and check.without:
            lines.append(f"          without it: {check.without}")
    broken = [check.name for check in checks if check.essential and not check.ok]
    if broken:
        lines.append(f"wrapper_mlir cannot compile on this machine: fix {', '.join(broken)}")
    else:
        lines.append("wrapper_mlir can compile and run models on this machine")
    return "\n".join(lines)


def main():
    checks = diagnose()
    print(report(checks))
    return 1 if any(check.essential and not check.ok for check in checks) else 0
