// libFuzzer target: config.json and the tokenizer files of a model folder. The input names one file
// of a fixture folder and gives its new content ("core/marian/tokenizer_config.json\n{...}"); the
// folder is read as every command reads it (config, spec and weight table, sentence-transformers
// modules, tokenizer) and the tokenizer is run. Any bytes must be accepted or rejected with an
// invar::Error: never a crash, hang, leak or another exception.
#include <algorithm>
#include <cctype>
#include <set>
#include <string>

#include "core/error.hpp"
#include "fuzz_support.hpp"
#include "loaders/model_source.hpp"
#include "models/encoder_spec.hpp"
#include "models/hf_config.hpp"
#include "models/seq2seq_spec.hpp"

namespace {

void read_folder(const std::string& path) {
  const auto source = invar::ModelSource::open(path);
  const invar::ModelConfig config = invar::load_model_config(*source);
  if (invar::family(config.family).kind == invar::ModelKind::Encoder) {
    invar::encoder_weight_names(invar::encoder_spec(config));
  } else {
    const invar::Seq2SeqSpec spec = invar::seq2seq_spec(config);
    invar::seq2seq_weight_names(spec, config);
  }
  invar::load_sentence_transformer_config(*source);
  invar::fuzz::exercise(*invar::make_tokenizer(*source));
}

// The fixture model folders ("core/marian", ...): those with a config.json.
const std::set<std::string>& fixture_folders() {
  static const std::set<std::string> folders = [] {
    std::set<std::string> found;
    for (const auto& group : std::filesystem::directory_iterator(INVAR_FIXTURES_DIR))
      if (group.is_directory())
        for (const auto& folder : std::filesystem::directory_iterator(group.path()))
          if (std::filesystem::exists(folder.path() / "config.json"))
            found.insert(group.path().filename().string() + "/" + folder.path().filename().string());
    return found;
  }();
  return folders;
}

// A plain file name: the input may name any file of the folder, but never one outside it.
bool plain_name(const std::string& file) {
  const auto plain = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-'; };
  return !file.empty() && file.size() <= 64 && file[0] != '.' && std::all_of(file.begin(), file.end(), plain);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input = invar::fuzz::as_text(data, size);
  // "<group>/<folder>/<file>\n", then the file's content.
  const auto newline = input.find('\n');
  if (newline == std::string_view::npos) return 0;
  const std::string name(input.substr(0, newline));
  const auto slash = name.rfind('/');
  if (slash == std::string::npos) return 0;
  const std::string folder = name.substr(0, slash), file = name.substr(slash + 1);
  if (!fixture_folders().count(folder) || !plain_name(file)) return 0;
  auto& copy = invar::fuzz::FixtureCopy::of(folder);
  copy.replace(file, input.substr(newline + 1));
  try {
    read_folder(copy.path());
  } catch (const invar::Error&) {
  }
  return 0;
}
