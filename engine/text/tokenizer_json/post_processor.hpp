#pragma once
// tokenizer.json's "post_processor" as the framing of one or two sequences: TemplateProcessing,
// BertProcessing, RobertaProcessing, ByteLevel (offsets only: no tokens) and Sequence of these.
// invar frames every sequence as prefix A [middle B] suffix with type ids 0 up to B and one type
// id from B on (engine/text/tokenizer.hpp's SpecialLayout); a template outside that shape fails
// naming its JSON path.
#include "engine/text/tokenizer.hpp"
#include "engine/text/tokenizer_json/node.hpp"

namespace invar::tokenizer_json {

// Special tokens are looked up in `vocab` (the model's vocabulary with the added tokens).
SpecialLayout read_post_processor(const Node& node, const Vocab& vocab);

}  // namespace invar::tokenizer_json
