#include "engine/text/tokenizer_json/tokenizer_json.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.hpp"
#include "engine/text/tokenizer_files.hpp"
#include "engine/text/tokenizer_json/added_tokens.hpp"
#include "engine/text/tokenizer_json/decoders.hpp"
#include "engine/text/tokenizer_json/models.hpp"
#include "engine/text/tokenizer_json/normalizers.hpp"
#include "engine/text/tokenizer_json/post_processor.hpp"
#include "engine/text/tokenizer_json/pre_tokenizers.hpp"
#include "models/hf_config.hpp"

namespace invar {
namespace {

using namespace tokenizer_json;

const char* const kFile = "tokenizer.json";

// The spellings the families give each special token, for the roles a folder's
// tokenizer_config.json / special_tokens_map.json leave unnamed.
struct Role {
  std::optional<SpecialToken> SpecialTokens::*slot;
  std::vector<const char*> spellings;
};

const std::vector<Role>& roles() {
  static const std::vector<Role> table = {
      {&SpecialTokens::bos, {"<s>"}},          {&SpecialTokens::eos, {"</s>"}},
      {&SpecialTokens::unk, {"[UNK]", "<unk>"}}, {&SpecialTokens::sep, {"[SEP]", "</s>"}},
      {&SpecialTokens::pad, {"[PAD]", "<pad>"}}, {&SpecialTokens::cls, {"[CLS]", "<s>"}},
      {&SpecialTokens::mask, {"[MASK]", "<mask>"}}};
  return table;
}

// Checks a truncation or padding block against what invar does: it truncates longest_first on
// the right (to the model's positions or a command's limit) and pads batches on the right.
void check_truncation(const Node& node) {
  if (node.is_null()) return;
  if (node.optional_string("direction").value_or("Right") != "Right")
    node.unsupported("direction", "invar truncates on the right");
  if (node.optional_string("strategy").value_or("LongestFirst") != "LongestFirst")
    node.unsupported("strategy", "invar truncates longest_first");
  if (node.has("stride") && node["stride"].integer(0, INT32_MAX) != 0)
    node.unsupported("stride", "invar truncates without overflowing windows");
}

class JsonTokenizer final : public Tokenizer {
 public:
  JsonTokenizer(const TokenizerFiles& files, const TokenizerClass& tokenizer_class) {
    const std::string where = files.path() + "/" + kFile;
    nlohmann::json json;
    try {
      json = nlohmann::json::parse(files.read(kFile, "the fast tokenizer"));
    } catch (const nlohmann::json::exception& e) {
      fail("{}: not valid JSON: {}", where, e.what());
    }
    const Node root(json, where, "");
    if (!json.is_object()) root.fail_here("must be a JSON object");
    // config.json's vocabulary size: ids below it have an embedding row. Ids beyond it are loaded
    // with a warning, as the slow files' are (a text that holds one is refused), up to the file's
    // own count beyond it: further out they could only come from a broken file.
    const auto limit = files.model().vocab_size;
    if (limit <= 0) fail("{}: vocab_size must be positive", files.model().where);
    const auto count = [&](const char* key, const char* inner) -> std::int64_t {
      const auto it = json.find(key);
      if (it == json.end() || (!it->is_object() && !it->is_array())) return 0;
      if (!inner) return static_cast<std::int64_t>(it->size());
      const auto in = it->find(inner);
      return in == it->end() ? 0 : static_cast<std::int64_t>(in->size());
    };
    const std::int64_t bound = limit + count("added_tokens", nullptr) + count("model", "vocab");

    added_ = AddedTokens(root["added_tokens"].is_null() ? Node(nlohmann::json::array(), where, "added_tokens")
                                                        : root["added_tokens"],
                         bound);
    model_ = make_model(root["model"], bound);
    // Added tokens first: Hugging Face looks them up before the model's vocabulary.
    for (const auto& token : added_.all()) vocab_.add(token.content, token.id);
    std::vector<std::string> beyond;
    for (const auto& token : added_.all())
      if (token.id >= limit) beyond.push_back(fmt::format("'{}' = {}", token.content, token.id));
    for (std::size_t id = 0; id < model_->vocab().size(); ++id)
      if (const auto* token = model_->vocab().token(static_cast<std::int32_t>(id))) {
        vocab_.add(*token, static_cast<std::int32_t>(id));
        if (static_cast<std::int64_t>(id) >= limit &&
            std::none_of(added_.all().begin(), added_.all().end(),
                         [&](const AddedToken& added) { return added.content == *token; }))
          beyond.push_back(fmt::format("'{}' = {}", *token, id));
      }
    files.warn_beyond_vocabulary(kFile, beyond, limit);
    normalizer_ = make_normalizer(root["normalizer"]);
    pre_tokenizer_ = make_pre_tokenizer(root["pre_tokenizer"]);
    decoder_ = make_decoder(root["decoder"]);
    layout_ = read_post_processor(root["post_processor"], vocab_);
    check_truncation(root["truncation"]);
    const auto padding = root["padding"];
    if (!padding.is_null()) {
      if (padding.optional_string("direction").value_or("Right") != "Right")
        padding.unsupported("direction", "invar pads on the right");
      if (padding.has("pad_type_id") && padding["pad_type_id"].integer(0, INT32_MAX) != 0)
        padding.unsupported("pad_type_id", "invar pads token types with 0");
    }
    algorithm_ = fmt::format("tokenizer.json {}", json["model"].value("type", std::string("model")));
    init_base(tokenizer_class, special_tokens(files, padding), files);
  }

