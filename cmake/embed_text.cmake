# invar_raw_string_entries(<out_var> <delimiter> <NAME|EXT> <files>...): for each file a line
#   {"<key>", R"<delimiter>(<contents>)<delimiter>"},
# keyed by its file name (NAME) or its extension without the dot (EXT), for tables compiled into the
# library so that the binary reads no loose files at run time.
function(invar_raw_string_entries out_var delimiter key)
  set(entries "")
  foreach(text_file ${ARGN})
    get_filename_component(name ${text_file} ${key})
    string(REGEX REPLACE "^\\." "" name "${name}")
    file(READ ${text_file} text)
    string(FIND "${text}" ")${delimiter}\"" delimiter_found)
    if(NOT delimiter_found EQUAL -1)
      message(FATAL_ERROR "${text_file} contains the raw-string delimiter )${delimiter}\"")
    endif()
    string(APPEND entries "      {\"${name}\", R\"${delimiter}(${text})${delimiter}\"},\n")
  endforeach()
  set(${out_var} "${entries}" PARENT_SCOPE)
endfunction()
