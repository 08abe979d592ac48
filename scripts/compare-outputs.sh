#!/usr/bin/env bash
# Runs every command of invar on the repository's fixtures and writes each one's standard output
# and written files under OUT, so that two builds (before and after a change meant to keep
# behaviour) can be compared with `diff -r OUT_BEFORE OUT_AFTER`.
#   scripts/compare-outputs.sh BUILD_DIR OUT
set -uo pipefail
build=$(cd "$1" && pwd); out=$2
cd "$(dirname "$0")/.."
rm -rf "$out"; mkdir -p "$out"; out=$(cd "$out" && pwd)
F=tests/fixtures; C=$F/core; S=$F/seq2seq; E=examples
texts=$out/texts.txt; pairs=$out/pairs.tsv
head -n 12 $F/st_eval/informal.txt > "$texts"
paste <(head -n 12 $F/st_eval/informal.txt) <(head -n 12 $F/st_eval/formal.txt) > "$pairs"
n=0
run() {  # NAME COMMAND...: stdout to NAME.out, exit status and stderr's last line to NAME.status
  local name=$1; shift
  (cd "$out" && "$@" > "$name.out" 2> "$name.err"; echo "exit $?" > "$name.status")
  sed -i "s#$out#OUT#g; s#$PWD#SRC#g" "$out/$name.out" "$out/$name.err" 2>/dev/null
  n=$((n + 1))
}
I=$build/invar-full
for m in bert-wordpiece mpnet xlmr; do
  run embed-$m $I embed -m $PWD/$C/$m -i "$texts" --deterministic
  run embed-npy-$m $I embed -m $PWD/$C/$m -i "$texts" --output-format npy -o embed-$m.npy
  run hidden-$m $I hidden -m $PWD/$C/$m -i "$texts" --layer 1
  run similarity-$m $I similarity -m $PWD/$C/$m -i "$pairs"
  run tokenize-$m $I tokenize -m $PWD/$C/$m --input "$texts"
done
for m in bert-pair-cls mbert-pair-cls xlmr-pair-cls xlmr-regression; do
  run classify-$m $I classify -m $PWD/$C/$m -i "$pairs" --pairs
done
for m in bert-mlm xlmr-mlm; do run pll-$m $I pll -m $PWD/$C/$m -i "$texts" --ppl; done
for m in bart fsmt m2m100 mbart pegasus t5 t5-gated; do
  lang=(); [ $m = mbart ] && lang=(--src-lang en_XX --tgt-lang de_DE); [ $m = m2m100 ] && lang=(--src-lang en --tgt-lang de)
  run translate-$m $I translate -m $PWD/$S/$m -i "$texts" "${lang[@]}" --max-new-tokens 12
  run generate-$m $I generate -m $PWD/$S/$m -i "$texts" "${lang[@]}" --beam 3 --n-best 2 --max-new-tokens 10
  run sample-$m $I generate -m $PWD/$S/$m -i "$texts" "${lang[@]}" --sample --seed 3 --top-k 20 --max-new-tokens 8
  run score-$m $I score -m $PWD/$S/$m -i "$pairs" "${lang[@]}"
done
run translate-marian $I translate -m $PWD/$C/marian -i "$texts" --beam 4 --max-new-tokens 12
run info-marian $I info $PWD/$C/marian
run info-xlmr $I info $PWD/$C/xlmr
run convert-bert $I convert $PWD/$C/bert-wordpiece -o bert.invar
run embed-bert-invar $I embed -m bert.invar -i "$texts"
run convert-int8 $I convert $PWD/$C/xlmr --dtype int8 -o xlmr8.invar
run embed-int8 $I embed -m xlmr8.invar -i "$texts" --weights int8
(cd "$out" && sha256sum bert.invar xlmr8.invar embed-*.npy > invar-files.sha256)
for tool in "$build/invar" "$I"; do
  b=$(basename $tool)
  run bleu-$b $tool metric bleu --hyp $PWD/$F/st_eval/polite.txt --ref $PWD/$F/st_eval/formal.txt
  run chrf-$b $tool metric chrf --hyp $PWD/$F/st_eval/polite.txt --ref $PWD/$F/st_eval/formal.txt --word-order 2
  run ter-$b $tool metric ter --hyp $PWD/$F/st_eval/polite.txt --ref $PWD/$F/st_eval/formal.txt
  run bleu-sent-$b $tool metric bleu --hyp $PWD/$F/st_eval/noisy.txt --ref $PWD/$F/st_eval/formal.txt --sentence