  std::string_view algorithm() const override { return algorithm_; }

  std::vector<std::string> tokenize(std::string_view text, Side) const override {
    std::vector<std::string> tokens;
    bool at_start = true;
    for (const auto& raw : added_.split(text, false)) {
      if (raw.token) {
        tokens.push_back(raw.token->content);
      } else {
        const auto normalized = normalizer_ ? normalizer_->apply(std::string(raw.text)) : std::string(raw.text);
        for (const auto& piece : added_.split(normalized, true)) {
          if (piece.token)
            tokens.push_back(piece.token->content);
          else if (!piece.text.empty())
            model_words(piece.text, at_start, tokens);
          at_start = false;
        }
      }
      at_start = false;
    }
    return tokens;
  }

 protected:
  std::vector<std::string> split_text(std::string_view text, Side) const override {
    std::vector<std::string> tokens;
    model_words(text, true, tokens);
    return tokens;
  }

  std::string tokens_to_text(const std::vector<std::string>& tokens, Side) const override {
    std::string text;
    if (!decoder_) {
      for (std::size_t i = 0; i < tokens.size(); ++i) text += (i ? " " : "") + tokens[i];
      return text;
    }
    for (const auto& part : decoder_->decode_chain(tokens)) text += part;
    return text;
  }

  const Vocab& vocab(Side) const override { return vocab_; }
  const SpecialLayout& layout(Side) const override { return layout_; }
  std::size_t base_vocab_size() const override { return vocab_.size(); }

 private:
  void model_words(std::string_view text, bool at_start, std::vector<std::string>& tokens) const {
    if (!pre_tokenizer_) {
      model_->tokenize(text, tokens);
      return;
    }
    std::vector<std::string> words;
    pre_tokenizer_->split(text, at_start, words);
    for (const auto& word : words) model_->tokenize(word, tokens);
  }

  // The special tokens' roles: the model's unknown token and the padding block's token, then the
  // added special tokens spelled as the families spell each role; tokenizer_config.json and
  // special_tokens_map.json override them as from_pretrained does. Every special added token
  // is special (skipped by decode).
  SpecialTokens special_tokens(const TokenizerFiles& files, const Node& padding) const {
    SpecialTokens defaults;
    auto plain = [](const std::string& content) { return SpecialToken{content, false, false}; };
    for (const auto& role : roles())
      for (const char* spelling : role.spellings) {
        const bool present = std::any_of(added_.all().begin(), added_.all().end(),
                                         [&](const AddedToken& t) { return t.special && t.content == spelling; });
        if (present && !(defaults.*role.slot)) defaults.*role.slot = plain(spelling);
      }
    if (!model_->unk_token().empty()) defaults.unk = plain(model_->unk_token());
    if (!padding.is_null() && padding.has("pad_token")) {
      const auto token = padding.string("pad_token");
      if (!vocab_.find(token)) padding["pad_token"].fail_here(fmt::format("'{}' is not in the vocabulary", token));
      defaults.pad = plain(token);
    }
    auto specials = files.special_tokens(defaults, TokenizerFiles::Wrap::None);
    for (const auto& token : added_.all())
      if (token.special && std::none_of(specials.additional.begin(), specials.additional.end(),
                                        [&](const SpecialToken& t) { return t.content == token.content; }))
        specials.additional.push_back(plain(token.content));
    return specials;
  }

  AddedTokens added_;
  std::unique_ptr<Model> model_;
  std::unique_ptr<Normalizer> normalizer_;
  std::unique_ptr<PreTokenizer> pre_tokenizer_;
  std::unique_ptr<Decoder> decoder_;
  Vocab vocab_;
  SpecialLayout layout_;
  std::string algorithm_;
};

// Tokenizer classes whose framing tokenizer.json cannot hold: language codes chosen at run time
// (mBART, M2M100, Marian multilingual), and tokenizers transformers has no fast class for (FSMT).
bool framed_by_json(const TokenizerClass& tokenizer_class) {
  return tokenizer_class.languages == LanguageFraming::None && tokenizer_class.algorithm != TokenizerAlgorithm::MosesBpe;
}

}  // namespace

std::unique_ptr<Tokenizer> make_json_tokenizer_if_chosen(const TokenizerFiles& files, const TokenizerClass& tokenizer_class,
                                                         TokenizerChoice choice) {
  if (choice == TokenizerChoice::Slow) return nullptr;
  if (choice == TokenizerChoice::Auto && !files.has(kFile)) return nullptr;
  if (!framed_by_json(tokenizer_class)) {
    if (choice == TokenizerChoice::Auto) return nullptr;
    fail("{}: the {} is read from its slow files only (its language-code framing is not in {}): use "
         "--tokenizer slow",
         files.path(), tokenizer_class.name, kFile);
  }
  if (choice == TokenizerChoice::Json && !files.has(kFile))
    fail("{}: missing tokenizer file {} (asked for with --tokenizer json)", files.path(), kFile);
  return std::make_unique<JsonTokenizer>(files, tokenizer_class);
}

}  // namespace invar
