#pragma once
// Which files of a model folder are carried, and how file names read from a model are checked.
#include <string>

namespace invar {

// Whether a file of a model folder (path relative to it) is an auxiliary file (config, tokenizer,
// sentence-transformers modules, ...) rather than weights in any framework's format or a hidden
// file, which are not carried.
bool is_auxiliary_file(const std::string& relative);

// `name` as a path inside a model folder or archive: relative, no ".." component, no NUL or
// backslash. Fails naming `where` otherwise, so no file name read from a model reaches outside it.
void check_relative_path(const std::string& name, const std::string& where);

}  // namespace invar
