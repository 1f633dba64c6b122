# Install layout and the Debian package (CPack), included from the top-level
# CMakeLists.txt. `cpack -G DEB` in a build directory makes
# sundial_<version>_<arch>.deb with:
#   /usr/bin/sundiald, /etc/sundial/sundial.conf (a conffile),
#   /lib/systemd/system/sundial.service, /usr/lib/sysusers.d/sundial.conf
# and maintainer scripts (scripts/deb/) that create the `sundial` user and
# /var/lib/sundial and enable the service.
# (sundiald's own install rule, to bin/, is in src/server/CMakeLists.txt.)
if(EXISTS ${PROJECT_SOURCE_DIR}/conf/sundial.conf)
  install(FILES ${PROJECT_SOURCE_DIR}/conf/sundial.conf DESTINATION /etc/sundial)
endif()
install(FILES ${PROJECT_SOURCE_DIR}/scripts/systemd/sundial.service
        DESTINATION /lib/systemd/system)
install(FILES ${PROJECT_SOURCE_DIR}/scripts/systemd/sundial.sysusers
        DESTINATION /usr/lib/sysusers.d RENAME sundial.conf)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME sundial)
set(CPACK_PACKAGE_VENDOR "Sundial")
set(CPACK_PACKAGE_CONTACT "Sundial maintainers <sundial@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "time-series database speaking OpenTSDB's telnet put and HTTP API")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION database)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    ${PROJECT_SOURCE_DIR}/scripts/deb/conffiles
    ${PROJECT_SOURCE_DIR}/scripts/deb/postinst
    ${PROJECT_SOURCE_DIR}/scripts/deb/prerm
    ${PROJECT_SOURCE_DIR}/scripts/deb/postrm)

if(SUNDIAL_STATIC)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS OFF)  # nothing to depend on
else()
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)   # dpkg-shlibdeps fills Depends
endif()

# CPack labels the package with the build host's architecture; a cross build
# must say its own. The static ARMv6 build runs on Raspberry Pi OS (armhf).
if(CMAKE_CROSSCOMPILING)
  if(CMAKE_SYSTEM_PROCESSOR MATCHES "^i[3-6]86$")
    set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE i386)
  elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "^armv6")
    set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE armhf)
  elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64)$")
    set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE arm64)
  endif()
endif()

include(CPack)
