# The layering check (docs/architecture.md): every #include "FOLDER/..." of a source file names a
# folder at or below the file's own layer,
#   core < loaders < models < kernels < engine < eval < capi < tools,
# so that dependencies point one way. Also: config.json is read only in models/ (its one reader,
# hf_config) and loaders/ (which locates and stores it): a ModelSource::config() call or a
# "config.json" file name in code anywhere else fails. Run by CTest as `layering`:
#   cmake -DSOURCE_DIR=<tree> -P tests/layering.cmake
# and fails naming every upward include and every config.json read as FILE:LINE.
cmake_minimum_required(VERSION 3.25)
if(NOT SOURCE_DIR)
  message(FATAL_ERROR "layering.cmake: pass -DSOURCE_DIR=<the source tree>")
endif()

set(INVAR_LAYERS core loaders models kernels engine eval capi tools)
set(INVAR_CONFIG_READERS models loaders)
set(violations "")
set(config_reads "")
set(checked 0)
foreach(layer ${INVAR_LAYERS})
  list(FIND INVAR_LAYERS ${layer} own_rank)
  file(GLOB_RECURSE sources ${SOURCE_DIR}/${layer}/*.hpp ${SOURCE_DIR}/${layer}/*.cpp ${SOURCE_DIR}/${layer}/*.h)
  list(FIND INVAR_CONFIG_READERS ${layer} reads_config)
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
      # Comment lines may name the file; code may not open it or call ModelSource::config().
      if(reads_config EQUAL -1 AND NOT line MATCHES "^[ \t]*//"
         AND line MATCHES "([.>]config\\(\\)|[\"/]config\\.json\")")
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
    string(APPEND report "upward includes (layers: ${INVAR_LAYERS}):${violations}\n")
  endif()
  if(config_reads)
    string(REPLACE ";" "/, " readers "${INVAR_CONFIG_READERS}/")
    string(APPEND report "config.json read outside ${readers}:${config_reads}\n")
  endif()
  message(FATAL_ERROR "${report}")
endif()
message(STATUS "layering: ${checked} files, every include points down, config.json is read only in models/ and loaders/")
