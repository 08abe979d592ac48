// Pseudo-log-likelihood of inputs longer than the model's limit: the window plan, the assembly of
// per-token scores from the windows, and `invar pll` on a line longer than --max-length.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "engine/pll_windows.hpp"
#include "engine/text_encoder.hpp"
#include "backends/cpu/backend.hpp"
#include "support/test_support.hpp"

using namespace invar;
using nlohmann::json;

namespace {

TEST(PllWindows, HalfWindowStrideAndNearestCentre) {
  // Starts 0, 2, 4 and the last at 10 − 4 = 6; boundaries halfway between centres: 3, 5, 7.
  const auto w = pll_windows(10, 4);
  ASSERT_EQ(w.size(), 4u);
  const std::size_t expected[4][4] = {{0, 4, 0, 3}, {2, 6, 3, 5}, {4, 8, 5, 7}, {6, 10, 7, 10}};
  for (std::size_t k = 0; k < 4; ++k) {
    EXPECT_EQ(w[k].begin, expected[k][0]);
    EXPECT_EQ(w[k].end, expected[k][1]);
    EXPECT_EQ(w[k].score_begin, expected[k][2]);
    EXPECT_EQ(w[k].score_end, expected[k][3]);
  }
  const auto fits = pll_windows(4, 4);
  ASSERT_EQ(fits.size(), 1u);
  EXPECT_EQ(fits[0].score_end, 4u);
}

TEST(PllWindows, ScoredRangesTileTheTextWithContextOnBothSides) {
  for (std::size_t width : {2u, 3u, 5u, 8u, 62u, 510u})
    for (std::size_t tokens : {width + 1, width * 2 + 1, width * 7 + 3, std::size_t{2000}}) {
      SCOPED_TRACE(std::to_string(tokens) + " tokens, width " + std::to_string(width));
      const auto windows = pll_windows(tokens, width);
      std::size_t next = 0;
      for (const auto& w : windows) {
        EXPECT_EQ(w.end - w.begin, width);
        EXPECT_EQ(w.score_begin, next);
        EXPECT_LT(w.score_begin, w.score_end);
        EXPECT_LE(w.begin, w.score_begin);
        EXPECT_LE(w.score_end, w.end);
        // At least a quarter window of context each side, except at the text's ends.
        if (w.begin > 0) {
          EXPECT_GE(w.score_begin - w.begin, width / 4);
        }
        if (w.end < tokens) {
          EXPECT_GE(w.end - w.score_end, width / 4);
        }
        next = w.score_end;
      }
      EXPECT_EQ(next, tokens);
    }
}

struct MlmModel {
  std::unique_ptr<ModelSource> source = ModelSource::open(test::fixture("core/xlmr-mlm"));
  std::unique_ptr<Backend> backend = make_cpu_backend({.threads = 1});
  TextEncoder encoder{*source, *backend};
};

TEST(PllWindows, LongInputsAreScoredTokenByTokenInTheirWindows) {
  MlmModel m;
  const std::int32_t mask = *m.encoder.tokenizer().mask_id();
  const Encoding input = m.encoder.tokenizer().encode("Überraschung: Straße, Ähre, naïve café. Good morning, how are you today?");
  const auto whole = m.encoder.pll(input, mask);
  EXPECT_EQ(whole.windows, 1u);
  EXPECT_EQ(whole.per_token, m.encoder.model().pll(input, mask));

  m.encoder.cap_length(8);  // 6 content tokens per window
  const auto windowed = m.encoder.pll(input, mask);
  const Framing framing = framing_of(input);
  ASSERT_EQ(framing.prefix, 1u);
  ASSERT_EQ(framing.suffix, 1u);
  const std::size_t content = input.ids.size() - 2;
  ASSERT_EQ(windowed.per_token.size(), content);
  const auto plan = pll_windows(content, 6);
  EXPECT_EQ(windowed.windows, plan.size());
  ASSERT_GT(plan.size(), 2u);
  // Each token's score is the masked-LM score of that token inside its own window, framed as a text
  // (up to float noise: the window's masked copies run in batches of another size).
  for (const auto& w : plan) {
    const Encoding window = window_of(input, framing, w.begin, w.end);
    ASSERT_EQ(window.ids.size(), 8u);
    EXPECT_EQ(window.ids.front(), input.ids.front());
    EXPECT_EQ(window.ids.back(), input.ids.back());
    const auto scores = m.encoder.model().pll(window, mask);
    for (std::size_t t = w.score_begin; t < w.score_end; ++t)
      EXPECT_NEAR(windowed.per_token[t], scores[t - w.begin], 1e-5) << "token " << t;
  }
  // Less context than the whole text changes the scores.
  double largest_change = 0;
  for (std::size_t t = 0; t < content; ++t)
    largest_change = std::max(largest_change, std::abs(windowed.per_token[t] - whole.per_token[t]));
  EXPECT_GT(largest_change, 1e-3);
}

TEST(PllWindows, CliScoresLongLinesWholeWithAWindowCount) {
  const std::string text = "Good morning, how are you today? Das Tor fiel in der 29. Minute.";
  const auto result =
      test::run_cli({"-q", "pll", "-m", test::fixture("core/xlmr-mlm"), "--max-length", "8", "--ppl"}, text + "\nShort.\n");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  std::istringstream in(result.out);
  std::string first, second;
  ASSERT_TRUE(std::getline(in, first) && std::getline(in, second));
  const json long_line = json::parse(first), short_line = json::parse(second);
  const auto full = test::run_cli({"-q", "pll", "-m", test::fixture("core/xlmr-mlm")}, text + "\n");
  ASSERT_EQ(full.exit_code, 0) << full.err;
  const json reference = json::parse(full.out);
  EXPECT_EQ(long_line["tokens"], reference["tokens"]);  // every token scored, none truncated
  EXPECT_GT(long_line["windows"].get<int>(), 1);
  EXPECT_TRUE(long_line.contains("ppl"));
  EXPECT_FALSE(short_line.contains("windows"));
  EXPECT_NE(result.err.find("1 of 2 input lines were longer than 8 tokens"), std::string::npos) << result.err;
  EXPECT_EQ(result.err.find("truncated"), std::string::npos) << result.err;
}

}  // namespace
