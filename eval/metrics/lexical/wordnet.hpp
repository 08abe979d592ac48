#pragma once
// WordNet 3.0 read from the database files Debian's wordnet-base package installs
// (/usr/share/wordnet: index.*, data.*, *.exc), answering what METEOR asks NLTK's WordNet corpus
// reader: the lemma names of every synset of a word, found through NLTK's morphy (exception lists,
// then its suffix-substitution rules applied until a form is in the index).
#include <array>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace invar::metrics {

class WordNet {
 public:
  // Reads the database in `directory`; fails naming the missing file and the Debian package.
  explicit WordNet(const std::string& directory = default_directory());
  // $WNSEARCHDIR (WordNet's own variable) if set, else /usr/share/wordnet.
  static std::string default_directory();
  const std::string& directory() const { return directory_; }

  // NLTK's synsets(word) over noun, verb, adjective, adverb, as the lemma names of each synset in
  // the order NLTK lists them (synset names keep the data files' case, e.g. "Party").
  std::vector<std::vector<std::string>> synset_lemma_names(std::string_view word) const;
  // NLTK's _morphy(form, pos) for pos 0..3 = n, v, a, r: the base forms found in the index.
  std::vector<std::string> morphy(const std::string& form, int pos) const;

  // The synsets of `lemma` as written (lower-cased, no morphy), noun, verb, adjective, adverb, in
  // the index's order: each synset's lemma names, and the antonyms of `lemma`'s own lemma in it
  // (NLTK's Lemma.antonyms(): the lexical "!" pointers from that lemma, as lemma names).
  struct Sense {
    std::vector<std::string> lemma_names;
    std::vector<std::string> antonyms;
  };
  std::vector<Sense> senses(std::string_view lemma) const;

 private:
  struct PartOfSpeech {
    std::string data;  // the whole data.* file; synsets are read at their byte offsets
    std::string data_path;
    std::unordered_map<std::string, std::vector<std::size_t>> offsets;  // index.*: lemma -> synsets
    std::unordered_map<std::string, std::vector<std::string>> exceptions;  // *.exc
  };
  struct Pointer {  // a data.* pointer: symbol, target synset, source and target word (0: the synset)
    std::string_view symbol;
    std::size_t offset = 0;
    int pos = 0;
    std::size_t source = 0, target = 0;
  };
  struct Synset {
    std::vector<std::string> names;
    std::vector<Pointer> pointers;
  };
  Synset synset_at(const PartOfSpeech& part, std::size_t offset) const;
  std::vector<std::string> lemma_names_at(const PartOfSpeech& part, std::size_t offset) const;

  std::string directory_;
  std::array<PartOfSpeech, 4> parts_;
};

}  // namespace invar::metrics