done
run meteor $I metric meteor --hyp $PWD/$F/st_eval/polite.txt --ref $PWD/$F/st_eval/formal.txt
run wmd $I metric wmd --hyp $PWD/$F/st_eval/polite.txt --ref $PWD/$F/st_eval/formal.txt --vectors $PWD/$F/stmetrics/wordvecs.vec --sentence
run wvcos $I metric wvcos --hyp $PWD/$F/st_eval/polite.txt --ref $PWD/$F/st_eval/formal.txt --vectors $PWD/$F/stmetrics/wordvecs.vec --sentence
run bertscore $I metric bertscore --layer 2 -m $PWD/$C/bert-wordpiece -r $PWD/$F/st_eval/formal.txt -i $PWD/$F/st_eval/polite.txt
run st-eval $I st-eval --inputs $PWD/$F/st_eval/informal.txt --system copy=$PWD/$F/st_eval/copy.txt \
  --system polite=$PWD/$F/st_eval/polite.txt --system noisy=$PWD/$F/st_eval/noisy.txt --ref $PWD/$F/st_eval/formal.txt --csv
run st-eval-table $I st-eval --table en=$PWD/$F/st_eval/judgements.tsv
run lip-example $I lip --example --report lip.html --predictions lip-predictions.jsonl
run lip-embed $I lip --train $PWD/$E/lip/train.tsv --original $PWD/$E/lip/original.tsv --transformed $PWD/$E/lip/transformed.tsv --classifier se -m $PWD/$C/bert-wordpiece
run mm-pairwise $I metamorphic pairwise -m $PWD/$C/bert-pair-cls --sources $PWD/$E/metamorphic/reviews.txt --transform neutral --per-source per-source.jsonl --csv counts.csv --report pairwise.html
run mm-single $I metamorphic single -m $PWD/$C/bert-pair-cls --sources $PWD/$E/metamorphic/reviews.txt --transform lexicon:$PWD/$E/metamorphic/lexicon.tsv --transform typo=noise:0.05 --property equivalence
run mm-scores $I metamorphic pairwise --scores $PWD/$E/metamorphic/scores.tsv
run mm-comp $I metamorphic compositionality -m $PWD/$C/bert-pair-cls --contexts $PWD/$E/metamorphic/contexts.tsv --insertions $PWD/$E/metamorphic/insertions.tsv
run mm-trans $I metamorphic transitivity -m $PWD/$C/bert-pair-cls --label paraphrase --triplets $PWD/$E/metamorphic/triplets.tsv
run mm-diagram $I metamorphic diagram pairwise-equivalence --dot
run mm-transforms $I metamorphic single -m $PWD/$C/bert-pair-cls --sources $PWD/$E/metamorphic/reviews.txt --transform char-insert:0.1 --transform char-delete:0.1 --transform char-shuffle:0.5 --transform synonym:0.5 --transform antonym:1 --transform sentence-shuffle --transform paraphrase:$PWD/$C/marian --seed 3 --per-source mm-transforms.jsonl
run mm-comp-inputs $I metamorphic compositionality -m $PWD/$C/bert-pair-cls --contexts $PWD/$E/metamorphic/contexts.tsv --insertions $PWD/$E/metamorphic/insertions.tsv --per-source mm-comp.jsonl
run mm-trans-triplets $I metamorphic transitivity -m $PWD/$C/bert-pair-cls --label paraphrase --triplets $PWD/$E/metamorphic/triplets.tsv --per-source mm-trans.jsonl
for d in compositionality transitivity; do run mm-diagram-$d $I metamorphic diagram $d --dot; done
run rob-expand $I robustness expand --bundled -o bed.tsv
run rob-score $I robustness score -m $PWD/$C/bert-pair-cls --task $PWD/$E/robustness/task.tsv --bundled --label-map not_paraphrase=negative,paraphrase=positive --csv rob.csv --report rob.html
run rob-ablate $I robustness ablate -m $PWD/$C/bert-wordpiece --train $PWD/$E/robustness/train.tsv --task $PWD/$E/robustness/task.tsv --bundled
paste <(head -n 6 $F/st_eval/informal.txt) <(head -n 6 $F/st_eval/formal.txt) <(head -n 6 $F/st_eval/polite.txt) > "$out/iso-pairs.tsv"
run isometry $I isometry --pairs iso-pairs.tsv --translator $PWD/$C/marian --detector $PWD/$C/bert-pair-cls --json
run stats-pearson "$build/invar" stats pearson --help
run metaeval $I metaeval --scores $PWD/$F/st_eval/judgements.tsv --help
sed -i 's/[0-9.]* s\b/T s/g; s/elapsed [0-9:.]*/elapsed T/g' "$out"/*.err
echo "ran $n commands into $out" >&2
