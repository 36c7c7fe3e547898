# Writes build_info.cc for `spillway version` (cmake -P, run on every build by
# client/CMakeLists.txt). Inputs: SOURCE_DIR, INPUT (build_info.cc.in),
# OUTPUT, SPILLWAY_VERSION, SPILLWAY_BUILD_TYPE. configure_file leaves OUTPUT
# untouched when nothing changed, so an unchanged commit relinks nothing.
set(SPILLWAY_COMMIT "")
find_program(GIT_EXECUTABLE git)
if(GIT_EXECUTABLE AND EXISTS "${SOURCE_DIR}/.git")
  # --no-optional-locks: --dirty refreshes the index, and must never take
  # the index lock from under someone committing in the same tree.
  execute_process(
    COMMAND "${GIT_EXECUTABLE}" --no-optional-locks -C "${SOURCE_DIR}" describe --always --dirty
            --abbrev=12
    OUTPUT_VARIABLE SPILLWAY_COMMIT
    OUTPUT_STRIP_TRAILING_WHITESPACE
    ERROR_QUIET
    RESULT_VARIABLE git_status)
  if(NOT git_status EQUAL 0)
    set(SPILLWAY_COMMIT "")
  endif()
endif()
configure_file("${INPUT}" "${OUTPUT}" @ONLY)
