"""Where this package's compiler is, which version it is, and what the machine
offers (`python -m wrapper_mlir --version | --doctor`).

A wheel or a non-editable install carries the compiler in
`wrapper_mlir/_native` (python/setup.py bundles it): `bin/` (wrapper-compile,
wrapper-opt, wrapper-run, wrapper-translate), `lib/` (the runtime libraries,
libomp, and the LLVM/MLIR libraries the tools load, with theirs), `include/`
(the runtime headers model libraries compile against) and `manifest.json`
(the versions it was built with and each file's SHA-256). An editable
install or a checkout on PYTHONPATH uses the checkout's build tree instead.
"""

import functools
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

# The Python package's version; the tools must report the same one.
__version__ = "0.1.0"

# The model ABI versions this package reads (WrapperModel.h); version 1
# lacks the device-resident entry points.
ABI_VERSIONS = (1, 2, 3)

# The tools whose --version names their Wrapper version and ABIs (others,
# such as the examples' train_model, are found but not checked).
VERSIONED_TOOLS = ("wrapper-compile", "wrapper-opt", "wrapper-run", "wrapper-translate")

NATIVE_DIR = Path(__file__).resolve().parent / "_native"
_CHECKOUT_BUILD = Path(__file__).resolve().parents[2] / "build"


class WrapperError(RuntimeError):
    """A failure to export, import, compile or run a model through Wrapper."""


@functools.lru_cache(maxsize=None)
def manifest():
    """The bundle's manifest.json as a dict, or None without a bundle."""
    path = NATIVE_DIR / "manifest.json"
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as error:
        raise WrapperError(f"the bundled compiler's manifest {path} is unreadable ({error}): "
                           "reinstall wrapper_mlir") from None


def _tool_candidates(name):
    """(path, where it comes from), in the order find_tool tries them."""
    candidates = []
    build_dir = os.environ.get("WRAPPER_BUILD_DIR")
    if build_dir:
        candidates.append((Path(build_dir) / "bin" / name, "WRAPPER_BUILD_DIR"))
    candidates.append((NATIVE_DIR / "bin" / name, "bundled"))
    candidates.append((_CHECKOUT_BUILD / "bin" / name, "checkout build"))
    found = shutil.which(name)
    if found and not _is_script(found):
        candidates.append((Path(found), "PATH"))
    return candidates


def _is_script(path):
    """Whether `path` is a script (such as this package's own console script
    of that name, which would call find_tool again) rather than the tool."""
    try:
        with open(path, "rb") as stream:
            return stream.read(2) == b"#!"
    except OSError:
        return True


def locate_tool(name):
    """(path, origin) of a Wrapper tool, origin one of "WRAPPER_BUILD_DIR",
    "bundled", "checkout build", "PATH"; raises WrapperError when there is
    none."""
    build_dir = os.environ.get("WRAPPER_BUILD_DIR")
    for path, origin in _tool_candidates(name):
        if path.is_file() and os.access(path, os.X_OK):
            return str(path), origin
        if origin == "WRAPPER_BUILD_DIR":
            # Set on purpose: a wrong one is an error, not a silent fallback.
            raise WrapperError(
                f"cannot find the '{name}' tool: WRAPPER_BUILD_DIR is '{build_dir}', which "
                f"has no bin/{name} (point it at the directory scripts/build.sh built, "
                "such as <checkout>/build, or unset it to use the bundled compiler)")
    raise WrapperError(
        f"cannot find the '{name}' tool: this wrapper_mlir has no bundled compiler "
        f"({NATIVE_DIR} is missing; install it with 'pip install ./python' from a "
        "checkout, not in editable mode), no checkout build next to it, and none on "
        "PATH; or set WRAPPER_BUILD_DIR to a build directory")


def runtime_library(name="libwrapper_runtime.so"):
    """The path of a runtime library (libwrapper_runtime.so, ...):
    $WRAPPER_BUILD_DIR/lib when set, else the bundle's lib/, else the
    checkout build's; loading packages needs no compiler."""
    build_dir = os.environ.get("WRAPPER_BUILD_DIR")
    directories = ([Path(build_dir) / "lib"] if build_dir else
                   [NATIVE_DIR / "lib", _CHECKOUT_BUILD / "lib"])
    for directory in directories:
        if (directory / name).is_file():
            return str(directory / name)
    raise WrapperError(f"cannot find the runtime library {name} (looked in "
                       f"{', '.join(map(str, directories))})")


