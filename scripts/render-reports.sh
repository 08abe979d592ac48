#!/usr/bin/env bash
# Writes every HTML report invar makes from the bundled examples and the test fixtures, and renders
# each in headless Chromium at a laptop's window size, so that a person can look at the PNGs: the
# SVG tests check positions, not how a page looks. Not run by CI or CTest (Chromium is no
# dependency of invar): `apt-get install chromium` first.
#
#   scripts/render-reports.sh [BUILD_DIR [OUT_DIR]]      (defaults: build, build/rendered-reports)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
out=${2:-$build/rendered-reports}
invar="$build/invar"
fixtures="$root/tests/fixtures"
browser=$(command -v chromium || command -v chromium-browser || true)
[ -x "$invar" ] || { echo "render-reports: no $invar: build the invar_cli and invar_full targets first" >&2; exit 1; }
[ -n "$browser" ] || { echo "render-reports: no chromium on PATH (apt-get install chromium)" >&2; exit 1; }
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

run() { echo "+ invar $*" >&2; "$invar" -q "$@" >/dev/null; }

# LIP on its bundled example.
run lip --example --preset invar --runs 2 --report "$out/lip.html"

# Isometry at the study's size (8,000 pairs, three detectors), from made-up texts and scores: what
# matters here is how the figures look with that many points.
awk -v n=8000 'BEGIN {
  srand(7)
  split("cat dog bird train car tea meeting noon mat house river tree", w, " ")
  for (i = 1; i <= n; i++) {
    a = w[1 + i % 12] " " w[1 + int(rand() * 12)] " " w[1 + int(rand() * 12)]
    b = (rand() < 0.5) ? a " " w[1 + int(rand() * 12)] : w[1 + int(rand() * 12)] " " w[1 + int(rand() * 12)]
    t1 = a; t2 = (rand() < 0.7) ? b : w[1 + int(rand() * 12)]
    print a "\t" b > "'"$work"'/pairs.tsv"
    print t1 "\t" t2 > "'"$work"'/translations.tsv"
    line = ""
    for (d = 0; d < 3; d++) {
      s = rand(); s = s * s; if (rand() < 0.5) s = 1 - s
      t = s + (rand() - 0.5) * 0.3; if (t < 0) t = 0; if (t > 1) t = 1
      line = line (d ? "\t" : "") sprintf("%.3f\t%.3f", s, t)
    }
    if (i == 1) print "source:mrpc\ttarget:mrpc\tsource:paws\ttarget:paws\tsource:qqp\ttarget:qqp" > "'"$work"'/scores.tsv"
    print line > "'"$work"'/scores.tsv"
  }
}'
run isometry --pairs "$work/pairs.tsv" --translations "$work/translations.tsv" --detector-scores "$work/scores.tsv" \
  --report "$out/isometry.html"
# ... and a small study, whose report also has the per-pair scatter plots.
head -n 120 "$work/pairs.tsv" > "$work/small-pairs.tsv"
head -n 120 "$work/translations.tsv" > "$work/small-translations.tsv"
head -n 121 "$work/scores.tsv" > "$work/small-scores.tsv"
run isometry --pairs "$work/small-pairs.tsv" --translations "$work/small-translations.tsv" \
  --detector-scores "$work/small-scores.tsv" --report "$out/isometry-small.html"

# Semantic robustness: two populations of the fixture classifier, and its layer ablation. (The
# fixture classifiers predict one class, so the populations' bars have no spread to draw:
# tests/eval/test_charts.cpp checks error bars.)
model="$fixtures/core/bert-pair-cls"
examples="$root/examples/robustness"
run robustness score -m "$model" -m "$model" --compare-models <(printf '%s\n%s\n' "$model" "$model") \
  --name vanilla --compare-name augmented --task "$examples/task.tsv" --bundled \
  --label-map not_paraphrase=negative,paraphrase=positive --report "$out/robustness.html"
run robustness ablate -m "$model" --train "$examples/train.tsv" --task "$examples/task.tsv" --bundled \
  --report "$out/robustness-ablation.html"

# Metamorphic testing: pairwise order and compositionality on the fixture classifier.
metamorphic="$root/examples/metamorphic"
run metamorphic pairwise -m "$model" --label paraphrase --sources "$metamorphic/reviews.txt" --transform neutral \
  --report "$out/metamorphic-pairwise.html"
run metamorphic compositionality -m "$model" --label paraphrase --contexts "$metamorphic/contexts.tsv" \
  --insertions "$metamorphic/insertions.tsv" --report "$out/metamorphic-compositionality.html"

# Style-transfer evaluation with every metric (the 22-column system table).
st="$fixtures/st_eval"
run st-eval --table "$st/judgements.tsv" --formality "$fixtures/core/xlmr-regression" \
  --sts "$fixtures/core/xlmr-regression" --mlm "$fixtures/core/xlmr-mlm" --bertscore-model "$fixtures/core/bert-wordpiece" \
  --bertscore-layer 2 --vectors "$fixtures/stmetrics/wordvecs.vec" --report "$out/st-eval.html"

for page in "$out"/*.html; do
  png="${page%.html}.png"
  # A laptop's width and a tall window: the screenshot is of the window, not of the whole page.
  "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1280,9000 \
    --screenshot="$png" "file://$page" >/dev/null 2>&1
  echo "$png"
done
