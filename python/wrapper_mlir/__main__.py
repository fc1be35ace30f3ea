"""python -m wrapper_mlir --version | --doctor

--version: this package's version, the compiler it uses (where it comes
from, its version, commit and ABIs) and the versions it was bundled with.
--doctor: what the machine offers (C compiler, OpenMP, CUDA driver and
toolkit, cuBLAS, cuDNN, torch) and which features a missing piece turns off;
exits 1 when the package cannot compile here.
"""

import argparse
import sys

from . import _install


def _version():
    print(f"wrapper_mlir {_install.__version__} ({_install.Path(__file__).resolve().parent})")
    bundle = _install.manifest()
    if bundle:
        print(f"  bundled compiler: Wrapper {bundle['version']} (commit {bundle['commit']}), "
              f"LLVM {bundle['llvm_version']}, built on {bundle.get('built_on', 'unknown')}")
    try:
        path, origin = _install.locate_tool("wrapper-compile")
        info = _install.tool_version(path)
    except _install.WrapperError as error:
        print(f"  compiler: {error}")
        return 1
    print(f"  compiler: {path} ({origin})")
    print(f"    Wrapper {info['version']} (commit {info['commit']}), model ABI "
          f"{info['model_abi']}, training ABI {info['train_abi']}, CUDA runtime ABI "
          f"{info['cuda_abi']}, LLVM {info.get('llvm_version', 'unknown')}")
    print(f"  reads model ABI {', '.join(map(str, _install.ABI_VERSIONS))}")
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m wrapper_mlir",
        description="The Wrapper MLIR compiler's Python package.")
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--version", action="store_true",
                       help="print the package's and the compiler's versions")
    group.add_argument("--doctor", action="store_true",
                       help="check what this machine offers and what is missing")
    args = parser.parse_args(argv)
    if args.version:
        return _version()
    from . import _doctor

    return _doctor.main()


if __name__ == "__main__":
    sys.exit(main())
