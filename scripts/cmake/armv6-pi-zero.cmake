# CMake toolchain file: Raspberry Pi Zero / Zero W / Pi 1 (ARM1176JZF-S,
# ARMv6KZ + VFPv2), fully static. scripts/build-cross.sh --target pi-zero
# (scripts/build-pi-zero.sh) drives it.
#
# Debian's armhf toolchain and libraries are ARMv7/Thumb-2 and die with
# SIGILL on an ARM1176, whatever -march says. Debian's armel toolchain is
# ARMv5TE (Thumb-1 only), so armel + ARMv6 flags + -static gives a binary
# that runs on the Pi Zero, under Raspberry Pi OS armhf or armel alike.
#
#   cmake -S . -B build-pi-zero -DCMAKE_TOOLCHAIN_FILE=scripts/cmake/armv6-pi-zero.cmake \
#         -DSUNDIAL_DEB_ROOT=<dir with the :armel -dev packages unpacked>
set(CMAKE_SYSTEM_PROCESSOR armv6l)
set(CMAKE_C_COMPILER arm-linux-gnueabi-gcc)
set(CMAKE_CXX_COMPILER arm-linux-gnueabi-g++)
set(CMAKE_LIBRARY_ARCHITECTURE arm-linux-gnueabi)

set(_sundial_armv6_flags "-march=armv6kz -mtune=arm1176jzf-s -mfpu=vfp -mfloat-abi=softfp -marm")
set(CMAKE_C_FLAGS_INIT "${_sundial_armv6_flags}")
# -Wno-psabi: silence GCC notes about an ABI change in GCC 7.1 (not ours).
set(CMAKE_CXX_FLAGS_INIT "${_sundial_armv6_flags} -Wno-psabi")

# Tests run under qemu emulating the ARM1176 itself.
set(_sundial_qemu qemu-arm)
set(_sundial_qemu_args -cpu arm1176)
include(${CMAKE_CURRENT_LIST_DIR}/static-cross.cmake)
