// Word Mover's Distance and mean-vector cosine against tests/fixtures/stmetrics/wmd.json (README
// tolerances: WMD 1e-9 absolute, cosine 1e-12, gensim's wmdistance 1e-5, n_similarity 1e-6).
#include <gtest/gtest.h>

#include <fasttext/fasttext.h>

#include <cmath>
#include <cstdint>
#include <cstring>

#include "core/error.hpp"
#include "eval/metrics/vectors/wmd.hpp"
#include "support/golden.hpp"
#include "support/many_words.hpp"
#include "support/test_support.hpp"

using namespace invar;
using namespace invar::metrics;
using nlohmann::json;
using test::golden_double;

namespace {

const json& records() {
  static const json data = test::load_json(test::fixture("stmetrics/wmd.json"));
  return data["records"];
}

const WordVectors& vectors() {
  static const WordVectors v = WordVectors::load(test::fixture("stmetrics/wordvecs.vec"));
  return v;
}

void expect_distance(double actual, const json& expected, double tolerance) {
  const double e = golden_double(expected);
  if (std::isinf(e))
    EXPECT_EQ(actual, e);
  else
    EXPECT_NEAR(actual, e, tolerance);
}

std::string message_of(const std::function<void()>& body) {
  try {
    body();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST(WordVectors, ReadsTheVecFile) {
  EXPECT_EQ(vectors().size(), 59u);
  EXPECT_EQ(vectors().dimension(), 8u);
  const float* the = vectors().find("the");
  ASSERT_NE(the, nullptr);
  EXPECT_EQ(the[0], -0.8691f);
  EXPECT_EQ(the[7], 0.4468f);
  EXPECT_EQ(vectors().find("xyzzy"), nullptr);
}

TEST(Wmd, EveryGoldenPairExactRawAndUnitVectors) {
  ASSERT_EQ(records().size(), 17u);
  for (const auto& r : records()) {
    SCOPED_TRACE(r["id"].get<std::string>());
    const auto t1 = r["text1"].get<std::string>(), t2 = r["text2"].get<std::string>();
    EXPECT_EQ(word_vector_tokens(t1), r["tokens1"].get<std::vector<std::string>>());
    expect_distance(word_movers_distance(vectors(), t1, t2), r["wmd_raw_vectors"], 1e-9);
    expect_distance(word_movers_distance(vectors(), t1, t2, true), r["wmd_unit_vectors"], 1e-9);
    if (r.contains("check_pot_emd2")) {
      expect_distance(word_movers_distance(vectors(), t1, t2), r["check_pot_emd2"]["raw"], 1e-9);
      expect_distance(word_movers_distance(vectors(), t1, t2, true), r["check_pot_emd2"]["unit"], 1e-9);
    }
    const auto cosine = mean_vector_cosine(vectors(), t1, t2);
    if (r["cosine_mean_vectors"].is_null()) {
      EXPECT_FALSE(cosine.has_value());
    } else {
      ASSERT_TRUE(cosine.has_value());
      EXPECT_NEAR(*cosine, r["cosine_mean_vectors"].get<double>(), 1e-12);
      EXPECT_NEAR(*cosine, r["gensim"]["n_similarity"].get<double>(), 1e-6);
    }
  }
}

TEST(Wmd, TransportProblemMatchesTheGoldenLp) {
  int checked = 0;
  for (const auto& r : records()) {
    if (!r.contains("lp_detail_raw") || r["lp_detail_raw"].is_null()) continue;
    SCOPED_TRACE(r["id"].get<std::string>());
    const auto& g = r["lp_detail_raw"];
    const auto p = word_movers_problem(vectors(), r["text1"].get<std::string>(), r["text2"].get<std::string>());
    EXPECT_EQ(p.words1, g["words1"].get<std::vector<std::string>>());
    EXPECT_EQ(p.words2, g["words2"].get<std::vector<std::string>>());
    EXPECT_EQ(p.weights1, g["weights1"].get<std::vector<double>>());
    EXPECT_EQ(p.weights2, g["weights2"].get<std::vector<double>>());
    ASSERT_EQ(p.distance.size(), g["distance"].size());
    for (std::size_t i = 0; i < p.distance.size(); ++i)
      for (std::size_t j = 0; j < p.distance[i].size(); ++j)
        EXPECT_NEAR(p.distance[i][j], g["distance"][i][j].get<double>(), 1e-12);
    // The flow is a transport plan: rows sum to the weights of text 1, columns to those of text 2.
    for (std::size_t i = 0; i < p.flow.size(); ++i) {
      double row = 0;
      for (double f : p.flow[i]) row += f;
      EXPECT_NEAR(row, p.weights1[i], 1e-12);
    }
    ++checked;
  }
  EXPECT_GT(checked, 10);
}

// gensim's wmdistance differs from the exact value by pyemd's quantisation (≤ 1e-5) except in its
// documented special case: all distances ≈ 0 between distinct words gives it infinity.
TEST(Wmd, AgreesWithGensimUpToItsQuantisationOutsideItsSpecialCase) {
  for (const auto& r : records()) {
    SCOPED_TRACE(r["id"].get<std::string>());
    const auto t1 = r["text1"].get<std::string>(), t2 = r["text2"].get<std::string>();
    const double gensim_unit = golden_double(r["gensim"]["wmdistance_norm_True"]);
    const double exact_unit = word_movers_distance(vectors(), t1, t2, true);
    if (std::isinf(gensim_unit) && !std::isinf(exact_unit)) {
      EXPECT_EQ(exact_unit, 0.0);  // sofa / couch: identical vectors
      continue;
    }
    expect_distance(exact_unit, r["gensim"]["wmdistance_norm_True"], 1e-5);
    expect_distance(word_movers_distance(vectors(), t1, t2), r["gensim"]["wmdistance_norm_False"], 1e-5);
  }
}

// Two texts of 1100 distinct words each: 1,210,000 word pairs, past the bound, refused before the
// distance matrix or the graph is built; 100 of them are solved.
TEST(Wmd, TooManyWordPairsFailInsteadOfExhaustingMemory) {
  const auto [path, text] = test::write_many_words(1100);
  const auto many = WordVectors::load(path);
  EXPECT_NE(message_of([&] { word_movers_distance(many, text, text); }).find("1100 x 1100 unique words make 1210000 word pairs"),
            std::string::npos);
  const std::string fewer = text.substr(0, text.find("w100 "));
  EXPECT_EQ(word_movers_distance(many, fewer, fewer), 0.0);
}

TEST(WordVectors, WrongDimensionNamesFileAndLine) {
  const auto path = test::temp_dir() + "/bad.vec";
  test::write_file(path, "2 3\na 0.1 0.2 0.3\nb 0.1 0.2\n");
  const auto message = message_of([&] { WordVectors::load(path); });
  EXPECT_NE(message.find(path + ":3:"), std::string::npos) << message;
  EXPECT_NE(message.find("3 values"), std::string::npos) << message;
}

TEST(WordVectors, WordCountMustMatchTheHeader) {
  const auto path = test::temp_dir() + "/short.vec";
  test::write_file(path, "3 2\na 0.1 0.2\nb 0.1 0.2\n");
  EXPECT_NE(message_of([&] { WordVectors::load(path); }).find("announces 3 words but 2"), std::string::npos);
}

TEST(WordVectors, NonNumericValueNamesFileAndLine) {
  const auto path = test::temp_dir() + "/nan.vec";
  test::write_file(path, "1 2\na 0.1 x\n");
  EXPECT_NE(message_of([&] { WordVectors::load(path); }).find(path + ":2: value 2"), std::string::npos);
}

// A fastText model of 8 dimensions trained on three lines, saved as DIR/model.bin and DIR/model.vec.
void train_small_model(const std::string& dir) {
  test::write_file(dir + "/corpus.txt", "the cat sat on the mat\nthe dog sat on the rug\na cat and a dog\n");
  fasttext::Args args;
  args.input = dir + "/corpus.txt";
  args.output = dir + "/model";
  args.dim = 8;
  args.epoch = 2;
  args.minCount = 1;
  args.thread = 1;
  args.bucket = 1000;  // a small subword table keeps the model file small
  args.verbose = 0;
  args.model = fasttext::model_name::sg;
  args.loss = fasttext::loss_name::softmax;  // no 10M-entry negative-sampling table to build
  fasttext::FastText trainer;
  trainer.train(args);
  trainer.saveModel(dir + "/model.bin");
  trainer.saveVectors(dir + "/model.vec");
}

// A .bin model read through libfasttext gives the vectors fastText itself saves as .vec, so both
// formats score alike.
TEST(WordVectors, FastTextBinMatchesTheVecItSaves) {
  const auto dir = test::temp_dir();
  train_small_model(dir);
  const auto bin = WordVectors::load(dir + "/model.bin");
  const auto vec = WordVectors::load(dir + "/model.vec");
  ASSERT_EQ(bin.size(), vec.size());
  EXPECT_EQ(bin.dimension(), 8u);
  for (const char* word : {"cat", "dog", "the"})
    for (std::size_t k = 0; k < 8; ++k) EXPECT_NEAR(bin.find(word)[k], vec.find(word)[k], 1e-4) << word;
  EXPECT_NEAR(word_movers_distance(bin, "the cat sat", "a dog sat"),
              word_movers_distance(vec, "the cat sat", "a dog sat"), 1e-3);
}

// NaN, infinities and values beyond float32 (1e39) would reach WMD's network simplex, which never
// settles on NaN costs: refused naming file, line and value.
TEST(WordVectors, NonFiniteValuesAreRefusedNamingFileAndLine) {
  for (const char* value : {"nan", "-nan", "inf", "-inf", "infinity", "1e39", "-1e39", "1e400"}) {
    const auto path = test::temp_dir() + "/nonfinite.vec";
    test::write_file(path, std::string("2 2\na 0.1 0.2\nb 0.3 ") + value + "\n");
    const auto message = message_of([&] { WordVectors::load(path); });
    EXPECT_NE(message.find(path + ":3: value 2"), std::string::npos) << value << ": " << message;
    EXPECT_TRUE(message.find("not finite") != std::string::npos || message.find("float32's range") != std::string::npos)
        << message;
  }
  const auto path = test::temp_dir() + "/small.vec";
  test::write_file(path, "1 2\na 3.4e38 -1e-50\n");  // the largest floats and underflow to 0 stay accepted
  EXPECT_EQ(WordVectors::load(path).find("a")[1], -0.0f);
}

// A header announcing more values than the file can hold is refused before anything is sized by it
// (a dimension of 10^9 took 3.8 GB and a minute before the row's error).
TEST(WordVectors, HeaderLargerThanTheFileIsRefusedBeforeAllocating) {
  for (const char* header : {"1 1000000000", "4000000000 2", "2 4000000000", "18446744073709551615 18446744073709551615"}) {
    const auto path = test::temp_dir() + "/huge.vec";
    test::write_file(path, std::string(header) + "\na 0.1 0.2\n");
    const auto message = message_of([&] { WordVectors::load(path); });
    EXPECT_NE(message.find(path + ":1: the header announces"), std::string::npos) << header << ": " << message;
    EXPECT_NE(message.find("more than the file's"), std::string::npos) << message;
  }
}

// libfasttext sizes what a .bin announces and loops forever on a word cut by the end of the file:
// every size is checked against the file first, and a vector that is not finite is refused.
TEST(WordVectors, DamagedFastTextBinIsRefusedNamingTheFile) {
  const auto dir = test::temp_dir();
  train_small_model(dir);
  const std::string model = test::read_file(dir + "/model.bin");
  const auto bad = dir + "/bad.bin";
  auto refused = [&](const std::string& bytes, const std::string& expected) {
    test::write_file(bad, bytes);
    const auto message = message_of([&] { WordVectors::load(bad); });
    EXPECT_NE(message.find(bad + ": "), std::string::npos) << message;
    EXPECT_NE(message.find(expected), std::string::npos) << expected << " / " << message;
  };
  // A first word without its NUL up to the end of the file (after magic, version, 56 bytes of
  // settings and 28 of sizes: libfasttext read on forever), a cut inside the input matrix, and one
  // just before the end.
  refused(model.substr(0, 8 + 56 + 28) + std::string(200, 'x'), "dictionary entry 0 ends with the file");
  refused(model.substr(0, model.size() / 2), "more than the file holds");
  refused(model.substr(0, model.size() - 1), "more than the file holds");
  auto with_int32 = [&](std::size_t offset, std::int32_t value) {
    std::string bytes = model;
    std::memcpy(bytes.data() + offset, &value, sizeof value);
    return bytes;
  };
  refused(with_int32(8, 1 << 30), "the input matrix announces");                     // dim
  refused(with_int32(8 + 40, 40), "fastText settings out of range");                   // maxn
  refused(with_int32(8 + 56, 2000000000), "the dictionary announces 2000000000 entries");
  refused(with_int32(0, 1234), "wrong magic number");

  // A NaN as the first value of the input matrix (the first word's own row): found after the
  // dictionary as "not quantized, rows = words + buckets, columns = 8".
  const auto words = WordVectors::load(dir + "/model.vec").size();
  std::string header(1 + 16, '\0');
  const std::int64_t rows = static_cast<std::int64_t>(words) + 1000, columns = 8;
  std::memcpy(header.data() + 1, &rows, 8);
  std::memcpy(header.data() + 9, &columns, 8);
  const auto at = model.find(header);
  ASSERT_NE(at, std::string::npos);
  std::string nan_model = model;
  const float nan = std::nanf("");
  std::memcpy(nan_model.data() + at + header.size(), &nan, sizeof nan);
  refused(nan_model, "holds a value that is not finite");
}

TEST(WordVectors, NotAFastTextModel) {
  const auto path = test::temp_dir() + "/junk.bin";
  test::write_file(path, "not a model");
  EXPECT_NE(message_of([&] { WordVectors::load(path); }).find("not a fastText .bin model"), std::string::npos);
}
