#pragma once
// Text quoted from files (tensor names, model_type, vocabulary entries) made safe to print on one
// line: a hostile file must not add lines to a message ("invar: error: …" forged on stderr) or send
// terminal escape sequences.
#include <string>
#include <string_view>

namespace invar {

// C0 controls and DEL as \n, \r, \t or \xNN; C1 controls (U+0080–U+009F, which terminals also
// obey) as \uNNNN; bytes that are not UTF-8 as \xNN; a backslash stays as it is. Everything else,
// non-ASCII letters included, is kept.
std::string printable(std::string_view text);

// A generated text can hold line breaks (byte-level BPE has tokens for them); plain-text output
// turns them into spaces to stay one line per input.
std::string one_line(std::string text);

}  // namespace invar
