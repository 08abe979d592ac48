// Writes the synthetic corpus of bench_metrics (bench/synthetic_text.hpp) to hyp.txt and ref.txt, so
// that `invar metric` and sacrebleu can be timed on exactly the same text (docs/performance.md).
#include <CLI/CLI.hpp>

#include <iostream>

#include "bench/synthetic_text.hpp"
#include "core/error.hpp"
#include "core/io.hpp"

int main(int argc, char** argv) {
  CLI::App app{"Write bench_metrics' synthetic corpus as DIR/hyp.txt and DIR/ref.txt"};
  std::string dir = ".";
  std::size_t lines = 3000;
  app.add_option("--dir", dir, "Output directory")->capture_default_str();
  app.add_option("--lines", lines, "Number of lines")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  try {
    const auto corpus = invar::bench::synthetic_corpus(lines);
    for (const auto& [name, text] : {std::pair{"hyp.txt", &corpus.hyps}, std::pair{"ref.txt", &corpus.refs}}) {
      invar::AtomicOutput out(dir + "/" + name);
      for (const auto& line : *text) out.write_line(line);
      out.commit();
    }
  } catch (const invar::Error& e) {
    std::cerr << "tool_metrics_corpus: error: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
