#pragma once
// Word vectors for the WMD size bound: `count` distinct words w0, w1, … with 2-dimensional vectors,
// written to a .vec file, and the text that uses every one of them once.
#include <fmt/format.h>

#include <string>

#include "support/test_support.hpp"

namespace invar::test {

struct ManyWords {
  std::string vectors_path;  // a fastText .vec file
  std::string text;          // "w0 w1 … " with every word once
};

inline ManyWords write_many_words(int count) {
  ManyWords out{temp_dir() + "/many.vec", ""};
  std::string vec = fmt::format("{} 2\n", count);
  for (int w = 0; w < count; ++w) {
    vec += fmt::format("w{} {} {}\n", w, w % 7, w % 11);
    out.text += fmt::format("w{} ", w);
  }
  write_file(out.vectors_path, vec);
  return out;
}

}  // namespace invar::test
