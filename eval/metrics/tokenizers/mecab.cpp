#include "eval/metrics/tokenizers/mecab.hpp"

#include <mecab.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>

#include "core/console.hpp"
#include "core/error.hpp"
#include "eval/metrics/tokenizers/mt_tokenize.hpp"

namespace invar::metrics {

namespace {

// The entry counts sacrebleu asserts (tokenizer_ja_mecab.py, tokenizer_ko_mecab.py).
constexpr unsigned kSacrebleuIpadicSize = 392126;
// Debian's compiled mecab-ipadic-utf8: the same words plus 令和 (debian/patches of mecab-ipadic).
constexpr unsigned kDebianIpadicSize = 392127;
constexpr const char* kDebianIpadic = "/var/lib/mecab/dic/ipadic-utf8";

bool has_dictionary(const std::filesystem::path& dir) { return std::filesystem::exists(dir / "sys.dic"); }

std::string find_ipadic() {
  if (const char* dir = std::getenv("INVAR_MECAB_IPADIC")) {
    if (!has_dictionary(dir)) fail("ja-mecab: INVAR_MECAB_IPADIC={} holds no MeCab dictionary (sys.dic)", dir);
    return dir;
  }
#ifdef INVAR_SACREBLEU_IPADIC
  if (has_dictionary(INVAR_SACREBLEU_IPADIC)) return INVAR_SACREBLEU_IPADIC;
#endif
  if (has_dictionary(kDebianIpadic)) return kDebianIpadic;
  fail("ja-mecab needs MeCab's IPA dictionary: install Debian's mecab-ipadic-utf8 (scripts/install-deps.sh), or "
       "set INVAR_MECAB_IPADIC to a directory made by scripts/build-ipadic.sh");
}

}  // namespace

struct MecabTokenizer::Handle {
  std::unique_ptr<MeCab::Model> model;
  std::unique_ptr<MeCab::Tagger> tagger;
};

MecabTokenizer::MecabTokenizer(std::unique_ptr<Handle> handle, std::string signature)
    : handle_(std::move(handle)), signature_(std::move(signature)) {}

MecabTokenizer::~MecabTokenizer() = default;

namespace {

// As ipadic.MECAB_ARGS + " -Owakati": no resource file, the dictionary directory, wakati output.
std::unique_ptr<MeCab::Model> open_model(const std::string& dictionary) {
  const std::string args = "-r /dev/null -d " + dictionary + " -Owakati";
  std::unique_ptr<MeCab::Model> model(MeCab::createModel(args.c_str()));
  if (!model) fail("ja-mecab: MeCab cannot load the dictionary {}: {}", dictionary, MeCab::getLastError());
  return model;
}

void check_ipadic(const MeCab::Model& model, const std::string& dictionary) {
  const auto* info = model.dictionary_info();
  if (info->next != nullptr) fail("ja-mecab: {} loads a user dictionary too; sacrebleu uses the system one alone", dictionary);
  if (std::string_view(info->charset) != "utf-8" && std::string_view(info->charset) != "UTF-8")
    fail("ja-mecab: {} is encoded in {}; use a UTF-8 dictionary (Debian's mecab-ipadic-utf8)", dictionary,
         info->charset);
  if (info->size == kDebianIpadicSize) {
    print_line(std::string("invar: ja-mecab uses Debian's IPADIC (") + dictionary +
               "), which adds 令和 to sacrebleu's 392,126 entries; only that word can tokenize differently "
               "(scripts/build-ipadic.sh builds the exact dictionary)");
  } else if (info->size != kSacrebleuIpadicSize) {
    fail("ja-mecab: {} has {} entries, but sacrebleu's IPA dictionary has {}: it is not IPADIC", dictionary, info->size,
         kSacrebleuIpadicSize);
  }
}

}  // namespace

std::shared_ptr<const MecabTokenizer> MecabTokenizer::get(Language language) {
  if (language == Language::Korean)
    fail("ko-mecab needs MeCab-ko with mecab-ko-dic (811,795 entries, as sacrebleu asserts), which Debian 12 does "
         "not package; invar cannot compute ko-mecab scores. Choose another --tokenize (e.g. char or 13a)");
  static std::mutex mutex;
  static std::shared_ptr<const MecabTokenizer> japanese;
  std::lock_guard lock(mutex);
  if (japanese) return japanese;
  const auto dictionary = find_ipadic();
  auto handle = std::make_unique<Handle>();
  handle->model = open_model(dictionary);
  check_ipadic(*handle->model, dictionary);
  handle->tagger.reset(handle->model->createTagger());
  if (!handle->tagger) fail("ja-mecab: MeCab cannot create a tagger: {}", MeCab::getLastError());
  // sacrebleu's signature: "ja-mecab-" + MeCab's version + "-IPA".
  japanese.reset(new MecabTokenizer(std::move(handle), std::string("ja-mecab-") + MeCab::Model::version() + "-IPA"));
  return japanese;
}

std::string MecabTokenizer::tokenize(std::string_view line) const {
  const std::string input(strip_whitespace(line));
  std::unique_ptr<MeCab::Lattice> lattice(handle_->model->createLattice());
  lattice->set_sentence(input.c_str());
  if (!handle_->tagger->parse(lattice.get())) fail("ja-mecab: MeCab failed on a segment: {}", lattice->what());
  return std::string(strip_whitespace(lattice->toString()));
}

}  // namespace invar::metrics
