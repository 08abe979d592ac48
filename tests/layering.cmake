# The layering check (docs/architecture.md): every #include "FOLDER/..." of a source file names its
# own folder or one the file's layer stands on,
#   core < loaders < models < engine < run < eval < capi < tools, and core < backends < engine
# (the compute backends stand on core/ alone, beside loaders/ and models/), so that dependencies
# point one way; above backends/, a backend folder (backends/cpu/, ...) is never included: the
# registry picks one; and no file below tools/ includes CLI11 (<CLI/...>): the library takes its
# settings as plain data. Also: config.json is read only in models/ (its one reader, hf_config) and
# loaders/ (which locates and stores it): a ModelSource::config() call or a "config.json" file name
# in code anywhere else fails. Run by CTest as `layering`:
#   cmake -DSOURCE_DIR=<tree> -P tests/layering.cmake
# and fails naming every include that points elsewhere and every config.json read as FILE:LINE.
cmake_minimum_required(VERSION 3.25)
if(NOT SOURCE_DIR)
  message(FATAL_ERROR "layering.cmake: pass -DSOURCE_DIR=<the source tree>")
endif()

set(INVAR_LAYERS core loaders models backends engine run eval capi tools)
# The layers each layer may include besides itself.
set(below_core "")
set(below_loaders core)
set(below_models core loaders)
set(below_backends core)
set(below_engine core loaders models backends)
set(below_run ${below_engine} engine)
set(below_eval ${below_run} run)
set(below_capi ${below_eval} eval)
set(below_tools ${below_capi} capi)
set(INVAR_CONFIG_READERS models loaders)

set(violations "")
set(config_reads "")
set(checked 0)
foreach(layer ${INVAR_LAYERS})
  file(GLOB_RECURSE sources ${SOURCE_DIR}/${layer}/*.hpp ${SOURCE_DIR}/${layer}/*.cpp ${SOURCE_DIR}/${layer}/*.h)
  list(FIND INVAR_CONFIG_READERS ${layer} reads_config)
  foreach(source ${sources})
    math(EXPR checked "${checked} + 1")
    file(STRINGS ${source} lines)
    set(line_number 0)
    foreach(line IN LISTS lines)
      math(EXPR line_number "${line_number} + 1")
      if(line MATCHES "^[ \t]*#[ \t]*include[ \t]*\"([a-z_]+)/")
        set(included ${CMAKE_MATCH_1})
        list(FIND INVAR_LAYERS ${included} is_layer)
        list(FIND below_${layer} ${included} allowed)
        if(NOT is_layer EQUAL -1 AND NOT included STREQUAL layer AND allowed EQUAL -1)
          file(RELATIVE_PATH shown ${SOURCE_DIR} ${source})
          string(APPEND violations "\n  ${shown}:${line_number}: ${layer}/ includes ${included}/ (not below it)")
        endif()
        # A backend is picked through the registry (backends/registry.hpp), never included by name.
        if(NOT layer STREQUAL "backends" AND line MATCHES "^[ \t]*#[ \t]*include[ \t]*\"(backends/[a-z_]+)/")
          file(RELATIVE_PATH shown ${SOURCE_DIR} ${source})
          string(APPEND violations "\n  ${shown}:${line_number}: ${layer}/ includes ${CMAKE_MATCH_1}/ (use backends/registry.hpp)")
        endif()
      endif()
      if(NOT layer STREQUAL "tools" AND line MATCHES "^[ \t]*#[ \t]*include[ \t]*[<\"]CLI/")
        file(RELATIVE_PATH shown ${SOURCE_DIR} ${source})
        string(APPEND violations "\n  ${shown}:${line_number}: ${layer}/ includes CLI11 (only tools/ may)")
      endif()
      # Comment lines and messages may name the file; code may not open it (a call whose first
      # argument is its name, or a path ending in it) or call ModelSource::config_json().
      if(reads_config EQUAL -1 AND NOT line MATCHES "^[ \t]*//"
         AND line MATCHES "(config_json\\(\\)|\\([ \t]*\"config\\.json\"|/[ \t]*\"config\\.json\"|\"/config\\.json\"\\))")
        file(RELATIVE_PATH shown ${SOURCE_DIR} ${source})
        string(APPEND config_reads "\n  ${shown}:${line_number}: ${layer}/ reads config.json (only models/hf_config may; loaders/ locates it)")
      endif()
    endforeach()
  endforeach()
endforeach()

if(checked EQUAL 0)
  message(FATAL_ERROR "layering.cmake: no source files under ${SOURCE_DIR}")
endif()
if(violations OR config_reads)
  set(report "")
  if(violations)
    string(APPEND report "includes that do not point down (core < loaders < models < engine < run < eval < capi < tools, "
                         "core < backends < engine; CLI11 only in tools/):${violations}\n")
  endif()
  if(config_reads)
    string(REPLACE ";" "/, " readers "${INVAR_CONFIG_READERS}/")
    string(APPEND report "config.json read outside ${readers}:${config_reads}\n")
  endif()
  message(FATAL_ERROR "${report}")
endif()
message(STATUS "layering: ${checked} files, every include points down, config.json is read only in models/ and loaders/")
