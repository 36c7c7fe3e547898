# spillway_install_public_headers(): installs the client library's public
# headers and, of the framing layer's headers, exactly those they include,
# directly or through each other.
#
#   spillway_install_public_headers(
#     ENTRY_HEADERS <abs paths...>   the headers users include
#     INCLUDE_DIRS <dirs...>         where "spillway/..." includes resolve
#     DESTINATION <dir> COMPONENT <name>)
#
# Each header keeps its path under its include directory (spillway/admin.h,
# spillway/common/status.h). Only `#include "spillway/..."` and
# `#include <spillway/...>` lines are followed; one that resolves in none of
# INCLUDE_DIRS stops configuration, naming both headers. Every header read
# becomes a configure dependency, so a new include is picked up by the next
# build.
function(spillway_install_public_headers)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "DESTINATION;COMPONENT" "ENTRY_HEADERS;INCLUDE_DIRS")
  set(pending "")
  foreach(path IN LISTS arg_ENTRY_HEADERS)
    foreach(dir IN LISTS arg_INCLUDE_DIRS)
      cmake_path(IS_PREFIX dir "${path}" NORMALIZE under_dir)
      if(under_dir)
        file(RELATIVE_PATH relative "${dir}" "${path}")
        list(APPEND pending "${relative}")
        break()
      endif()
    endforeach()
  endforeach()

  set(installed "")
  while(pending)
    list(POP_FRONT pending header)
    if(header IN_LIST installed)
      continue()
    endif()
    set(found "")
    foreach(dir IN LISTS arg_INCLUDE_DIRS)
      if(EXISTS "${dir}/${header}")
        set(found "${dir}/${header}")
        break()
      endif()
    endforeach()
    if(NOT found)
      message(FATAL_ERROR "public header ${header} (included by ${included_by_${header}}) "
                          "is in none of: ${arg_INCLUDE_DIRS}")
    endif()
    list(APPEND installed "${header}")
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${found}")
    cmake_path(GET header PARENT_PATH subdir)
    install(FILES "${found}" DESTINATION "${arg_DESTINATION}/${subdir}" COMPONENT ${arg_COMPONENT})

    file(STRINGS "${found}" include_lines REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"]spillway/")
    foreach(line IN LISTS include_lines)
      string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*[<\"]([^>\"]+)[>\"].*$" "\\1" included "${line}")
      set(included_by_${included} "${header}")
      list(APPEND pending "${included}")
    endforeach()
  endwhile()
endfunction()
