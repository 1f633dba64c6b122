# The part of the fully static cross builds that every target shares,
# included by their toolchain files (armv6-pi-zero.cmake,
# aarch64-static.cmake) after they set:
#   CMAKE_C_COMPILER, CMAKE_CXX_COMPILER, CMAKE_SYSTEM_PROCESSOR,
#   CMAKE_LIBRARY_ARCHITECTURE (the Debian multiarch triplet),
#   _sundial_qemu (user-mode qemu program) and _sundial_qemu_args.
# scripts/build-cross.sh drives them.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")

# Static libraries only; spdlog and fmt header-only (see CMakeLists.txt).
set(SUNDIAL_STATIC ON CACHE BOOL "Link fully static")

# The target's static libraries, unpacked from their .debs into a private
# root (scripts/build-cross.sh does this; installed :<arch> packages work too).
set(SUNDIAL_DEB_ROOT "" CACHE PATH "Root holding the target's unpacked -dev packages")
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES SUNDIAL_DEB_ROOT)
if(SUNDIAL_DEB_ROOT)
  list(APPEND CMAKE_PREFIX_PATH ${SUNDIAL_DEB_ROOT}/usr)
  set(ENV{PKG_CONFIG_SYSROOT_DIR} ${SUNDIAL_DEB_ROOT})
  set(ENV{PKG_CONFIG_LIBDIR}
      ${SUNDIAL_DEB_ROOT}/usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/pkgconfig)
else()
  set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/pkgconfig)
endif()

# Tests (and `sundiald --man` for the package) run under user-mode qemu; no
# binfmt is needed. Tests are listed when ctest runs, not after each link, so
# a build without qemu still succeeds (but its package has no man page).
find_program(SUNDIAL_QEMU ${_sundial_qemu} NO_CMAKE_FIND_ROOT_PATH)
if(SUNDIAL_QEMU)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${SUNDIAL_QEMU} ${_sundial_qemu_args})
endif()
set(CMAKE_GTEST_DISCOVER_TESTS_DISCOVERY_MODE PRE_TEST)
