# HipkitInstall.cmake: install the header, both libraries, a CMake package
# (find_package(hipkit) -> hipkit::hipkit, hipkit::hipkit_static) and hipkit.pc.
include(CMakePackageConfigHelpers)

install(FILES include/hipkit/hipkit.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/hipkit)
install(TARGETS hipkit hipkit_static EXPORT hipkitTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# The interface-only vendor target carries the static library's dependencies.
install(TARGETS hipkit_vendor_headers EXPORT hipkitTargets)
install(EXPORT hipkitTargets NAMESPACE hipkit:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/hipkit)

configure_package_config_file(cmake/hipkitConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/hipkitConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/hipkit)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/hipkitConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/hipkitConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/hipkitConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/hipkit)

if(HIPKIT_PLATFORM STREQUAL "nvidia")
  set(HIPKIT_PC_PRIVATE_LIBS "-L${CUDAToolkit_LIBRARY_DIR} -lcudart_static -ldl -lrt -lpthread -lstdc++ -lm")
else()
  get_filename_component(_hip_dir ${HIPKIT_AMDHIP64} DIRECTORY)
  set(HIPKIT_PC_PRIVATE_LIBS "-L${_hip_dir} -lamdhip64 -ldl -lpthread -lstdc++ -lm")
endif()
if(OpenMP_CXX_FOUND)
  string(APPEND HIPKIT_PC_PRIVATE_LIBS " ${OpenMP_CXX_FLAGS}")
endif()
# From <libdir>/pkgconfig back up to the prefix ("../.." for lib, "../../.." for lib/x86_64-linux-gnu).
file(RELATIVE_PATH HIPKIT_PC_UP "/root/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/root")
# hipkit.pc: the shared library; hipkit-static.pc: the static one with everything it needs, for
# `cc app.c $(pkg-config --cflags --libs hipkit-static)` (-lhipkit would pick the shared one).
set(HIPKIT_PC_NAME hipkit)
set(HIPKIT_PC_LIBS "-L\${libdir} -lhipkit")
set(HIPKIT_PC_PRIVATE "Libs.private: ${HIPKIT_PC_PRIVATE_LIBS}")
configure_file(cmake/hipkit.pc.in ${CMAKE_CURRENT_BINARY_DIR}/hipkit.pc @ONLY)
set(HIPKIT_PC_NAME hipkit-static)
set(HIPKIT_PC_LIBS "\${libdir}/libhipkit.a ${HIPKIT_PC_PRIVATE_LIBS}")
set(HIPKIT_PC_PRIVATE "")
configure_file(cmake/hipkit.pc.in ${CMAKE_CURRENT_BINARY_DIR}/hipkit-static.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/hipkit.pc ${CMAKE_CURRENT_BINARY_DIR}/hipkit-static.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
