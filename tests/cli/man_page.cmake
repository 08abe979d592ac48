# The man page (cmake/shell_files.cmake): built with help2man from `invar --help`, it names the
# version and every command that --help lists, and groff reads it without a warning.
# cmake -DBUILD_DIR=... -DINVAR=... -P man_page.cmake
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR} --target invar_shell_files
  RESULT_VARIABLE built OUTPUT_VARIABLE log ERROR_VARIABLE log)
if(NOT built EQUAL 0)
  message(FATAL_ERROR "building the man page failed:\n${log}")
endif()
set(page ${BUILD_DIR}/share/man/man1/invar.1)
file(READ ${page} text)

execute_process(COMMAND ${INVAR} --version OUTPUT_VARIABLE version OUTPUT_STRIP_TRAILING_WHITESPACE)
string(REPLACE "invar " "" version "${version}")
if(NOT text MATCHES "\\.TH INVAR \"1\" \"[^\"]*\" \"invar ${version}\"")
  message(FATAL_ERROR "${page}: no .TH line for invar ${version}")
endif()

execute_process(COMMAND ${INVAR} --help OUTPUT_VARIABLE help)
string(REGEX MATCH "Subcommands:\n.*" commands "${help}")
string(REGEX MATCHALL "\n  [a-z0-9-]+" commands "${commands}")
list(LENGTH commands count)
if(count LESS 20)
  message(FATAL_ERROR "invar --help lists ${count} commands:\n${help}")
endif()
foreach(command ${commands})
  string(STRIP "${command}" command)
  string(REPLACE "-" "\\-" escaped "${command}")
  string(FIND "${text}" "\n${escaped}\n" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${page} does not list the command ${command}")
  endif()
endforeach()

execute_process(COMMAND groff -man -ww -z ${page} RESULT_VARIABLE read ERROR_VARIABLE warnings)
if(NOT read EQUAL 0 OR NOT warnings STREQUAL "")
  message(FATAL_ERROR "groff on ${page}: ${warnings}")
endif()
