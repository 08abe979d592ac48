# The layering check (docs/architecture.md): every #include "FOLDER/..." of a source file names a
# folder at or below the file's own layer,
#   core < loaders < models < kernels < engine < run < eval < capi < tools,
# so that dependencies point one way, and no file below tools/ includes CLI11 (<CLI/...>): the
# library takes its settings as plain data. Run by CTest as `layering`:
#   cmake -DSOURCE_DIR=<tree> -P tests/layering.cmake
# and fails naming every upward include and every CLI11 include below tools/ as FILE:LINE.
cmake_minimum_required(VERSION 3.25)
if(NOT SOURCE_DIR)
  message(FATAL_ERROR "layering.cmake: pass -DSOURCE_DIR=<the source tree>")
endif()

set(INVAR_LAYERS core loaders models kernels engine run eval capi tools)
set(violations "")
set(checked 0)
foreach(layer ${INVAR_LAYERS})
  list(FIND INVAR_LAYERS ${layer} own_rank)
  file(GLOB_RECURSE sources ${SOURCE_DIR}/${layer}/*.hpp ${SOURCE_DIR}/${layer}/*.cpp ${SOURCE_DIR}/${layer}/*.h)
  foreach(source ${sources})
    math(EXPR checked "${checked} + 1")
    file(STRINGS ${source} lines)
    set(line_number 0)
    foreach(line IN LISTS lines)
      math(EXPR line_number "${line_number} + 1")
      if(line MATCHES "^[ \t]*#[ \t]*include[ \t]*\"([a-z_]+)/")
        list(FIND INVAR_LAYERS ${CMAKE_MATCH_1} included_rank)
        if(included_rank GREATER own_rank)
          file(RELATIVE_PATH shown ${SOURCE_DIR} ${source})
          string(APPEND violations "\n  ${shown}:${line_number}: ${layer}/ includes ${CMAKE_MATCH_1}/ (above it)")
        endif()
      endif()
      if(NOT layer STREQUAL "tools" AND line MATCHES "^[ \t]*#[ \t]*include[ \t]*[<\"]CLI/")
        file(RELATIVE_PATH shown ${SOURCE_DIR} ${source})
        string(APPEND violations "\n  ${shown}:${line_number}: ${layer}/ includes CLI11 (only tools/ may)")
      endif()
    endforeach()
  endforeach()
endforeach()

if(checked EQUAL 0)
  message(FATAL_ERROR "layering.cmake: no source files under ${SOURCE_DIR}")
endif()
if(violations)
  message(FATAL_ERROR "includes against the layering (layers: ${INVAR_LAYERS}):${violations}")
endif()
message(STATUS "layering: ${checked} files, every include points down")
