#include "eval/metrics/corpus/report.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdlib>

#include "core/version.hpp"

namespace invar::metrics {

Signature::Signature(int nrefs) {
  fields_.push_back({"nrefs", "#", nrefs < 0 ? std::string("var") : std::to_string(nrefs)});
}

void Signature::add(std::string name, std::string abbreviation, std::string value) {
  fields_.push_back({std::move(name), std::move(abbreviation), std::move(value)});
}

void Signature::set_bootstrap(int samples, unsigned long long seed) {
  // sacrebleu's info dict order: version, nrefs, bs, ar, seed, ... (version printed last).
  fields_.insert(fields_.begin() + 1, {"bs", "bs", std::to_string(samples)});
  fields_.insert(fields_.begin() + 2, {"seed", "rs", std::to_string(seed)});
}

void Signature::set_randomization(int trials, unsigned long long seed) {
  fields_.insert(fields_.begin() + 1, {"ar", "ar", std::to_string(trials)});
  fields_.insert(fields_.begin() + 2, {"seed", "rs", std::to_string(seed)});
}

std::string Signature::format(bool short_form) const {
  std::string out;
  for (const auto& field : fields_) {
    out += short_form ? field.abbreviation : field.name;
    out += ':';
    out += field.value;
    out += '|';
  }
  out += short_form ? "v:" : "version:";
  out += kSacrebleuVersion;
  return out;
}

std::string format_score_only(const ScoreReport& report, int width) {
  std::string out = fmt::format("{:.{}f}", report.score, width);
  if (report.ci_mean > 0)
    out += fmt::format(" (μ = {:.{}f} ± {:.{}f})", report.ci_mean, width, report.ci_half_width, width);
  return out;
}

std::string format_score_line(const ScoreReport& report, const std::string& signature, int width) {
  std::string out = signature.empty() ? report.name : report.name + "|" + signature;
  out += " = " + format_score_only(report, width);
  if (!report.verbose.empty()) out += " " + report.verbose;
  return out;
}

std::string format_score_json(const ScoreReport& report, const std::string& signature, int width, int indent,
                              bool sacrebleu_only) {
  // float(f"{score:.{width}f}"): the rounded text read back as a double.
  auto rounded = [&](double v) { return std::strtod(fmt::format("{:.{}f}", v, width).c_str(), nullptr); };
  nlohmann::ordered_json d;
  d["name"] = report.name;
  d["score"] = rounded(report.score);
  d["signature"] = signature;
  if (report.ci_mean > 0) {
    d["confidence_mean"] = rounded(report.ci_mean);
    d["confidence_var"] = rounded(report.ci_half_width);
    d["confidence"] = fmt::format("μ = {:.{}f} ± {:.{}f}", report.ci_mean, width, report.ci_half_width, width);
  }
  if (!report.verbose.empty()) d["verbose_score"] = report.verbose;
  std::size_t start = 0;
  while (start <= signature.size() && !signature.empty()) {
    auto end = signature.find('|', start);
    auto field = signature.substr(start, end == std::string::npos ? std::string::npos : end - start);
    auto colon = field.find(':');
    d[field.substr(0, colon)] = colon == std::string::npos ? "" : field.substr(colon + 1);
    if (end == std::string::npos) break;
    start = end + 1;
  }
  if (!sacrebleu_only) d["invar_version"] = kVersion;
  return d.dump(indent);
}

}  // namespace invar::metrics
