# spillway_test_broker: runs the real spillway-broker and spillway binaries
# from tests (see broker_process.h). Included by every test directory that
# needs it; defined once.
if(NOT TARGET spillway_test_broker)
  add_library(spillway_test_broker STATIC ${CMAKE_CURRENT_LIST_DIR}/broker_process.cc)
  target_include_directories(spillway_test_broker PUBLIC ${CMAKE_CURRENT_LIST_DIR})
  target_link_libraries(spillway_test_broker PUBLIC spillway_common)
  target_compile_definitions(spillway_test_broker PRIVATE
    SPILLWAY_BROKER_BINARY="$<TARGET_FILE:spillway-broker>"
    SPILLWAY_CLI_BINARY="$<TARGET_FILE:spillway>")
  # Tests that use it need the binaries built first.
  add_dependencies(spillway_test_broker spillway-broker spillway)
endif()
