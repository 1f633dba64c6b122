# CMake toolchain file: Raspberry Pi Zero / Zero W / Pi 1 (ARM1176JZF-S,
# ARMv6KZ + VFPv2), fully static. scripts/build-pi-zero.sh drives it.
#
# Debian's armhf toolchain and libraries are ARMv7/Thumb-2 and die with
# SIGILL on an ARM1176, whatever -march says. Debian's armel toolchain is
# ARMv5TE (Thumb-1 only), so armel + ARMv6 flags + -static gives a binary
# that runs on the Pi Zero, under Raspberry Pi OS armhf or armel alike.
#
#   cmake -S . -B build-pi-zero -DCMAKE_TOOLCHAIN_FILE=scripts/cmake/armv6-pi-zero.cmake \
#         -DSUNDIAL_ARMEL_ROOT=<dir with the :armel -dev packages unpacked>
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR armv6l)
set(CMAKE_C_COMPILER arm-linux-gnueabi-gcc)
set(CMAKE_CXX_COMPILER arm-linux-gnueabi-g++)
set(CMAKE_LIBRARY_ARCHITECTURE arm-linux-gnueabi)

set(_sundial_armv6_flags "-march=armv6kz -mtune=arm1176jzf-s -mfpu=vfp -mfloat-abi=softfp -marm")
set(CMAKE_C_FLAGS_INIT "${_sundial_armv6_flags}")
# -Wno-psabi: silence GCC notes about an ABI change in GCC 7.1 (not ours).
set(CMAKE_CXX_FLAGS_INIT "${_sundial_armv6_flags} -Wno-psabi")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")

# Static libraries only; spdlog and fmt header-only (see CMakeLists.txt).
set(SUNDIAL_STATIC ON CACHE BOOL "Link fully static")

# The static :armel libraries, unpacked from their .debs into a private root
# (scripts/build-pi-zero.sh does this; installed :armel packages work too).
set(SUNDIAL_ARMEL_ROOT "" CACHE PATH "Root holding unpacked :armel -dev packages")
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES SUNDIAL_ARMEL_ROOT)
if(SUNDIAL_ARMEL_ROOT)
  list(APPEND CMAKE_PREFIX_PATH ${SUNDIAL_ARMEL_ROOT}/usr)
  set(ENV{PKG_CONFIG_SYSROOT_DIR} ${SUNDIAL_ARMEL_ROOT})
  set(ENV{PKG_CONFIG_LIBDIR} ${SUNDIAL_ARMEL_ROOT}/usr/lib/arm-linux-gnueabi/pkgconfig)
else()
  set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/arm-linux-gnueabi/pkgconfig)
endif()

# Tests run under user-mode qemu emulating the ARM1176 (no binfmt needed).
# Tests are listed when ctest runs, not after each link, so a build without
# qemu still succeeds.
find_program(SUNDIAL_QEMU_ARM qemu-arm NO_CMAKE_FIND_ROOT_PATH)
if(SUNDIAL_QEMU_ARM)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${SUNDIAL_QEMU_ARM} -cpu arm1176)
endif()
set(CMAKE_GTEST_DISCOVER_TESTS_DISCOVERY_MODE PRE_TEST)
