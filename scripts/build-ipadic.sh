#!/usr/bin/env bash
# Compiles the IPA dictionary sacrebleu's ja-mecab asserts (392,126 entries) into OUTDIR:
# Debian's mecab-ipadic source (EUC-JP CSVs in /usr/share/mecab/dic/ipadic) without the one entry
# Debian adds (令和), as UTF-8. Usage: scripts/build-ipadic.sh OUTDIR [path of mecab-dict-index]
set -euo pipefail
out=${1:?usage: build-ipadic.sh OUTDIR [mecab-dict-index]}
dict_index=${2:-/usr/lib/mecab/mecab-dict-index}
source_dir=/usr/share/mecab/dic/ipadic
[ -f "$source_dir/Noun.proper.csv" ] || { echo "build-ipadic: install Debian's mecab-ipadic ($source_dir)" >&2; exit 1; }
[ -x "$dict_index" ] || { echo "build-ipadic: install Debian's mecab-utils ($dict_index)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$source_dir"/* "$work"/
reiwa=$(printf '令和' | iconv -f utf-8 -t euc-jp)
LC_ALL=C grep -a -v "^$reiwa," "$source_dir/Noun.proper.csv" > "$work/Noun.proper.csv"
mkdir -p "$out.tmp"
"$dict_index" -d "$work" -o "$out.tmp" -f euc-jp -t utf-8 > "$work/log" 2>&1 || { cat "$work/log" >&2; exit 1; }
# As Debian's mecab-ipadic-utf8 writes it: the same dicrc, declared UTF-8.
sed 's/^config-charset = EUC-JP$/config-charset = UTF-8/' "$source_dir/dicrc" > "$out.tmp/dicrc"
rm -rf "$out"
mv "$out.tmp" "$out"
