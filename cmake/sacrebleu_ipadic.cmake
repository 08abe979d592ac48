# sacrebleu's ja-mecab dictionary. sacrebleu asserts IPADIC with 392,126 entries (the `ipadic`
# Python package); Debian's compiled mecab-ipadic-utf8 adds 令和 (392,127). When Debian's IPADIC
# source (mecab-ipadic) and mecab-dict-index (mecab-utils) are installed, the build compiles the
# exact dictionary from that source without Debian's added entry, and ja-mecab finds it here.
set(INVAR_SACREBLEU_IPADIC_DIR ${CMAKE_BINARY_DIR}/share/ipadic-sacrebleu)
set_source_files_properties(${CMAKE_SOURCE_DIR}/eval/metrics/tokenizers/mecab.cpp PROPERTIES
  COMPILE_DEFINITIONS INVAR_SACREBLEU_IPADIC="${INVAR_SACREBLEU_IPADIC_DIR}")
find_program(MECAB_DICT_INDEX mecab-dict-index PATHS /usr/lib/mecab /usr/libexec/mecab)
if(MECAB_DICT_INDEX AND EXISTS /usr/share/mecab/dic/ipadic/Noun.proper.csv)
  add_custom_command(
    OUTPUT ${INVAR_SACREBLEU_IPADIC_DIR}/sys.dic
    COMMAND ${CMAKE_SOURCE_DIR}/scripts/build-ipadic.sh ${INVAR_SACREBLEU_IPADIC_DIR} ${MECAB_DICT_INDEX}
    DEPENDS ${CMAKE_SOURCE_DIR}/scripts/build-ipadic.sh
    COMMENT "Compiling sacrebleu's IPADIC (Debian's source without 令和) for ja-mecab")
  add_custom_target(sacrebleu_ipadic DEPENDS ${INVAR_SACREBLEU_IPADIC_DIR}/sys.dic)
endif()
