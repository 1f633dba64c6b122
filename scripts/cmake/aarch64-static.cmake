# CMake toolchain file: 64-bit ARM (aarch64 / Debian arm64), fully static:
# Raspberry Pi 3/4/5 and Zero 2 with a 64-bit OS, and arm64 servers.
# scripts/build-cross.sh --target arm64 drives it.
#
# Debian's aarch64-linux-gnu cross compiler targets ARMv8-A, which every
# 64-bit ARM CPU runs, so no -march is needed. Linked statically against the
# :arm64 static libraries, the binary depends on no library of the system it
# runs on, so one package installs on any arm64 Debian or Ubuntu release.
#
#   cmake -S . -B build-arm64 -DCMAKE_TOOLCHAIN_FILE=scripts/cmake/aarch64-static.cmake \
#         -DSUNDIAL_DEB_ROOT=<dir with the :arm64 -dev packages unpacked>
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
# -Wno-psabi: silence GCC notes about aarch64 ABI changes in GCC 9 and 10
# (not ours).
set(CMAKE_CXX_FLAGS_INIT "-Wno-psabi")

set(_sundial_qemu qemu-aarch64)
set(_sundial_qemu_args "")
include(${CMAKE_CURRENT_LIST_DIR}/static-cross.cmake)
