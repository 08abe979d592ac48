#include "tools/output_form.hpp"

namespace invar::cli {

CLI::Option* add_output_form_option(CLI::App& command, const std::string& name, bool& chosen, std::string& output,
                                    const std::string& help) {
  const auto set = [&command, name, &chosen, &output](const std::string& file) {
    chosen = true;
    if (file.empty()) return;
    if (command.count("--output") > 0)
      throw CLI::ValidationError(name + " FILE", "names the output as -o/--output does: give one of them");
    output = file;
  };
  return command
      .add_option_function<std::string>(
          name, set, help + " (" + name + " FILE writes it to FILE; alone, to -o or standard output)")
      ->expected(0, 1)
      ->type_name("[FILE]");
}

}  // namespace invar::cli
