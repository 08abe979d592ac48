#pragma once
// The tokenizer a Hugging Face tokenizer.json describes (the fast tokenizer that AutoTokenizer
// loads by default): added tokens, normalizer, pre-tokenizer, model, post-processor and decoder
// read into one Tokenizer. Internal to engine/text/.
#include <memory>

#include "engine/text/tokenizer.hpp"
#include "loaders/model_source.hpp"

namespace invar {

class TokenizerFiles;

// The tokenizer.json tokenizer when `choice` and the folder select it: TokenizerChoice::Json
// always (failing where the folder or its family cannot be read so), Auto where the folder has a
// tokenizer.json and its family's framing comes from it. nullptr: read the slow files.
std::unique_ptr<Tokenizer> make_json_tokenizer_if_chosen(const TokenizerFiles& files, const TokenizerClass& tokenizer_class,
                                                         TokenizerChoice choice);

}  // namespace invar
