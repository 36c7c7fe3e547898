# What `cmake --install` puts under the prefix (docs/operations.md,
# "Installing"):
#   bin/spillway-broker, bin/spillway                    component runtime
#   lib/libspillway_client.a, libspillway_common.a,
#   lib/libspillway_client.so (SONAME .so.MAJOR.MINOR),
#   lib/libspillway_testing.a and the broker's archives it links
#   (libspillway_broker_core.a, libspillway_storage.a),
#   include/spillway/..., lib/cmake/Spillway/, lib/pkgconfig/spillway.pc
#                                                        component development
# Install rules added elsewhere without a COMPONENT land in "runtime" and so
# in the Debian package as well (cmake/DebianPackage.cmake), which is where
# the broker's and the CLI's own files (man pages, completions) belong.
include(CMakePackageConfigHelpers)
include(${CMAKE_CURRENT_LIST_DIR}/PublicHeaders.cmake)

install(TARGETS spillway-broker spillway RUNTIME COMPONENT runtime)

# The archive of spillway_common is installed because the static client's
# users link it (Spillway::client brings it, and spillway.pc's Libs.private).
install(TARGETS spillway_client spillway_client_shared spillway_common
        EXPORT SpillwayTargets
        ARCHIVE COMPONENT development
        LIBRARY COMPONENT development NAMELINK_COMPONENT development)
set_target_properties(spillway_client PROPERTIES EXPORT_NAME client)
set_target_properties(spillway_client_shared PROPERTIES EXPORT_NAME client_shared)
set_target_properties(spillway_common PROPERTIES EXPORT_NAME common)

# Spillway::testing (EmbeddedBroker). Its archive holds only embedded_broker.cc;
# the broker itself is in spillway_broker_core, which it links PRIVATE. CMake
# still exports that link as $<LINK_ONLY:...> of a static library, so every
# target of the closure must be in the export set: broker_core, storage and
# asio (an INTERFACE target: Threads), with their outside dependencies
# (OpenSSL, spdlog, nlohmann_json, tomlplusplus, liburing...) found by
# SpillwayConfig.cmake. Their include directories are build-tree only, so no
# broker header is installed.
install(TARGETS spillway_testing spillway_broker_core spillway_storage spillway_asio
        EXPORT SpillwayTargets
        ARCHIVE COMPONENT development)
set_target_properties(spillway_testing PROPERTIES EXPORT_NAME testing)
set_target_properties(spillway_broker_core PROPERTIES EXPORT_NAME broker_core)
set_target_properties(spillway_storage PROPERTIES EXPORT_NAME storage)
set_target_properties(spillway_asio PROPERTIES EXPORT_NAME asio)

file(GLOB spillway_entry_headers CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/client/include/spillway/*.h)
spillway_install_public_headers(
  ENTRY_HEADERS ${spillway_entry_headers}
  INCLUDE_DIRS ${PROJECT_SOURCE_DIR}/client/include ${PROJECT_SOURCE_DIR}/common/include
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  COMPONENT development)
spillway_install_public_headers(
  ENTRY_HEADERS ${PROJECT_SOURCE_DIR}/testing/include/spillway/testing/embedded_broker.h
  INCLUDE_DIRS ${PROJECT_SOURCE_DIR}/testing/include ${PROJECT_SOURCE_DIR}/common/include
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  COMPONENT development)

# The CMake package: find_package(Spillway CONFIG) gives Spillway::client
# (static), Spillway::client_shared, Spillway::testing, and behind them
# Spillway::common and the broker's archives.
# The broker links toml++ only when its CMake package was found (broker/).
if(TARGET tomlplusplus::tomlplusplus)
  set(SPILLWAY_NEEDS_TOMLPLUSPLUS ON)
else()
  set(SPILLWAY_NEEDS_TOMLPLUSPLUS OFF)
endif()
set(spillway_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/Spillway)
install(EXPORT SpillwayTargets NAMESPACE Spillway:: DESTINATION ${spillway_cmake_dir}
        COMPONENT development)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/SpillwayConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/SpillwayConfig.cmake
                              INSTALL_DESTINATION ${spillway_cmake_dir})
# Before 1.0 a minor release may break the API: only the same minor matches.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/SpillwayConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/SpillwayConfig.cmake
              ${PROJECT_BINARY_DIR}/SpillwayConfigVersion.cmake
        DESTINATION ${spillway_cmake_dir} COMPONENT development)

# pkg-config: prefix relative to the .pc file, so that the file is right under
# whatever prefix `cmake --install --prefix` is given.
file(RELATIVE_PATH spillway_pc_to_prefix /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
string(REGEX REPLACE "/$" "" spillway_pc_to_prefix "${spillway_pc_to_prefix}")
configure_file(${CMAKE_CURRENT_LIST_DIR}/spillway.pc.in ${PROJECT_BINARY_DIR}/spillway.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/spillway.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
        COMPONENT development)
