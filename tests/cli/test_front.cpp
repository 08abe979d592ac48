// The two binaries (tools/hand_over.hpp): `invar` runs the metric and stats commands with only their
// libraries loaded and hands every other command, and every run under an MPI launcher, to the
// invar-full beside it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "support/test_support.hpp"

namespace {

namespace fs = std::filesystem;
using invar::test::run_cli;
using invar::test::run_program;

const std::string kFull = (fs::path(INVAR_CLI).parent_path() / "invar-full").string();

// The shared libraries a binary names as NEEDED, which the dynamic loader maps before main (readelf
// comes with binutils, which the compiler needs).
std::vector<std::string> needed_libraries(const std::string& binary) {
  const auto result = run_program({"readelf", "-d", binary});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  std::vector<std::string> names;
  std::istringstream lines(result.out);
  for (std::string line; std::getline(lines, line);) {
    const auto open = line.find("(NEEDED)") == std::string::npos ? std::string::npos : line.find('[');
    if (open != std::string::npos) names.push_back(line.substr(open + 1, line.find(']') - open - 1));
  }
  return names;
}

bool names_library(const std::vector<std::string>& names, const std::string& stem) {
  return std::any_of(names.begin(), names.end(), [&](const auto& name) { return name.rfind(stem + ".so", 0) == 0; });
}

TEST(Front, LinksNoModelLibraries) {
  const auto front = needed_libraries(INVAR_CLI);
  ASSERT_TRUE(names_library(front, "libfmt")) << "readelf's list was not read";
  ASSERT_TRUE(names_library(needed_libraries(kFull), "libopenblas"));
  for (const char* heavy : {"libopenblas", "libdnnl", "libgomp", "libOpenCL", "libclblast", "libmpi", "libgvc",
                            "libsentencepiece", "libzip", "libfasttext", "liblinear"})
    EXPECT_FALSE(names_library(front, heavy)) << heavy;
}

TEST(Front, HelpListsEveryCommand) {
  const auto root = run_cli({"--help"});
  EXPECT_EQ(root.exit_code, 0);
  for (const char* command : {"  embed ", "  generate ", "  lip ", "  metric ", "  stats "})
    EXPECT_NE(root.out.find(command), std::string::npos) << command;
  const auto metric = run_cli({"metric", "--help"});
  EXPECT_EQ(metric.exit_code, 0);
  for (const char* command : {"  bleu ", "  bertscore ", "  meteor ", "  wmd "})
    EXPECT_NE(metric.out.find(command), std::string::npos) << command;
}

class FrontAlone : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::copy_file(INVAR_CLI, alone_);
    invar::test::write_file(text_, "a small test\n");
  }
  std::string dir_ = invar::test::temp_dir();
  std::string alone_ = dir_ + "/invar", text_ = dir_ + "/text.txt";
};

TEST_F(FrontAlone, RunsMetricsAndStatsItself) {
  const std::vector<std::string> bleu{"metric", "bleu", "--hyp", text_, "--ref", text_};
  const auto here = run_program({alone_, bleu[0], bleu[1], bleu[2], bleu[3], bleu[4], bleu[5]});
  EXPECT_EQ(here.exit_code, 0) << here.err;
  EXPECT_EQ(here.out, run_cli(bleu).out);
  const auto vote = run_program({alone_, "stats", "vote", "--help"});
  EXPECT_EQ(vote.exit_code, 0) << vote.err;
}

TEST_F(FrontAlone, NamesInvarFullForTheOtherCommands) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"embed", "-m", "model", "-i", text_}, {"metric", "meteor", "--help"}, {"--help"}}) {
    std::vector<std::string> command{alone_};
    command.insert(command.end(), args.begin(), args.end());
    const auto result = run_program(command);
    EXPECT_EQ(result.exit_code, 1) << args.front();
    EXPECT_NE(result.err.find(dir_ + "/invar-full: cannot run it"), std::string::npos) << result.err;
  }
}

// The front is built without MPI: under a launcher even BLEU goes to invar-full.
TEST_F(FrontAlone, HandsEveryRunUnderAnMpiLauncherOver) {
  setenv("OMPI_COMM_WORLD_SIZE", "2", 1);
  const auto result = run_program({alone_, "metric", "bleu", "--hyp", text_, "--ref", text_});
  unsetenv("OMPI_COMM_WORLD_SIZE");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("invar-full: cannot run it"), std::string::npos) << result.err;
}

}  // namespace
