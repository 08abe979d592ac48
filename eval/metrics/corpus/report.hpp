#pragma once
// sacrebleu-style signatures and score lines. A signature names every setting that changes a
// score (`nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.4.3`); its `version` is the
// sacrebleu release whose algorithm invar reproduces, so signatures compare equal with sacrebleu's.
// invar's own version is reported beside it (JSON field "invar_version").
#include <string>
#include <vector>

namespace invar::metrics {

// The sacrebleu release the BLEU, chrF and TER implementations match exactly.
inline constexpr const char* kSacrebleuVersion = "2.4.3";

class Signature {
 public:
  // nrefs < 0 means a variable number of references per segment ("nrefs:var").
  explicit Signature(int nrefs);
  // Appends a metric setting (after nrefs and any resampling fields, before version).
  void add(std::string name, std::string abbreviation, std::string value);
  // Bootstrap resampling fields (sacrebleu's bs / seed), placed right after nrefs.
  void set_bootstrap(int samples, unsigned long long seed);
  // Paired approximate randomization fields (sacrebleu's ar / seed), placed right after nrefs.
  void set_randomization(int trials, unsigned long long seed);
  // "name:value|..." with `version` last; short_form uses the abbreviations ("#:1|c:mixed|...").
  std::string format(bool short_form = false) const;

 private:
  struct Field {
    std::string name, abbreviation, value;
  };
  std::vector<Field> fields_;  // nrefs, [bs, seed], settings...
};

// What sacrebleu's Score.format prints.
struct ScoreReport {
  std::string name;     // "BLEU", "chrF2", "chrF2++", "TER"
  double score = 0;
  std::string verbose;  // BLEU's "55.6/30.0/... (BP = ...)"; empty otherwise
  // Bootstrap confidence (sacrebleu's μ = mean ± half the 95% interval); used when mean > 0.
  double ci_mean = -1;
  double ci_half_width = -1;
};

// "BLEU|nrefs:1|...|version:2.4.3 = 44.1 61.5/29.0/... (BP = ...)" (the name alone without signature).
std::string format_score_line(const ScoreReport& report, const std::string& signature, int width = 2);
// Just the number, as sacrebleu --score-only prints it.
std::string format_score_only(const ScoreReport& report, int width = 2);
// The JSON sacrebleu's CLI prints (json.dumps(indent=1, ensure_ascii=False)): name, score
// (rounded to `width` decimals), signature, [confidence fields], [verbose_score], then every
// signature field as a string; followed by "invar_version" unless `sacrebleu_only` (invar sacrebleu's
// byte-identical output).
std::string format_score_json(const ScoreReport& report, const std::string& signature, int width = 2, int indent = 1,
                              bool sacrebleu_only = false);

}  // namespace invar::metrics
