# Cross-compiling Shimmer for 64-bit Arm Linux with Debian's
# gcc-aarch64-linux-gnu / g++-aarch64-linux-gnu (tools/run-tests --arm).
# The programs run under qemu-user (qemu-aarch64-static) through
# binfmt_misc; CMAKE_CROSSCOMPILING_EMULATOR lets ctest start them directly
# too.  No aarch64 UCX or PMIx is installed, so configure with
# -DSHIMMER_WITH_UCX=off -DSHIMMER_WITH_PMIX=off.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# the host's pkg-config must not hand x86-64 UCX/PMIx to this build
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64-static -L /usr/aarch64-linux-gnu)
