#include "eval/metrics/tokenizers/mecab.hpp"

#include <dlfcn.h>
#include <mecab.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>

#include "core/error.hpp"
#include "core/log.hpp"
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

// libmecab is loaded on the first ja-mecab segment, not linked: a program that never tokenizes
// Japanese needs no MeCab (docs/architecture.md#libraries). Its C API, as mecab.h declares it.
struct Mecab {
  decltype(&mecab_model_new2) model_new;
  decltype(&mecab_model_destroy) model_destroy;
  decltype(&mecab_model_dictionary_info) dictionary_info;
  decltype(&mecab_model_new_tagger) new_tagger;
  decltype(&mecab_model_new_lattice) new_lattice;
  decltype(&mecab_destroy) destroy;
  decltype(&mecab_strerror) strerror;
  decltype(&mecab_version) version;
  decltype(&mecab_parse_lattice) parse_lattice;
  decltype(&mecab_lattice_set_sentence) set_sentence;
  decltype(&mecab_lattice_tostr) lattice_tostr;
  decltype(&mecab_lattice_strerror) lattice_strerror;
  decltype(&mecab_lattice_destroy) lattice_destroy;
};

template <typename F>
void resolve(void* library, const char* name, F& function) {
  function = reinterpret_cast<F>(dlsym(library, name));
  if (function == nullptr) fail("ja-mecab: libmecab.so.2 lacks {}: {}", name, dlerror());
}

const Mecab& mecab() {
  static const Mecab api = [] {
    // Never unloaded: the tokenizer lives as long as the process.
    void* library = dlopen("libmecab.so.2", RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr)
      fail("ja-mecab needs MeCab: install Debian's libmecab2 (scripts/install-deps.sh): {}", dlerror());
    Mecab m{};
    resolve(library, "mecab_model_new2", m.model_new);
    resolve(library, "mecab_model_destroy", m.model_destroy);
    resolve(library, "mecab_model_dictionary_info", m.dictionary_info);
    resolve(library, "mecab_model_new_tagger", m.new_tagger);
    resolve(library, "mecab_model_new_lattice", m.new_lattice);
    resolve(library, "mecab_destroy", m.destroy);
    resolve(library, "mecab_strerror", m.strerror);
    resolve(library, "mecab_version", m.version);
    resolve(library, "mecab_parse_lattice", m.parse_lattice);
    resolve(library, "mecab_lattice_set_sentence", m.set_sentence);
    resolve(library, "mecab_lattice_tostr", m.lattice_tostr);
    resolve(library, "mecab_lattice_strerror", m.lattice_strerror);
    resolve(library, "mecab_lattice_destroy", m.lattice_destroy);
    return m;
  }();
  return api;
}

}  // namespace

struct MecabTokenizer::Handle {
  mecab_model_t* model = nullptr;
  mecab_t* tagger = nullptr;
  ~Handle() {
    if (tagger != nullptr) mecab().destroy(tagger);
    if (model != nullptr) mecab().model_destroy(model);
  }
};

MecabTokenizer::MecabTokenizer(std::unique_ptr<Handle> handle, std::string signature)
    : handle_(std::move(handle)), signature_(std::move(signature)) {}

MecabTokenizer::~MecabTokenizer() = default;

namespace {

// As ipadic.MECAB_ARGS + " -Owakati": no resource file, the dictionary directory, wakati output.
mecab_model_t* open_model(const std::string& dictionary) {
  const std::string args = "-r /dev/null -d " + dictionary + " -Owakati";
  mecab_model_t* model = mecab().model_new(args.c_str());
  if (model == nullptr) fail("ja-mecab: MeCab cannot load the dictionary {}: {}", dictionary, mecab().strerror(nullptr));
  return model;
}

void check_ipadic(mecab_model_t* model, const std::string& dictionary) {
  const auto* info = mecab().dictionary_info(model);
  if (info->next != nullptr) fail("ja-mecab: {} loads a user dictionary too; sacrebleu uses the system one alone", dictionary);
  if (std::string_view(info->charset) != "utf-8" && std::string_view(info->charset) != "UTF-8")
    fail("ja-mecab: {} is encoded in {}; use a UTF-8 dictionary (Debian's mecab-ipadic-utf8)", dictionary,
         info->charset);
  if (info->size == kDebianIpadicSize) {
    warn(fmt::format("ja-mecab uses Debian's IPADIC ({}), which adds 令和 to sacrebleu's 392,126 entries; only that "
                     "word can tokenize differently (scripts/build-ipadic.sh builds the exact dictionary)",
                     dictionary));
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
  check_ipadic(handle->model, dictionary);
  handle->tagger = mecab().new_tagger(handle->model);
  if (handle->tagger == nullptr) fail("ja-mecab: MeCab cannot create a tagger: {}", mecab().strerror(nullptr));
  // sacrebleu's signature: "ja-mecab-" + MeCab's version + "-IPA".
  japanese.reset(new MecabTokenizer(std::move(handle), std::string("ja-mecab-") + mecab().version() + "-IPA"));
  return japanese;
}

std::string MecabTokenizer::tokenize(std::string_view line) const {
  const std::string input(strip_whitespace(line));
  const Mecab& m = mecab();
  std::unique_ptr<mecab_lattice_t, void (*)(mecab_lattice_t*)> lattice(m.new_lattice(handle_->model), m.lattice_destroy);
  if (!lattice) fail("ja-mecab: MeCab cannot create a lattice");
  m.set_sentence(lattice.get(), input.c_str());
  if (m.parse_lattice(handle_->tagger, lattice.get()) == 0)
    fail("ja-mecab: MeCab failed on a segment: {}", m.lattice_strerror(lattice.get()));
  return std::string(strip_whitespace(m.lattice_tostr(lattice.get())));
}

}  // namespace invar::metrics
