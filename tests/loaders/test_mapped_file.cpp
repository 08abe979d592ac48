// Issue 18, item 9: a model file truncated while it is mapped is reported naming the file, not
// left to kill the process with SIGBUS and no message.
#include <gtest/gtest.h>

#include <filesystem>

#include "loaders/mapped_file.hpp"
#include "loaders/model_source.hpp"
#include "support/model_files.hpp"
#include "support/test_support.hpp"

using namespace invar;

namespace {

// Reads every byte of the tensor, as a forward pass would.
int sum_bytes(const TensorData& tensor) {
  int sum = 0;
  for (std::size_t i = 0; i < tensor.nbytes; ++i) sum += static_cast<int>(tensor.data[i]);
  return sum;
}

}  // namespace

TEST(MappedFileDeathTest, TruncatedWhileMappedNamesTheFile) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const std::vector<float> values(64 * 1024, 1.0f);  // 256 KiB: many pages past the new end
  const std::string dir = test::make_model_folder({{"model.safetensors",
                                                    test::make_safetensors({{"w", "F32", {64 * 1024}, test::bytes_of(values)}})}});
  const std::string path = dir + "/model.safetensors";
  EXPECT_EXIT(
      {
        const auto source = ModelSource::open(dir);
        std::filesystem::resize_file(path, 16);
        std::exit(sum_bytes(source->tensor("w")) == 0 ? 3 : 4);
      },
      ::testing::ExitedWithCode(1), "^invar: error: [^\n]*/model\\.safetensors: the file changed \\(truncated\\?\\) while it was being read\n$");
}

TEST(MappedFileDeathTest, OtherBusErrorsAreLeftToTheDefaultAction) {
  if (test::under_address_sanitizer()) GTEST_SKIP() << "ASan's own SIGBUS handler reports them";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const std::string path = test::temp_dir() + "/file";
  test::write_file(path, std::string(64, 'x'));
  const auto file = MappedFile::open(path);  // installs the handler
  EXPECT_EXIT(raise(SIGBUS), ::testing::KilledBySignal(SIGBUS), "");
  EXPECT_EQ(file->size(), 64u);
}
