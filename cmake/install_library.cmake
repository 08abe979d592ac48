# What `cmake --install` gives embedders (docs/embedding.md): the C API headers, the lean library
# (shared, SONAME libinvar.so.MAJOR, and static), the OpenCL module it loads on first use
# (LIBDIR/invar/libinvar-opencl.so), a CMake package (find_package(invar) →
# invar::invar, the shared library) and a pkg-config file (invar.pc). Both the package and the .pc
# file are relocatable: they find the prefix from where they were installed, so
# `cmake --install BUILD --prefix DIR` works for any DIR.
include(CMakePackageConfigHelpers)

set(INVAR_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/invar)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/include/invar DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS invar_shared EXPORT invarTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS invar_lean ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
if(INVAR_OPENCL)
  install(TARGETS invar_opencl_module LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/invar)
endif()
install(EXPORT invarTargets NAMESPACE invar:: DESTINATION ${INVAR_CMAKE_DIR})

configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/invarConfig.cmake.in
  ${CMAKE_BINARY_DIR}/generated/invarConfig.cmake INSTALL_DESTINATION ${INVAR_CMAKE_DIR})
# An incompatible ABI change raises the major version (and with it the SONAME).
write_basic_package_version_file(${CMAKE_BINARY_DIR}/generated/invarConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/generated/invarConfig.cmake ${CMAKE_BINARY_DIR}/generated/invarConfigVersion.cmake
  DESTINATION ${INVAR_CMAKE_DIR})

# invar.pc: -linvar (the shared library) for ordinary links; `pkg-config --static --libs` adds
# what the static library needs besides: the libraries of invar_objects (top-level CMakeLists.txt),
# the lean library's; MeCab and the OpenCL module are loaded on first use, with dlopen.
file(RELATIVE_PATH INVAR_PC_PREFIX /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
string(REGEX REPLACE "/$" "" INVAR_PC_PREFIX "${INVAR_PC_PREFIX}")
set(INVAR_PC_LIBS "")
foreach(library ${OPENBLAS_LIBRARIES} ${SENTENCEPIECE_LIBRARIES} ${UTF8PROC_LIBRARIES} ${PCRE2_LIBRARIES}
        ${LIBZIP_LIBRARIES} z fmt xxhash)
  string(APPEND INVAR_PC_LIBS " -l${library}")
endforeach()
# oneDNN and the CPU backend run on OpenMP (libgomp); -ldl for the modules loaded on first use and
# for oneDNN's static archive, which calls dlopen too (glibc before 2.34 keeps it in libdl).
string(APPEND INVAR_PC_LIBS " -ldnnl -lgomp -ldl")
configure_file(${CMAKE_SOURCE_DIR}/cmake/invar.pc.in ${CMAKE_BINARY_DIR}/generated/invar.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/generated/invar.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
