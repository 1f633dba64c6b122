# CMake toolchain file: 32-bit x86 Linux, with Debian's i686 cross compiler
# and the :i386 multiarch libraries (scripts/install-deps.sh installs both).
# The binaries run natively on an x86-64 host, so tests run without emulation.
#
#   cmake -S . -B build-i686 -DCMAKE_TOOLCHAIN_FILE=scripts/cmake/i686-linux-gnu.cmake
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR i686)
set(CMAKE_C_COMPILER i686-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER i686-linux-gnu-g++)

# Debian multiarch: libraries in /usr/lib/i386-linux-gnu, CMake packages in
# /usr/lib/i386-linux-gnu/cmake, arch-independent headers in /usr/include.
set(CMAKE_LIBRARY_ARCHITECTURE i386-linux-gnu)
set(ENV{PKG_CONFIG_LIBDIR} "/usr/lib/i386-linux-gnu/pkgconfig:/usr/share/pkgconfig")

# zlib and http-parser come as runtime packages only (their :i386 -dev
# packages cannot be installed beside the native ones; see install-deps.sh):
# link the versioned shared objects, with the native, identical headers.
set(_sundial_multiarch_lib /usr/lib/i386-linux-gnu)
if(NOT EXISTS ${_sundial_multiarch_lib}/libz.so AND EXISTS ${_sundial_multiarch_lib}/libz.so.1)
  set(ZLIB_LIBRARY ${_sundial_multiarch_lib}/libz.so.1 CACHE FILEPATH "zlib for i386")
endif()
if(NOT EXISTS ${_sundial_multiarch_lib}/libhttp_parser.so
   AND EXISTS ${_sundial_multiarch_lib}/libhttp_parser.so.2.9)
  set(HTTP_PARSER_LIBRARY ${_sundial_multiarch_lib}/libhttp_parser.so.2.9
      CACHE FILEPATH "http-parser for i386")
endif()
