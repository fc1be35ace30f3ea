# Sourced on the GPU machine (an image without MLIR), in the checkout's
# root, after scripts/device/pack.sh made .device/bundle.tar.xz here and the
# call carried .device: unpacks the bundle and lays its tools out where
# build/ and /usr/lib/llvm-22 would be, so that lit (GPU tests),
# scripts/cuda-integration.sh and the Python package run as they do here.
#   . scripts/device/setup.sh
set -u
root=$PWD
tar -xJf .device/bundle.tar.xz -C /tmp && . /tmp/bundle/env.sh
# lit.site.cfg.py names /work/main and /usr/lib/llvm-22.
mkdir -p /work && ln -sfn "$root" /work/main
mkdir -p build/test /usr/lib/llvm-22/bin /usr/lib/llvm-22/lib /usr/lib/llvm-22/utils
ln -sfn /tmp/bundle/bin build/bin
ln -sfn /tmp/bundle/lib build/lib
extra=/tmp/bundle/extra
[ -d $extra/llvmbin ] && cp $extra/llvmbin/* /usr/lib/llvm-22/bin/
[ -d $extra/lit ] && cp -r $extra/lit /usr/lib/llvm-22/utils/
[ -d $extra/test ] && cp $extra/test/lit.site.cfg.py build/test/
# libomp and MLIR's runner libraries for CPU model.so and wrapper-run, under
# the names they are linked with.
[ -d $extra/libs ] && cp $extra/libs/* /tmp/bundle/lib/
for f in /tmp/bundle/lib/lib*.so*; do ln -sf "$f" /usr/lib/llvm-22/lib/; done
for f in /tmp/bundle/lib/libmlir_*.so; do
  ln -sf "$f" "/usr/lib/llvm-22/lib/${f##*/}.22.1"
  [ -e "$f.22.1" ] || ln -sf "$f" "$f.22.1"
done
# cuBLAS of the machine's CUDA toolkit.
WRAPPER_CUBLAS_LIBRARY=$(find / -xdev -name 'libcublas.so.*' 2>/dev/null | grep -v Lt | head -1)
export WRAPPER_CUBLAS_LIBRARY WRAPPER_BUILD_DIR=$root/build PYTHONPATH=$root/python
lit() { PYTHONPATH=/usr/lib/llvm-22/utils/lit python3 -c "from lit.main import main; main()" "$@"; }
echo "device setup: tools $(ls /tmp/bundle/bin | tr '\n' ' '); cuBLAS ${WRAPPER_CUBLAS_LIBRARY:-none}"
