# Hardening flags for release builds (the ones Debian's dpkg-buildflags and
# lintian expect of a packaged daemon), included from the top-level
# CMakeLists.txt before any target is made:
#   -D_FORTIFY_SOURCE=2          checked libc string and I/O calls (needs -O)
#   -fstack-protector-strong     stack canaries
#   -Wl,-z,relro,-z,now          read-only relocations, bound at start-up
#   PIE                          position-independent executables (ASLR);
#                                not for the fully static build, which
#                                links a non-PIE static glibc
# Debug, sanitizer and fuzz builds are left alone: they have their own
# instrumentation and _FORTIFY_SOURCE needs optimisation.
option(SUNDIAL_HARDENING "Hardening flags in release builds" ON)
if(SUNDIAL_HARDENING AND NOT SUNDIAL_SANITIZE AND NOT SUNDIAL_FUZZ
   AND CMAKE_BUILD_TYPE MATCHES "^(Release|RelWithDebInfo|MinSizeRel)$")
  # -U first: some compilers (Ubuntu's) predefine it, and a redefinition
  # would be a warning, which -Werror turns into an error.
  add_compile_options(-U_FORTIFY_SOURCE -D_FORTIFY_SOURCE=2 -fstack-protector-strong)
  add_link_options(LINKER:-z,relro,-z,now)
  if(NOT SUNDIAL_STATIC)
    include(CheckPIESupported)
    check_pie_supported()
    set(CMAKE_POSITION_INDEPENDENT_CODE ON)
  endif()
endif()
