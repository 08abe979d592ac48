#!/usr/bin/env bash
# Installs, with apt, exactly the Debian 12 packages invar needs that are not installed yet.
set -euo pipefail
packages=(
  build-essential cmake pkg-config ccache git
  libeigen3-dev libopenblas-dev libdnnl-dev
  ocl-icd-opencl-dev opencl-headers libclblast-dev pocl-opencl-icd clinfo
  libsentencepiece-dev libcli11-dev nlohmann-json3-dev libutf8proc-dev libpcre2-dev libzip-dev zlib1g-dev unzip
  libmecab-dev mecab-utils mecab-ipadic mecab-ipadic-utf8 liblinear-dev liblbfgs-dev libgraphviz-dev
  libboost-dev libfmt-dev libgtest-dev libgmock-dev libbenchmark-dev libxxhash-dev libxml2-dev
  libopenmpi-dev openmpi-bin
  wordnet-base liblemon-dev libfasttext-dev
  help2man zsh
  clang libclang-rt-14-dev
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "invar: installing ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
