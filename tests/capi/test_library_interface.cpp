// What the built libraries show a program that links them (docs/embedding.md, docs/architecture.md#libraries):
// libinvar.so exports the C API of include/invar/invar.h and nothing else, each function under its
// version node (cmake/invar.map); it needs none of the evaluation methods' libraries, MeCab or the
// OpenCL stack; the OpenCL module needs those and exports its entry point alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/test_support.hpp"

namespace invar::test {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The functions the header declares: every name after INVAR_API ... up to its parenthesis.
std::set<std::string> header_functions() {
  const std::string header = read_text(std::string(INVAR_SOURCE_DIR) + "/include/invar/invar.h");
  const std::regex declaration(R"(INVAR_API[^;(]*?\b(invar_[a-z0-9_]+)\s*\()");
  std::set<std::string> names;
  for (std::sregex_iterator it(header.begin(), header.end(), declaration), end; it != end; ++it)
    names.insert((*it)[1].str());
  return names;
}

// The dynamic symbols `library` defines, name → version node ("" when unversioned); version nodes'
// own symbols left out.
std::map<std::string, std::string> exported(const std::string& library) {
  const auto nm = run_program({"nm", "-D", "--defined-only", library});
  EXPECT_EQ(nm.exit_code, 0) << nm.err;
  std::map<std::string, std::string> symbols;
  std::istringstream lines(nm.out);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string address, type, symbol;
    words >> address >> type >> symbol;
    if (type == "A") continue;  // INVAR_0.2 etc.: the nodes themselves
    const auto at = symbol.find('@');
    const std::string name = symbol.substr(0, at);
    symbols[name] = at == std::string::npos ? "" : symbol.substr(symbol.find_first_not_of('@', at));
  }
  return symbols;
}

std::vector<std::string> needed(const std::string& library) {
  const auto readelf = run_program({"readelf", "-d", library});
  EXPECT_EQ(readelf.exit_code, 0) << readelf.err;
  std::vector<std::string> out;
  const std::regex entry(R"(\(NEEDED\)\s+Shared library: \[([^\]]+)\])");
  for (std::sregex_iterator it(readelf.out.begin(), readelf.out.end(), entry), end; it != end; ++it)
    out.push_back((*it)[1].str());
  return out;
}

bool needs(const std::vector<std::string>& list, const std::string& prefix) {
  return std::any_of(list.begin(), list.end(), [&](const std::string& l) { return l.starts_with(prefix); });
}

TEST(LibraryInterface, SharedLibraryExportsTheCApiAlone) {
  const auto declared = header_functions();
  ASSERT_GE(declared.size(), 42u);  // the parse found the API: 1.0 declares 42 functions
  std::set<std::string> names;
  for (const auto& [name, version] : exported(INVAR_SHARED_LIBRARY)) names.insert(name);
  EXPECT_EQ(names, declared);
}

// Each function carries the version node of the release that added it: the 1.0 node's names from
// cmake/invar.map, the rest INVAR_0.2.
TEST(LibraryInterface, FunctionsCarryTheirVersionNode) {
  const std::string map = read_text(std::string(INVAR_SOURCE_DIR) + "/cmake/invar.map");
  const auto node = map.find("INVAR_1.0 {");
  ASSERT_NE(node, std::string::npos);
  std::set<std::string> added;
  const std::string body = map.substr(node, map.find('}', node) - node);
  const std::regex name(R"(\b(invar_[a-z0-9_]+);)");
  for (std::sregex_iterator it(body.begin(), body.end(), name), end; it != end; ++it) added.insert((*it)[1].str());
  EXPECT_TRUE(added.contains("invar_bertscore") && added.contains("invar_log_set")) << body;
  const auto declared = header_functions();
  for (const auto& [symbol, version] : exported(INVAR_SHARED_LIBRARY)) {
    EXPECT_TRUE(declared.contains(symbol)) << symbol;
    EXPECT_EQ(version, added.contains(symbol) ? "INVAR_1.0" : "INVAR_0.2") << symbol;
  }
}

// A program that embeds sentences loads none of these (docs/performance.md#start-up-of-an-embedder).
TEST(LibraryInterface, SharedLibraryNeedsNoEvaluationMethodOrOpenClLibrary) {
  const auto list = needed(INVAR_SHARED_LIBRARY);
  EXPECT_TRUE(needs(list, "libdnnl.so") && needs(list, "libopenblas.so")) << "the parse found the list";
  for (const char* absent : {"libgvc.so", "libcgraph.so", "libmecab.so", "libfasttext.so", "liblinear.so",
                             "liblbfgs.so", "libOpenCL.so", "libclblast.so"})
    EXPECT_FALSE(needs(list, absent)) << absent;
  EXPECT_LE(list.size(), 16u) << "the list grew: say why in docs/embedding.md";
}

#ifdef INVAR_WITH_OPENCL
TEST(LibraryInterface, OpenClModuleHoldsTheOpenClStackAndExportsItsEntryAlone) {
  const auto list = needed(INVAR_OPENCL_MODULE_FILE);
  EXPECT_TRUE(needs(list, "libOpenCL.so") && needs(list, "libclblast.so"));
  EXPECT_FALSE(needs(list, "libinvar.so")) << "the module holds its own copy of what it uses";
  std::set<std::string> names;
  for (const auto& [name, version] : exported(INVAR_OPENCL_MODULE_FILE)) names.insert(name);
  EXPECT_EQ(names, std::set<std::string>{"invar_opencl_backend_factory"});
}
#endif

}  // namespace
}  // namespace invar::test
