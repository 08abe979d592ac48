// libFuzzer target: tokenizer.json. The first input byte picks the model family config.json names
// (bert, roberta, t5), the rest is tokenizer.json; the tokenizer is built from it alone and run.
// Any bytes must be accepted or rejected with an invar::Error: never a crash, hang, leak or another
// exception.
#include <array>
#include <string>

#include "core/error.hpp"
#include "fuzz_support.hpp"
#include "loaders/model_source.hpp"

namespace {

// config.json and tokenizer.json in memory: no file I/O per input.
class JsonOnlySource final : public invar::ModelSource {
 public:
  JsonOnlySource(const char* model_type, std::string_view tokenizer)
      : config_({{"model_type", model_type}, {"vocab_size", 1 << 20}}), tokenizer_(tokenizer) {}
  const std::string& path() const override { return path_; }
  const nlohmann::json& config_json() const override { return config_; }
  bool has_file(const std::string& name) const override { return name == "tokenizer.json"; }
  std::string read_file(const std::string& name) const override {
    if (name != "tokenizer.json") throw invar::Error("no file " + name);
    return tokenizer_;
  }
  std::vector<std::string> file_names() const override { return {"tokenizer.json"}; }
  std::vector<std::string> tensor_names() const override { return {}; }
  bool has_tensor(const std::string&) const override { return false; }
  invar::TensorData tensor(const std::string& name) const override { throw invar::Error("no tensor " + name); }

 private:
  std::string path_ = "fuzz";
  nlohmann::json config_;
  std::string tokenizer_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  static const std::array<const char*, 3> kFamilies = {"bert", "roberta", "t5"};
  JsonOnlySource source(kFamilies[data[0] % kFamilies.size()], invar::fuzz::as_text(data + 1, size - 1));
  source.set_tokenizer_choice(invar::TokenizerChoice::Json);
  try {
    invar::fuzz::exercise(*invar::make_tokenizer(source));
  } catch (const invar::Error&) {
  }
  return 0;
}