def find_tool(name):
    """The path of a Wrapper tool: $WRAPPER_BUILD_DIR/bin when set (only
    there), else the compiler
    bundled in this package, then the build tree of the checkout this package
    lives in, then PATH. The first use of each of VERSIONED_TOOLS checks
    that it builds a model ABI this package reads."""
    path, origin = locate_tool(name)
    if name in VERSIONED_TOOLS:
        check_tool(path, origin)
    return path


_VERSION_LINE = re.compile(r"Wrapper (\S+) \(commit (\S+)\)")
_ABI_LINE = re.compile(r"model ABI (\d+), training ABI (\d+), CUDA runtime ABI (\d+)")


@functools.lru_cache(maxsize=None)
def tool_version(path):
    """What `path --version` says, as a dict: version, commit, model_abi,
    train_abi, cuda_abi, llvm_version, and (wrapper-compile) include_dir,
    runtime_dir, openmp_dir. Raises WrapperError when the tool does not run
    or predates --version's Wrapper lines."""
    try:
        result = subprocess.run([path, "--version"], capture_output=True, text=True,
                                timeout=60)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise WrapperError(f"cannot run '{path} --version': {error}") from None
    text = result.stdout + result.stderr
    if result.returncode != 0:
        raise WrapperError(f"'{path} --version' failed (exit {result.returncode}):\n"
                           f"{text.strip()}")
    version, abi = _VERSION_LINE.search(text), _ABI_LINE.search(text)
    if not version or not abi:
        raise WrapperError(f"'{path} --version' does not name its Wrapper version and ABIs: "
                           "the tool is older than this package; rebuild it")
    info = {"version": version.group(1), "commit": version.group(2),
            "model_abi": int(abi.group(1)), "train_abi": int(abi.group(2)),
            "cuda_abi": int(abi.group(3))}
    fields = {"llvm_version": r"built with LLVM (\S+)", "include_dir": r"headers: (.+)",
              "runtime_dir": r"runtime libraries: (.+)", "openmp_dir": r"OpenMP library: (.+)"}
    for key, pattern in fields.items():
        match = re.search(pattern, text)
        if match:
            info[key] = match.group(1).strip()
    return info


@functools.lru_cache(maxsize=None)
def check_tool(path, origin):
    """Refuses a tool whose model ABI or version this package cannot work
    with; warns when a tool other than the bundled one is used while a
    bundle exists and their commits differ."""
    info = tool_version(path)
    if info["model_abi"] not in ABI_VERSIONS:
        raise WrapperError(
            f"'{path}' ({origin}) builds model ABI {info['model_abi']}; this wrapper_mlir "
            f"{__version__} reads ABI {', '.join(map(str, ABI_VERSIONS))}: use the package "
            "and the tools of one version")
    if info["version"] != __version__:
        raise WrapperError(
            f"'{path}' ({origin}) is Wrapper {info['version']}; this wrapper_mlir is "
            f"{__version__}: use the package and the tools of one version")
    bundle = manifest()
    if bundle and origin != "bundled" and bundle.get("commit") != info["commit"]:
        warnings.warn(f"using '{path}' ({origin}, commit {info['commit']}) instead of the "
                      f"compiler bundled with wrapper_mlir (commit {bundle.get('commit')})",
                      stacklevel=3)
    return True


def verify_bundle():
    """The bundled files that are missing or differ from the manifest's
    SHA-256 (empty when all are intact, or without a bundle)."""
    bundle = manifest()
    if not bundle:
        return []
    bad = []
    for relative, digest in sorted(bundle.get("files", {}).items()):
        path = NATIVE_DIR / relative
        if not path.is_file():
            bad.append(f"{relative}: missing")
        elif file_sha256(path) != digest:
            bad.append(f"{relative}: changed since it was installed")
    return bad


def file_sha256(path):
    """The SHA-256 of a file's bytes, in hex (the manifest's checksums)."""
    sha = hashlib.sha256()
    with open(path, "rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            sha.update(block)
    return sha.hexdigest()


def run_tool(name):
    """Runs the Wrapper tool `name` with this process's arguments and exits
    with its status: the console scripts (wrapper-opt, wrapper-run,
    wrapper-compile, wrapper-translate) of an installed package."""
    try:
        path = find_tool(name)
    except WrapperError as error:
        print(f"{name}: error: {error}", file=sys.stderr)
        sys.exit(1)
    os.execv(path, [path, *sys.argv[1:]])


def wrapper_opt():
    run_tool("wrapper-opt")


def wrapper_run():
    run_tool("wrapper-run")


def wrapper_compile():
    run_tool("wrapper-compile")


def wrapper_translate():
    run_tool("wrapper-translate")
