#include "engine/text/tokenizer.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>

#include "core/error.hpp"
#include "core/log.hpp"
#include "core/printable.hpp"
#include "core/utf8.hpp"
#include "engine/text/tokenizer_files.hpp"
#include "engine/text/tokenizer_json/tokenizer_json.hpp"
#include "loaders/model_source.hpp"
#include "models/hf_config.hpp"

namespace invar {

// ---------------------------------------------------------------------------------------------
// Vocab

void Vocab::add(const std::string& token, std::int32_t id) {
  if (id < 0) fail("token '{}' has negative id {}", token, id);
  token_to_id_.emplace(token, id);
  id_to_token_.emplace(id, token);
  end_ = std::max(end_, static_cast<std::size_t>(id) + 1);
}

std::optional<std::int32_t> Vocab::find(std::string_view token) const {
  auto it = token_to_id_.find(token);
  if (it == token_to_id_.end()) return std::nullopt;
  return it->second;
}

const std::string* Vocab::token(std::int32_t id) const {
  auto it = id_to_token_.find(id);
  return it == id_to_token_.end() ? nullptr : &it->second;
}

// ---------------------------------------------------------------------------------------------
// Tokenizer: the pipeline every slow Hugging Face tokenizer shares.

namespace {

struct Segment {
  std::string_view text;
  const SpecialToken* special = nullptr;
};

// Splits text on the no-split tokens, leftmost first and longest at a position (the behaviour
// of HF's Trie.split for every realistic token set), then lets each special token swallow the
// whitespace next to it as its lstrip / rstrip say.
std::vector<Segment> split_on_special(std::string_view text, const std::vector<SpecialToken>& tokens,
                                      const std::array<bool, 256>& starts) {
  std::vector<Segment> segments;
  std::size_t start = 0, pos = 0;
  while (pos < text.size()) {
    if (!starts[static_cast<unsigned char>(text[pos])]) {
      ++pos;
      continue;
    }
    const SpecialToken* match = nullptr;
    for (const auto& token : tokens) {  // longest first
      if (!token.content.empty() && text.compare(pos, token.content.size(), token.content) == 0) {
        match = &token;
        break;
      }
    }
    if (!match) {
      ++pos;
      continue;
    }
    if (pos > start) segments.push_back({text.substr(start, pos - start)});
    segments.push_back({text.substr(pos, match->content.size()), match});
    pos += match->content.size();
    start = pos;
  }
  if (start < text.size() || segments.empty()) segments.push_back({text.substr(start)});
  for (std::size_t i = 0; i < segments.size(); ++i) {
    const SpecialToken* special = segments[i].special;
    if (!special) continue;
    if (special->rstrip && i + 1 < segments.size() && !segments[i + 1].special)
      segments[i + 1].text = python_lstrip(segments[i + 1].text);
    if (special->lstrip && i > 0 && !segments[i - 1].special) segments[i - 1].text = python_rstrip(segments[i - 1].text);
  }
  return segments;
}

}  // namespace

std::vector<std::string> Tokenizer::tokenize(std::string_view text, Side side) const {
  auto prepared = prepare_text(text);
  std::vector<std::string> pieces;
  for (const auto& segment : split_on_special(prepared, no_split_, no_split_starts_)) {
    if (segment.text.empty()) continue;
    if (segment.special) {
      pieces.push_back(segment.special->content);
      continue;
    }
    auto split = split_text(segment.text, side);
    pieces.insert(pieces.end(), std::make_move_iterator(split.begin()), std::make_move_iterator(split.end()));
  }
  return pieces;
}

std::vector<std::int32_t> Tokenizer::text_ids(std::string_view text, Side side) const {
  auto pieces = tokenize(text, side);
  std::vector<std::int32_t> ids;
  ids.reserve(pieces.size());
  for (const auto& piece : pieces) ids.push_back(token_to_id(piece, side));
  return ids;
}

Encoding Tokenizer::frame(std::vector<std::int32_t> a, const std::vector<std::int32_t>* b_in, std::size_t max_length,
                          Side side) const {
  const auto& framing = layout(side);
  std::vector<std::int32_t> b = b_in ? *b_in : std::vector<std::int32_t>{};
  if (max_length > 0) {
    // truncation=longest_first: drop the last token of the longer sequence (of B on ties) until
    // text and special tokens fit.
    std::size_t specials = framing.prefix.size() + framing.suffix.size() + (b_in ? framing.middle.size() : 0);
    if (max_length <= specials)
      fail("cannot truncate to {} tokens: {} adds {} special tokens", max_length, class_->name, specials);
    std::size_t total = a.size() + b.size() + specials;
    for (; total > max_length; --total) {
      if (a.size() > b.size())
        a.pop_back();
      else
        b.pop_back();
    }
  }
  Encoding out;
  auto add = [&](const std::vector<std::int32_t>& ids, bool special, std::int32_t type) {
    out.ids.insert(out.ids.end(), ids.begin(), ids.end());
    out.type_ids.insert(out.type_ids.end(), ids.size(), type);
    out.special_mask.insert(out.special_mask.end(), ids.size(), special ? 1 : 0);
  };
  // T5's _add_eos_if_not_present: a sequence already ending in the closing token gets none.
  auto closing = [&](const std::vector<std::int32_t>& sequence, const std::vector<std::int32_t>& block) {
    bool present = framing.eos_if_absent && !sequence.empty() && !block.empty() && sequence.back() == block.front();
    return present ? std::vector<std::int32_t>{} : block;
  };
  std::int32_t second = framing.segment_type_ids ? 1 : 0;
  add(framing.prefix, true, 0);
  add(a, false, 0);
  if (b_in) {
    add(closing(a, framing.middle), true, 0);
    add(b, false, second);
    add(closing(b, framing.suffix), true, second);
  } else {
    add(closing(a, framing.suffix), true, 0);
  }
  out.tokens.reserve(out.ids.size());
  for (auto id : out.ids) out.tokens.push_back(id_to_token(id, side));
  return out;
}

Encoding Tokenizer::encode(std::string_view text, std::size_t max_length) const {
  return frame(text_ids(text, Side::Source), nullptr, max_length, Side::Source);
}

Encoding Tokenizer::encode_pair(std::string_view a, std::string_view b, std::size_t max_length) const {
  auto second = text_ids(b, Side::Source);
  return frame(text_ids(a, Side::Source), &second, max_length, Side::Source);
}

Encoding Tokenizer::encode_target(std::string_view text, std::size_t max_length) const {
  return frame(text_ids(text, Side::Target), nullptr, max_length, Side::Target);
}

BatchEncoding Tokenizer::pad(std::span<const Encoding> encodings) const {
  std::size_t longest = 0;
  for (const auto& encoding : encodings) longest = std::max(longest, encoding.ids.size());
  BatchEncoding batch;
  if (longest > 0 && !encodings.empty()) {
    bool ragged = std::any_of(encodings.begin(), encodings.end(), [&](const Encoding& e) { return e.ids.size() < longest; });
    if (ragged && !pad_id())
      fail("{}: {} has no padding token, so sequences cannot be batched", files_path_, class_->name);
  }
  std::int32_t pad = pad_id().value_or(0);
  for (const auto& encoding : encodings) {
    std::size_t n = encoding.ids.size();
    auto ids = encoding.ids;
    auto types = encoding.type_ids;
    std::vector<std::int32_t> mask(n, 1);
    ids.resize(longest, pad);
    types.resize(longest, 0);
    mask.resize(longest, 0);
    batch.ids.push_back(std::move(ids));
    batch.type_ids.push_back(std::move(types));
    batch.attention_mask.push_back(std::move(mask));
    batch.lengths.push_back(n);
  }
  return batch;
}

BatchEncoding Tokenizer::encode_batch(std::span<const std::string> texts, std::size_t max_length) const {
  std::vector<Encoding> encodings;
  encodings.reserve(texts.size());
  for (const auto& text : texts) encodings.push_back(encode(text, max_length));
  return pad(encodings);
}

std::string clean_up_tokenization(std::string text) {
  static const std::pair<std::string_view, std::string_view> kRules[] = {
      {" .", "."}, {" ?", "?"}, {" !", "!"}, {" ,", ","}, {" ' ", "'"}, {" n't", "n't"},
      {" 'm", "'m"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"}};
  for (const auto& [from, to] : kRules) python_replace(text, from, to);
  return text;
}

std::string Tokenizer::decode(std::span<const std::int32_t> ids, bool skip_special_tokens, Side side) const {
  std::size_t size = decodable_ids(side);
  std::vector<std::string> texts;
  std::vector<std::string> run;
  auto flush = [&] {
    if (!run.empty()) texts.push_back(tokens_to_text(run, side));
    run.clear();
  };
  for (auto id : ids) {
    if (id < 0 || static_cast<std::size_t>(id) >= size)
      fail("{}: token id {} is outside the vocabulary of {} (0..{})", files_path_, id, class_->name, size - 1);
    if (skip_special_tokens && is_special(id)) continue;
    // Added tokens are not text of the base vocabulary: HF keeps them as separate words.
    auto index = static_cast<std::size_t>(id);
    if (index >= base_vocab_size() && index - base_vocab_size() < added_by_id_.size()) {
      flush();
      texts.push_back(added_by_id_[index - base_vocab_size()]);
    } else {
      run.push_back(id_to_token(id, side));
    }
  }
  flush();
  std::string text;
  for (std::size_t i = 0; i < texts.size(); ++i) text += (i ? " " : "") + texts[i];
  return clean_up_tokenization(std::move(text));
}

std::optional<std::int32_t> Tokenizer::find_token(std::string_view token, Side side) const {
  if (!added_.empty())
    if (auto it = added_.find(std::string(token)); it != added_.end()) return it->second;
  return vocab(side).find(token);
}

std::int32_t Tokenizer::token_to_id(std::string_view token, Side side) const {
  if (auto id = find_token(token, side)) return *id;
  return require_special(specials_.unk, "unknown");
}

std::string Tokenizer::id_to_token(std::int32_t id, Side side) const {
  if (id >= 0 && static_cast<std::size_t>(id) >= base_vocab_size() &&
      static_cast<std::size_t>(id) - base_vocab_size() < added_by_id_.size())
    return added_by_id_[static_cast<std::size_t>(id) - base_vocab_size()];
  if (const auto* token = vocab(side).token(id)) return *token;
  // Hugging Face's decoder.get(index, unk_token).
  return specials_.unk ? specials_.unk->content : std::string();
}

std::size_t Tokenizer::vocab_size() const { return base_vocab_size() + added_by_id_.size(); }

bool Tokenizer::is_special(std::int32_t id) const {
  return std::binary_search(special_ids_.begin(), special_ids_.end(), id);
}


bool Tokenizer::is_special_token(std::string_view token) const {
  return std::any_of(all_specials_.begin(), all_specials_.end(),
                     [&](const SpecialToken& special) { return special.content == token; });
}

std::optional<std::int32_t> Tokenizer::special_id(const std::optional<SpecialToken>& token) const {
  if (!token) return std::nullopt;
  if (auto id = find_token(token->content)) return id;
  if (specials_.unk) return find_token(specials_.unk->content);
  return std::nullopt;
}

std::int32_t Tokenizer::require_special(const std::optional<SpecialToken>& token, std::string_view name) const {
  if (auto id = special_id(token)) return *id;
  fail("{}: {} has no {} token (none is named by its files, or the vocabulary lacks it)", files_path_,
       class_->name, name);
}

std::int32_t Tokenizer::lang_id(std::string_view code) const {
  fail("{}: {} has no language codes (asked for '{}')", files_path_, class_->name, code);
}

void Tokenizer::set_source_language(std::string_view code) {
  fail("{}: {} has no source language to set (asked for '{}')", files_path_, class_->name, code);
}

void Tokenizer::set_target_language(std::string_view code) {
  fail("{}: {} has no target language to set (asked for '{}')", files_path_, class_->name, code);
}

void Tokenizer::init_base(const TokenizerClass& tokenizer_class, SpecialTokens specials, const TokenizerFiles& files) {
  class_ = &tokenizer_class;
  files_path_ = files.path();
  specials_ = std::move(specials);

  std::vector<SpecialToken> all;
  auto collect = [&](const std::optional<SpecialToken>& token) {
    if (!token) return;
    for (const auto& seen : all)
      if (seen.content == token->content) return;
    all.push_back(*token);
  };
  for (const auto* token : {&specials_.bos, &specials_.eos, &specials_.unk, &specials_.sep, &specials_.pad,
                            &specials_.cls, &specials_.mask})
    collect(*token);
  for (const auto& token : specials_.additional) collect(token);

  auto add_token = [&](const std::string& content) {
    auto id = static_cast<std::int32_t>(vocab_size());
    added_.emplace(content, id);
    added_by_id_.push_back(content);
  };
  std::vector<SpecialToken> no_split = all;
  // added_tokens.json: user-added tokens, which must continue the vocabulary in order.
  auto added = files.added_tokens();
  if (added.is_object()) {
    std::vector<std::pair<std::int64_t, std::string>> by_id;
    for (const auto& [token, id] : added.items()) {
      if (!id.is_number_integer()) fail("{}: added_tokens.json: id of '{}' is not an integer", files.path(), token);
      by_id.emplace_back(id.get<std::int64_t>(), token);
    }
    std::sort(by_id.begin(), by_id.end());
    for (const auto& [id, token] : by_id) {
      if (find_token(token)) continue;
      if (id != static_cast<std::int64_t>(vocab_size()))
        fail("{}: added_tokens.json: '{}' has id {}, but the vocabulary continues at {}", files.path(), token, id,
             vocab_size());
      add_token(token);
      // (A named capture: clang before 16 cannot capture a structured binding.)
      bool special =
          std::any_of(all.begin(), all.end(), [&added = token](const SpecialToken& t) { return t.content == added; });
      if (!special) no_split.push_back(plain_token(token));
    }
  }
  // sanitize_special_tokens: special tokens the vocabulary lacks get the next free ids.
  for (const auto& token : all)
    if (!find_token(token.content) && !(specials_.unk && token.content == specials_.unk->content))
      add_token(token.content);

  all_specials_ = all;
  std::stable_sort(no_split.begin(), no_split.end(),
                   [](const SpecialToken& x, const SpecialToken& y) { return x.content.size() > y.content.size(); });
  no_split_ = std::move(no_split);
  no_split_starts_.fill(false);
  for (const auto& token : no_split_)
    if (!token.content.empty()) no_split_starts_[static_cast<unsigned char>(token.content[0])] = true;
  special_ids_.clear();
  for (const auto& token : all)
    if (auto id = special_id(token)) special_ids_.push_back(*id);
  std::sort(special_ids_.begin(), special_ids_.end());
  special_ids_.erase(std::unique(special_ids_.begin(), special_ids_.end()), special_ids_.end());

  const auto& tokenizer_config = files.tokenizer_config();
  // HF writes VERY_LARGE_INTEGER (1e30) when a model has no limit.
  if (auto it = tokenizer_config.find("model_max_length");
      it != tokenizer_config.end() && it->is_number() && it->get<double>() > 0 && it->get<double>() < 1e9)
    model_max_length_ = static_cast<std::size_t>(it->get<double>());
}

// ---------------------------------------------------------------------------------------------
// TokenizerFiles

namespace {

nlohmann::json parse_json_file(const ModelSource& source, const std::string& name) {
  try {
    return nlohmann::json::parse(source.read_file(name));
  } catch (const nlohmann::json::exception& e) {
    fail("{}: {} is not valid JSON: {}", source.path(), name, e.what());
  }
}

}  // namespace

TokenizerFiles::TokenizerFiles(const ModelSource& source, const ModelConfig& model) : source_(source), model_(model) {
  tokenizer_config_ = has("tokenizer_config.json") ? parse_json_file(source, "tokenizer_config.json")
                                                   : nlohmann::json::object();
  special_tokens_map_ = has("special_tokens_map.json") ? parse_json_file(source, "special_tokens_map.json")
                                                       : nlohmann::json::object();
  if (!tokenizer_config_.is_object()) fail("{}: tokenizer_config.json is not a JSON object", path());
  if (!special_tokens_map_.is_object()) fail("{}: special_tokens_map.json is not a JSON object", path());
}

const std::string& TokenizerFiles::path() const { return source_.path(); }

bool TokenizerFiles::has(const std::string& name) const { return source_.has_file(name); }

std::string TokenizerFiles::read(const std::string& name, std::string_view why) const {
  if (!has(name)) fail("{}: missing tokenizer file {} ({})", path(), name, why);
  return source_.read_file(name);
}

nlohmann::json TokenizerFiles::read_json(const std::string& name, std::string_view why) const {
  auto text = read(name, why);
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    fail("{}: {} is not valid JSON: {}", path(), name, e.what());
  }
}

bool TokenizerFiles::flag(const char* key, bool fallback) const {
  auto it = tokenizer_config_.find(key);
  if (it == tokenizer_config_.end() || it->is_null()) return fallback;
  if (!it->is_boolean()) fail("{}: tokenizer_config.json: '{}' must be true or false", path(), key);
  return it->get<bool>();
}

std::optional<std::string> TokenizerFiles::string(const char* key) const {
  auto it = tokenizer_config_.find(key);
  if (it == tokenizer_config_.end() || it->is_null()) return std::nullopt;
  if (!it->is_string()) fail("{}: tokenizer_config.json: '{}' must be a string", path(), key);
  return it->get<std::string>();
}

std::int64_t TokenizerFiles::integer(const char* key, std::int64_t fallback, std::int64_t limit) const {
  auto it = tokenizer_config_.find(key);
  if (it == tokenizer_config_.end() || it->is_null()) return fallback;
  if (!it->is_number_integer() || it->get<std::int64_t>() < 0 || it->get<std::int64_t>() > limit)
    fail("{}: tokenizer_config.json: '{}' must be an integer from 0 to {}", path(), key, limit);
  return it->get<std::int64_t>();
}

nlohmann::json TokenizerFiles::added_tokens() const {
  if (!has("added_tokens.json")) return nullptr;
  return read_json("added_tokens.json", "added tokens");
}

std::size_t TokenizerFiles::read_vocab(const std::string& name, std::string_view why, Vocab& vocab,
                                      Side side) const {
  const auto json = read_json(name, why);
  if (!json.is_object()) fail("{}: {} must map tokens to ids", path(), name);
  // config.json's sizes, which the model checks against its weights when it loads.
  const std::int64_t limit = side == Side::Target ? model_.target_vocab_size : model_.vocab_size;
  // Such ids are a limit's worth of sizing: far beyond it they could only come from a broken file.
  const std::int64_t bound = limit + static_cast<std::int64_t>(json.size());
  std::vector<std::string> beyond;
  for (const auto& [token, id] : json.items()) {
    if (!id.is_number_integer() || id.get<std::int64_t>() < 0)
      fail("{}: {}: the id of '{}' is not a non-negative integer", path(), name, token);
    if (id.get<std::int64_t>() >= bound)
      fail("{}: {}: the id of '{}' is {}, beyond the model's vocabulary of {} (config.json) and the file's {} tokens",
           path(), name, token, id.get<std::int64_t>(), limit, json.size());
    // Hugging Face loads such a folder (facebook/bart-large-cnn: vocab_size 50264, <mask> = 50264)
    // and feeds such a token to no model unless a text holds it: the model refuses that text.
    if (id.get<std::int64_t>() >= limit) beyond.push_back(fmt::format("'{}' = {}", token, id.get<std::int64_t>()));
    vocab.add(token, id.get<std::int32_t>());
  }
  warn_beyond_vocabulary(name, beyond, limit);
  return json.size();
}

void TokenizerFiles::warn_beyond_vocabulary(const std::string& name, const std::vector<std::string>& beyond,
                                            std::int64_t limit) const {
  if (beyond.empty()) return;
  warn(fmt::format("{}: {}: {} token{} beyond the model's vocabulary of {} (config.json): {}; a text that holds "
                   "one is refused",
                   path(), name, beyond.size(), beyond.size() == 1 ? " has an id" : "s have ids", limit,
                   fmt::join(beyond.begin(), beyond.begin() + std::min<std::size_t>(beyond.size(), 5), ", ")));
}

SpecialToken plain_token(std::string content) { return {std::move(content), true, true}; }

SpecialToken added_token(std::string content, bool lstrip, bool rstrip) { return {std::move(content), lstrip, rstrip}; }

namespace {

const char* const kSpecialKeys[] = {"bos_token", "eos_token", "unk_token", "sep_token",
                                    "pad_token", "cls_token", "mask_token"};

std::optional<SpecialToken>& special_slot(SpecialTokens& tokens, std::string_view key) {
  if (key == "bos_token") return tokens.bos;
  if (key == "eos_token") return tokens.eos;
  if (key == "unk_token") return tokens.unk;
  if (key == "sep_token") return tokens.sep;
  if (key == "pad_token") return tokens.pad;
  if (key == "cls_token") return tokens.cls;
  return tokens.mask;
}

// A JSON special token: a string (plain, or wrapped as the family's __init__ does) or an
// AddedToken dict.
SpecialToken parse_special(const nlohmann::json& value, bool wrap, bool is_mask, const std::string& where) {
  if (value.is_string()) {
    auto content = value.get<std::string>();
    if (!wrap) return plain_token(std::move(content));
    return added_token(std::move(content), is_mask, false);
  }
  if (value.is_object() && value.contains("content") && value["content"].is_string()) {
    return added_token(value["content"].get<std::string>(), value.value("lstrip", false), value.value("rstrip", false));
  }
  fail("{}: a special token must be a string or an AddedToken object", where);
}

void overlay(SpecialTokens& tokens, const nlohmann::json& json, TokenizerFiles::Wrap wrap, const std::string& where) {
  for (const char* key : kSpecialKeys) {
    auto it = json.find(key);
    if (it == json.end()) continue;
    auto& slot = special_slot(tokens, key);
    if (it->is_null()) {
      slot.reset();
      continue;
    }
    bool is_mask = std::string_view(key) == "mask_token";
    bool wrapped = wrap == TokenizerFiles::Wrap::All || (wrap == TokenizerFiles::Wrap::MaskOnly && is_mask);
    slot = parse_special(*it, wrapped, is_mask, where + ": " + key);
  }
  if (auto it = json.find("additional_special_tokens"); it != json.end() && !it->is_null()) {
    if (!it->is_array()) fail("{}: additional_special_tokens must be a list", where);
    tokens.additional.clear();
    for (const auto& value : *it)
      tokens.additional.push_back(parse_special(value, false, false, where + ": additional_special_tokens"));
  }
}

}  // namespace

SpecialTokens TokenizerFiles::special_tokens(SpecialTokens defaults, Wrap wrap) const {
  overlay(defaults, tokenizer_config_, wrap, path() + "/tokenizer_config.json");
  // from_pretrained sets these on the finished tokenizer: plain strings stay plain.
  overlay(defaults, special_tokens_map_, Wrap::None, path() + "/special_tokens_map.json");
  return defaults;
}

// ---------------------------------------------------------------------------------------------
// The factory

namespace {

// The tokenizer class a folder was saved with, as AutoTokenizer picks it: tokenizer_config.json's
// tokenizer_class (a RoBERTa-architecture model may carry a BERT tokenizer), else config.json's
// (BARThez and mBART-50 checkpoints name theirs only there), else the model family's. A class
// invar does not implement is an error, never the family's default instead. The fast variant
// reads tokenizer.json where the folder has one (--tokenizer), else the same slow files;
// PreTrainedTokenizerFast (the generic class) reads tokenizer.json alone.
const TokenizerClass& tokenizer_class_of(const TokenizerFiles& files) {
  const auto named = [&](const std::string& name, const std::string& where) -> const TokenizerClass& {
    if (const TokenizerClass* found = find_tokenizer_class(name)) return *found;
    fail("{}: tokenizer_class '{}' is not supported (supported: {})", where, printable(name), tokenizer_class_names());
  };
  if (auto name = files.string("tokenizer_class")) return named(*name, files.path() + "/tokenizer_config.json");
  if (const auto& name = files.model().tokenizer_class) return named(*name, files.model().where);
  return family(files.model().family).tokenizer;
}

std::unique_ptr<Tokenizer> read_tokenizer(const ModelSource& source, const ModelConfig& model) {
  const TokenizerFiles files(source, model);
  const TokenizerClass& tokenizer_class = tokenizer_class_of(files);
  if (auto fast = make_json_tokenizer_if_chosen(files, tokenizer_class, source.tokenizer_choice())) return fast;
  switch (tokenizer_class.algorithm) {
    case TokenizerAlgorithm::WordPiece:
      return make_wordpiece_tokenizer(files, tokenizer_class);
    case TokenizerAlgorithm::SentencePiece:
      return make_sentencepiece_tokenizer(files, tokenizer_class);
    case TokenizerAlgorithm::ByteLevelBpe:
      return make_bpe_tokenizer(files, tokenizer_class);
    case TokenizerAlgorithm::MosesBpe:
      return make_fsmt_tokenizer(files, tokenizer_class);
    case TokenizerAlgorithm::JsonOnly:
      fail("{}: {} is read from tokenizer.json only (it has no slow tokenizer files){}", files.path(),
           tokenizer_class.name, files.has("tokenizer.json") ? ": leave out --tokenizer slow" : ", and the folder has none");
  }
  fail("{}: unknown tokenizer algorithm", files.path());
}

}  // namespace

std::unique_ptr<Tokenizer> make_tokenizer(const ModelSource& source) {
  try {
    return read_tokenizer(source, load_model_config(source, SizeCheck::None));
  } catch (const std::bad_alloc&) {
    fail("{}: out of memory while reading the tokenizer files", source.path());
  }
}

}  // namespace invar
