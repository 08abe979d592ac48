#include <gtest/gtest.h>

#include "core/error.hpp"
#include "engine/seq2seq.hpp"
#include "loaders/model_source.hpp"
#include "models/hf_config.hpp"
#include "models/seq2seq_spec.hpp"
#include "support/model_files.hpp"
#include "support/test_support.hpp"

using namespace invar;

namespace {

ModelConfig fixture_config(const std::string& folder) {
  return parse_model_config(test::load_json(test::fixture(folder + "/config.json")), folder);
}

ModelConfig minimal(const std::string& json) { return parse_model_config(nlohmann::json::parse(json), "config.json"); }

std::string config_error(const std::string& json) {
  try {
    minimal(json);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST(HfConfig, BertFixture) {
  const ModelConfig c = fixture_config("core/bert-wordpiece");
  EXPECT_EQ(c.family, ModelFamily::Bert);
  EXPECT_EQ(c.model_type, "bert");
  EXPECT_EQ(c.architectures, std::vector<std::string>{"BertModel"});
  EXPECT_FALSE(c.is_encoder_decoder);
  EXPECT_EQ(c.vocab_size, 171);
  EXPECT_EQ(c.hidden_size, 32);
  EXPECT_EQ(c.encoder_layers, 2);
  EXPECT_EQ(c.decoder_layers, 0);
  EXPECT_EQ(c.encoder_attention_heads, 4);
  EXPECT_EQ(c.head_dim, 8);
  EXPECT_EQ(c.encoder_ffn_dim, 64);
  EXPECT_EQ(c.activation, "gelu");
  EXPECT_EQ(c.layer_norm_eps, 1e-12);
  EXPECT_EQ(c.type_vocab_size, 2);
  EXPECT_EQ(c.max_position_embeddings, 512);
  EXPECT_EQ(c.position_embedding_type, "absolute");
  EXPECT_EQ(c.pad_token_id, 0);
  EXPECT_FALSE(c.bos_token_id.has_value());
  EXPECT_EQ(c.num_labels(), 2);  // PretrainedConfig's default labels
  EXPECT_EQ(c.id2label.at(1), "LABEL_1");
}

TEST(HfConfig, ClassificationLabelsAndProblemType) {
  const ModelConfig pair = fixture_config("core/bert-pair-cls");
  EXPECT_EQ(pair.num_labels(), 2);
  EXPECT_EQ(pair.id2label.at(0), "not_paraphrase");
  EXPECT_EQ(pair.label2id.at("paraphrase"), 1);
  EXPECT_EQ(pair.problem_type, ProblemType::Unspecified);
  const ModelConfig regression = fixture_config("core/xlmr-regression");
  EXPECT_EQ(regression.family, ModelFamily::XlmRoberta);
  EXPECT_EQ(regression.num_labels(), 1);
  EXPECT_EQ(regression.problem_type, ProblemType::Regression);
  EXPECT_EQ(regression.type_vocab_size, 1);
  EXPECT_EQ(regression.max_position_embeddings, 66);
  EXPECT_EQ(regression.pad_token_id, 1);
  // num_labels alone makes LABEL_i names; label2id mirrors them.
  const ModelConfig three = minimal(R"({"model_type": "roberta", "num_labels": 3})");
  EXPECT_EQ(three.num_labels(), 3);
  EXPECT_EQ(three.label2id.at("LABEL_2"), 2);
  EXPECT_EQ(minimal(R"({"model_type": "bart"})").num_labels(), 3);  // BartConfig's num_labels=3
}

TEST(HfConfig, MarianFixture) {
  const ModelConfig c = fixture_config("core/marian");
  EXPECT_EQ(c.family, ModelFamily::Marian);
  EXPECT_TRUE(c.is_encoder_decoder);
  EXPECT_EQ(c.vocab_size, 191);
  EXPECT_EQ(c.target_vocab_size, 191);
  EXPECT_EQ(c.hidden_size, 32);
  EXPECT_EQ(c.encoder_layers, 2);
  EXPECT_EQ(c.decoder_layers, 2);
  EXPECT_EQ(c.decoder_attention_heads, 4);
  EXPECT_EQ(c.decoder_ffn_dim, 64);
  EXPECT_EQ(c.activation, "swish");
  EXPECT_EQ(c.layer_norm_eps, 1e-5);
  EXPECT_FALSE(c.scale_embedding);
  EXPECT_EQ(c.decoder_start_token_id, 190);
  EXPECT_EQ(c.pad_token_id, 190);
  EXPECT_EQ(c.eos_token_id, 0);
  EXPECT_EQ(c.generation.num_beams, 4);
  EXPECT_EQ(c.generation.max_length, 24);
  EXPECT_EQ(c.generation.forced_eos_token_id, 0);
  EXPECT_FALSE(c.generation.forced_bos_token_id.has_value());
}

TEST(HfConfig, T5FixtureAndDefaults) {
  const ModelConfig c = fixture_config("seq2seq/t5");
  EXPECT_EQ(c.head_dim, 8);
  EXPECT_EQ(c.relative_attention_num_buckets, 8);
  EXPECT_EQ(c.relative_attention_max_distance, 20);
  EXPECT_EQ(c.max_position_embeddings, 0);
  const ModelConfig d = minimal(R"({"model_type": "t5", "num_layers": 3})");
  EXPECT_EQ(d.vocab_size, 32128);
  EXPECT_EQ(d.hidden_size, 512);
  EXPECT_EQ(d.head_dim, 64);
  EXPECT_EQ(d.encoder_ffn_dim, 2048);
  EXPECT_EQ(d.decoder_layers, 3);  // num_decoder_layers defaults to num_layers
  EXPECT_EQ(d.encoder_attention_heads, 8);
  EXPECT_EQ(d.relative_attention_num_buckets, 32);
  EXPECT_EQ(d.relative_attention_max_distance, 128);
  EXPECT_EQ(d.layer_norm_eps, 1e-6);
  EXPECT_EQ(d.activation, "relu");
  EXPECT_FALSE(d.is_gated_act);
  EXPECT_TRUE(d.tie_word_embeddings);
  EXPECT_TRUE(d.is_encoder_decoder);
  EXPECT_EQ(d.pad_token_id, 0);
  EXPECT_EQ(d.eos_token_id, 1);
  const ModelConfig gated = minimal(R"({"model_type": "t5", "feed_forward_proj": "gated-gelu"})");
  EXPECT_TRUE(gated.is_gated_act);
  EXPECT_EQ(gated.activation, "gelu_new");
  const ModelConfig silu = minimal(R"({"model_type": "t5", "feed_forward_proj": "gated-silu"})");
  EXPECT_EQ(silu.activation, "silu");
  EXPECT_NE(config_error(R"({"model_type": "t5", "feed_forward_proj": "fancy-gelu"})").find("'fancy-gelu'"),
            std::string::npos);
}

TEST(HfConfig, BartFamilyDefaults) {
  const ModelConfig bart = minimal(R"({"model_type": "bart"})");
  EXPECT_EQ(bart.vocab_size, 50265);
  EXPECT_EQ(bart.hidden_size, 1024);
  EXPECT_EQ(bart.encoder_layers, 12);
  EXPECT_EQ(bart.encoder_attention_heads, 16);
  EXPECT_EQ(bart.encoder_ffn_dim, 4096);
  EXPECT_EQ(bart.max_position_embeddings, 1024);
  EXPECT_EQ(bart.activation, "gelu");
  EXPECT_FALSE(bart.scale_embedding);
  EXPECT_EQ(bart.decoder_start_token_id, 2);
  EXPECT_EQ(bart.pad_token_id, 1);
  EXPECT_EQ(bart.bos_token_id, 0);
  EXPECT_EQ(bart.generation.forced_eos_token_id, 2);

  const ModelConfig mbart = minimal(R"({"model_type": "mbart"})");
  EXPECT_FALSE(mbart.decoder_start_token_id.has_value());
  EXPECT_EQ(mbart.generation.forced_eos_token_id, 2);

  const ModelConfig pegasus = minimal(R"({"model_type": "pegasus"})");
  EXPECT_EQ(pegasus.pad_token_id, 0);
  EXPECT_EQ(pegasus.eos_token_id, 1);
  EXPECT_EQ(pegasus.decoder_start_token_id, 0);
  EXPECT_FALSE(pegasus.bos_token_id.has_value());
  EXPECT_EQ(pegasus.generation.forced_eos_token_id, 1);

  const ModelConfig m2m = minimal(R"({"model_type": "m2m_100"})");
  EXPECT_EQ(m2m.vocab_size, 128112);
  EXPECT_EQ(m2m.activation, "relu");
  EXPECT_TRUE(m2m.scale_embedding);
  EXPECT_EQ(m2m.decoder_start_token_id, 2);
  EXPECT_FALSE(m2m.generation.forced_eos_token_id.has_value());

  const ModelConfig marian = minimal(R"({"model_type": "marian", "vocab_size": 100, "decoder_vocab_size": 80})");
  EXPECT_EQ(marian.target_vocab_size, 80);
  EXPECT_EQ(minimal(R"({"model_type": "marian"})").pad_token_id, 58100);
  EXPECT_EQ(minimal(R"({"model_type": "marian"})").vocab_size, 58101);

  const ModelConfig fsmt = minimal(R"({"model_type": "fsmt", "src_vocab_size": 10, "tgt_vocab_size": 12})");
  EXPECT_EQ(fsmt.vocab_size, 10);
  EXPECT_EQ(fsmt.target_vocab_size, 12);
  EXPECT_TRUE(fsmt.scale_embedding);
  EXPECT_FALSE(fsmt.tie_word_embeddings);
  EXPECT_EQ(fsmt.generation.num_beams, 5);
  EXPECT_EQ(fsmt.generation.max_length, 200);
}

TEST(HfConfig, EncoderFamilyDefaults) {
  const ModelConfig bert = minimal(R"({"model_type": "bert"})");
  EXPECT_EQ(bert.vocab_size, 30522);
  EXPECT_EQ(bert.hidden_size, 768);
  EXPECT_EQ(bert.encoder_ffn_dim, 3072);
  EXPECT_EQ(bert.type_vocab_size, 2);
  EXPECT_EQ(bert.layer_norm_eps, 1e-12);
  EXPECT_EQ(bert.head_dim, 64);
  const ModelConfig roberta = minimal(R"({"model_type": "roberta"})");
  EXPECT_EQ(roberta.pad_token_id, 1);
  EXPECT_EQ(roberta.eos_token_id, 2);
  const ModelConfig mpnet = minimal(R"({"model_type": "mpnet"})");
  EXPECT_EQ(mpnet.vocab_size, 30527);
  EXPECT_EQ(mpnet.relative_attention_num_buckets, 32);
  EXPECT_EQ(mpnet.type_vocab_size, 0);
}

// DistilBertConfig, ElectraConfig, AlbertConfig and DebertaV2Config of transformers 4.19, and the
// fields the DeBERTa-v2 model code reads with getattr fallbacks.
TEST(HfConfig, NewerEncoderFamilyDefaults) {
  const ModelConfig distilbert = minimal(R"({"model_type": "distilbert"})");
  EXPECT_EQ(distilbert.vocab_size, 30522);
  EXPECT_EQ(distilbert.hidden_size, 768);
  EXPECT_EQ(distilbert.embedding_size, 768);
  EXPECT_EQ(distilbert.encoder_layers, 6);
  EXPECT_EQ(distilbert.encoder_attention_heads, 12);
  EXPECT_EQ(distilbert.encoder_ffn_dim, 3072);
  EXPECT_EQ(distilbert.activation, "gelu");
  EXPECT_EQ(distilbert.max_position_embeddings, 512);
  EXPECT_EQ(distilbert.layer_norm_eps, 1e-12);
  EXPECT_EQ(distilbert.type_vocab_size, 0);
  EXPECT_EQ(distilbert.pad_token_id, 0);
  const ModelConfig named = minimal(R"({"model_type": "distilbert", "dim": 64, "n_layers": 3, "n_heads": 2,
                                        "hidden_dim": 100, "activation": "relu"})");
  EXPECT_EQ(named.hidden_size, 64);
  EXPECT_EQ(named.encoder_layers, 3);
  EXPECT_EQ(named.head_dim, 32);
  EXPECT_EQ(named.encoder_ffn_dim, 100);
  EXPECT_EQ(named.activation, "relu");

  const ModelConfig electra = minimal(R"({"model_type": "electra"})");
  EXPECT_EQ(electra.vocab_size, 30522);
  EXPECT_EQ(electra.embedding_size, 128);
  EXPECT_EQ(electra.hidden_size, 256);
  EXPECT_EQ(electra.encoder_layers, 12);
  EXPECT_EQ(electra.encoder_attention_heads, 4);
  EXPECT_EQ(electra.encoder_ffn_dim, 1024);
  EXPECT_EQ(electra.type_vocab_size, 2);
  EXPECT_EQ(electra.layer_norm_eps, 1e-12);

  const ModelConfig albert = minimal(R"({"model_type": "albert"})");
  EXPECT_EQ(albert.vocab_size, 30000);
  EXPECT_EQ(albert.embedding_size, 128);
  EXPECT_EQ(albert.hidden_size, 4096);
  EXPECT_EQ(albert.encoder_layers, 12);
  EXPECT_EQ(albert.num_hidden_groups, 1);
  EXPECT_EQ(albert.inner_group_num, 1);
  EXPECT_EQ(albert.encoder_attention_heads, 64);
  EXPECT_EQ(albert.encoder_ffn_dim, 16384);
  EXPECT_EQ(albert.activation, "gelu_new");
  EXPECT_EQ(albert.pad_token_id, 0);
  EXPECT_EQ(albert.bos_token_id, 2);
  EXPECT_EQ(albert.eos_token_id, 3);

  const ModelConfig deberta = minimal(R"({"model_type": "deberta-v2"})");
  EXPECT_EQ(deberta.vocab_size, 128100);
  EXPECT_EQ(deberta.hidden_size, 1536);
  EXPECT_EQ(deberta.embedding_size, 1536);
  EXPECT_EQ(deberta.encoder_layers, 24);
  EXPECT_EQ(deberta.encoder_attention_heads, 24);
  EXPECT_EQ(deberta.encoder_ffn_dim, 6144);
  EXPECT_EQ(deberta.layer_norm_eps, 1e-7);
  EXPECT_EQ(deberta.type_vocab_size, 0);
  EXPECT_FALSE(deberta.relative_attention);
  EXPECT_EQ(deberta.max_relative_positions, 512);  // -1 means max_position_embeddings
  EXPECT_EQ(deberta.position_buckets, 0);
  EXPECT_TRUE(deberta.pos_att_type.empty());
  EXPECT_FALSE(deberta.share_att_key);
  EXPECT_EQ(deberta.norm_rel_ebd, "none");
  EXPECT_TRUE(deberta.position_biased_input);
  EXPECT_EQ(deberta.pooler_hidden_act, "gelu");
  // pos_att_type as DebertaV2Config also takes it: one string split on '|'.
  const ModelConfig joined = minimal(R"({"model_type": "deberta-v2", "pos_att_type": "P2C|c2p"})");
  EXPECT_EQ(joined.pos_att_type, (std::vector<std::string>{"p2c", "c2p"}));
  const ModelConfig v3 = fixture_config("core/deberta-v3");
  EXPECT_TRUE(v3.relative_attention);
  EXPECT_EQ(v3.max_relative_positions, 64);
  EXPECT_EQ(v3.position_buckets, 16);
  EXPECT_TRUE(v3.share_att_key);
  EXPECT_EQ(v3.norm_rel_ebd, "layer_norm");
  EXPECT_FALSE(v3.position_biased_input);
  EXPECT_NE(config_error(R"({"model_type": "deberta-v2", "pos_att_type": ["p2p"]})").find("'p2p'"), std::string::npos);
  EXPECT_NE(config_error(R"({"model_type": "deberta-v2", "conv_kernel_size": 3})").find("conv_kernel_size"),
            std::string::npos);
}

TEST(HfConfig, GenerationFieldsAndExplicitNulls) {
  const ModelConfig c = minimal(R"({"model_type": "bart", "bos_token_id": null, "num_beams": 6, "min_length": 3,
      "length_penalty": 0.8, "early_stopping": true, "no_repeat_ngram_size": 3, "forced_bos_token_id": 250004,
      "bad_words_ids": [[5], [6, 7]], "forced_eos_token_id": null})");
  EXPECT_FALSE(c.bos_token_id.has_value());  // null is Python's None, not the default 0
  EXPECT_EQ(c.generation.num_beams, 6);
  EXPECT_EQ(c.generation.min_length, 3);
  EXPECT_EQ(c.generation.length_penalty, 0.8);
  EXPECT_TRUE(c.generation.early_stopping);
  EXPECT_EQ(c.generation.no_repeat_ngram_size, 3);
  EXPECT_EQ(c.generation.forced_bos_token_id, 250004);
  EXPECT_FALSE(c.generation.forced_eos_token_id.has_value());
  EXPECT_EQ(c.generation.bad_words_ids, (std::vector<std::vector<std::int64_t>>{{5}, {6, 7}}));
  EXPECT_TRUE(c.generation.unsupported.empty());
  const ModelConfig d = minimal(R"({"model_type": "bart"})");
  EXPECT_EQ(d.generation.num_beams, 1);
  EXPECT_EQ(d.generation.max_length, 20);
  EXPECT_EQ(d.generation.length_penalty, 1.0);
  EXPECT_TRUE(d.generation.bad_words_ids.empty());
  EXPECT_EQ(d.generation.repetition_penalty, 1.0);
}

TEST(HfConfig, RepetitionSettingsAreReadAndGroupBeamSearchIsListedAsUnimplemented) {
  const ModelConfig c = minimal(R"({"model_type": "bart", "repetition_penalty": 1.3, "num_beam_groups": 2,
      "diversity_penalty": 0.5, "encoder_no_repeat_ngram_size": 3})");
  EXPECT_EQ(c.generation.repetition_penalty, 1.3);
  EXPECT_EQ(c.generation.encoder_no_repeat_ngram_size, 3);
  ASSERT_EQ(c.generation.unsupported.size(), 1u);
  EXPECT_NE(c.generation.unsupported[0].find("config.json: num_beam_groups 2"), std::string::npos);
  // The no-op value is nothing to warn about.
  EXPECT_TRUE(minimal(R"({"model_type": "bart", "num_beam_groups": 1})").generation.unsupported.empty());
  EXPECT_EQ(minimal(R"({"model_type": "bart"})").generation.encoder_no_repeat_ngram_size, 0);
}

TEST(HfConfig, ErrorsNameFileAndField) {
  EXPECT_NE(config_error(R"({"model_type": "gpt2"})").find("config.json: unknown model_type 'gpt2' (supported: bert"),
            std::string::npos);
  EXPECT_NE(config_error(R"({"hidden_size": 4})").find("config.json: no 'model_type'"), std::string::npos);
  EXPECT_NE(config_error(R"({"model_type": "bert", "hidden_size": "big"})")
                .find("config.json: field 'hidden_size' must be an integer, got \"big\""),
            std::string::npos);
  EXPECT_NE(config_error(R"({"model_type": "bert", "hidden_size": 30, "num_attention_heads": 4})")
                .find("not a multiple of the number of attention heads"),
            std::string::npos);
  EXPECT_NE(config_error(R"({"model_type": "bert", "problem_type": "ranking"})").find("problem_type 'ranking'"),
            std::string::npos);
  EXPECT_NE(config_error(R"({"model_type": "bert", "id2label": {"x": "a"}})").find("id2label entry \"x\""),
            std::string::npos);
  EXPECT_NE(config_error(R"({"model_type": "bart", "bad_words_ids": [5]})").find("'bad_words_ids'"),
            std::string::npos);
  EXPECT_NE(config_error(R"({"model_type": "bert", "num_attention_heads": 0})").find("at least 1"), std::string::npos);
}

// Configs saved before transformers wrote model_type (older Hub checkpoints): the family of the
// first model class in architectures that one has, said once per file on stderr.
TEST(HfConfig, FamilyFromArchitecturesWithoutModelType) {
  const auto old = nlohmann::json::parse(R"({"architectures": ["BertForSequenceClassification"], "num_labels": 3})");
  ::testing::internal::CaptureStderr();
  const ModelConfig c = parse_model_config(old, "old/config.json");
  parse_model_config(old, "old/config.json");  // read again (tokenizer, then model): said once
  const std::string said = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(c.family, ModelFamily::Bert);
  EXPECT_EQ(c.model_type, "bert");
  EXPECT_EQ(c.num_labels(), 3);
  EXPECT_EQ(said, "invar: warning: old/config.json: no model_type; read as 'bert' from architectures' "
                  "BertForSequenceClassification\n");
  // Class prefixes that begin like another family's, and the first class a family has.
  EXPECT_EQ(minimal(R"({"architectures": ["XLMRobertaForMaskedLM"]})").family, ModelFamily::XlmRoberta);
  EXPECT_EQ(minimal(R"({"architectures": ["RobertaModel"]})").family, ModelFamily::Roberta);
  EXPECT_EQ(minimal(R"({"architectures": ["MBartForConditionalGeneration"]})").family, ModelFamily::MBart);
  EXPECT_EQ(minimal(R"({"architectures": ["MarianMTModel"]})").family, ModelFamily::Marian);
  EXPECT_EQ(minimal(R"({"architectures": ["GPT2LMHeadModel", "T5EncoderModel"]})").family, ModelFamily::T5);
  // model_type, when present, decides.
  EXPECT_EQ(minimal(R"({"model_type": "roberta", "architectures": ["BertModel"]})").family, ModelFamily::Roberta);
  // No class of a supported family: the error stays.
  for (const char* config : {R"({"architectures": ["GPT2LMHeadModel"]})", R"({"architectures": ["BertGenerationEncoder"]})",
                             R"({"architectures": "BertModel"})", R"({"hidden_size": 4})"})
    EXPECT_NE(config_error(config).find("config.json: no 'model_type', and 'architectures' names no model class of a "
                                        "supported family (supported: bert"),
              std::string::npos)
        << config;
}

// config.json's tokenizer_class (PretrainedConfig.tokenizer_class), which the tokenizer factory
// falls back to (tests/text/test_tokenizer_class.cpp).
TEST(HfConfig, TokenizerClass) {
  EXPECT_EQ(minimal(R"({"model_type": "mbart", "tokenizer_class": "MBart50Tokenizer"})").tokenizer_class,
            "MBart50Tokenizer");
  EXPECT_FALSE(minimal(R"({"model_type": "mbart", "tokenizer_class": null})").tokenizer_class.has_value());
  EXPECT_FALSE(minimal(R"({"model_type": "mbart"})").tokenizer_class.has_value());
  EXPECT_NE(config_error(R"({"model_type": "mbart", "tokenizer_class": ["x"]})")
                .find("config.json: field 'tokenizer_class' must be a string"),
            std::string::npos);
}

TEST(HfConfig, EveryFixtureParses) {
  for (const char* folder : {"core/bert-wordpiece", "core/bert-pair-cls", "core/xlmr", "core/xlmr-mlm",
                             "core/xlmr-pair-cls", "core/xlmr-regression", "core/marian", "seq2seq/bart",
                             "seq2seq/m2m100", "seq2seq/mbart", "seq2seq/pegasus", "seq2seq/t5"}) {
    const auto source = ModelSource::open(test::fixture(folder));
    const ModelConfig c = load_model_config(*source);
    EXPECT_EQ(c.hidden_size, 32) << folder;
    EXPECT_EQ(c.encoder_layers, 2) << folder;
    EXPECT_EQ(c.encoder_attention_heads, 4) << folder;
    EXPECT_EQ(c.is_encoder_decoder, c.decoder_layers == 2) << folder;
    EXPECT_EQ(c.where, source->path() + "/config.json");
  }
  EXPECT_EQ(fixture_config("seq2seq/m2m100").generation.forced_bos_token_id, 210);
  EXPECT_EQ(fixture_config("seq2seq/mbart").generation.forced_bos_token_id, 195);
}

TEST(SentenceTransformers, FixtureModules) {
  for (const char* folder : {"core/bert-wordpiece", "core/mpnet"}) {
    const auto source = ModelSource::open(test::fixture(folder));
    const auto st = load_sentence_transformer_config(*source);
    ASSERT_TRUE(st.has_value()) << folder;
    EXPECT_EQ(st->pooling, std::vector<Pooling>{Pooling::Mean}) << folder;
    EXPECT_EQ(st->word_embedding_dimension, 32) << folder;
    EXPECT_TRUE(st->normalize) << folder;
    EXPECT_EQ(st->max_seq_length, 128) << folder;
    EXPECT_FALSE(st->do_lower_case) << folder;
  }
  EXPECT_FALSE(load_sentence_transformer_config(*ModelSource::open(test::fixture("core/xlmr"))).has_value());
}

namespace {

std::string st_folder(const std::string& modules, const std::string& pooling) {
  const std::string weights = test::make_safetensors({{"w", "F32", {1}, test::bytes_of(std::vector<float>{1})}});
  const std::string dir = test::make_model_folder({{"model.safetensors", weights}, {"modules.json", modules}});
  std::filesystem::create_directories(dir + "/pool");
  test::write_file(dir + "/pool/config.json", pooling);
  return dir;
}

const std::string kTransformerAndPooling = R"([{"path": "", "type": "sentence_transformers.models.Transformer"},
    {"path": "pool", "type": "sentence_transformers.models.Pooling"}])";

}  // namespace

TEST(SentenceTransformers, PoolingsInSentenceTransformersOrder) {
  const auto source = ModelSource::open(st_folder(kTransformerAndPooling, R"({"word_embedding_dimension": 8,
      "pooling_mode_mean_sqrt_len_tokens": true, "pooling_mode_cls_token": true, "pooling_mode_max_tokens": true})"));
  const auto st = load_sentence_transformer_config(*source);
  ASSERT_TRUE(st.has_value());
  EXPECT_EQ(st->pooling, (std::vector<Pooling>{Pooling::Cls, Pooling::Max, Pooling::MeanSqrtLen}));
  EXPECT_FALSE(st->normalize);
  EXPECT_FALSE(st->max_seq_length.has_value());
}

// sentence-transformers 5.4+ names modules by file and class (Normalize under base/ since 6.0)
// and writes the pooling as {"embedding_dimension", "pooling_mode", "include_prompt"}, and no
// max_seq_length; a pooling_mode list is concatenated in its own order.
TEST(SentenceTransformers, Version5Layouts) {
  for (const char* normalize : {"sentence_transformers.sentence_transformer.modules.normalize.Normalize",
                                "sentence_transformers.base.modules.normalize.Normalize"}) {
    const std::string modules = std::string(R"([{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.base.modules.transformer.Transformer"},
        {"idx": 1, "name": "1", "path": "pool", "type": "sentence_transformers.sentence_transformer.modules.pooling.Pooling"},
        {"idx": 2, "name": "2", "path": "2_Normalize", "type": ")") + normalize + R"("}])";
    const std::string dir = st_folder(modules, R"({"embedding_dimension": 8, "pooling_mode": "mean", "include_prompt": true})");
    test::write_file(dir + "/sentence_bert_config.json", R"({"transformer_task": "feature-extraction",
        "modality_config": {"text": {"method": "forward", "method_output_name": "last_hidden_state"}},
        "module_output_name": "token_embeddings"})");
    const auto st = load_sentence_transformer_config(*ModelSource::open(dir));
    ASSERT_TRUE(st.has_value()) << normalize;
    EXPECT_EQ(st->pooling, std::vector<Pooling>{Pooling::Mean});
    EXPECT_EQ(st->word_embedding_dimension, 8);
    EXPECT_TRUE(st->normalize);
    EXPECT_FALSE(st->max_seq_length.has_value());
  }
  const auto poolings = [](const std::string& pooling) {
    const auto st = load_sentence_transformer_config(*ModelSource::open(st_folder(kTransformerAndPooling, pooling)));
    return st ? st->pooling : std::vector<Pooling>{};
  };
  EXPECT_EQ(poolings(R"({"embedding_dimension": 8, "pooling_mode": ["max", "cls"]})"),
            (std::vector<Pooling>{Pooling::Max, Pooling::Cls}));
  EXPECT_EQ(poolings(R"({"embedding_dimension": 8, "pooling_mode": ["mean_sqrt_len_tokens"]})"),
            std::vector<Pooling>{Pooling::MeanSqrtLen});
  // Both forms present: 5.x reads pooling_mode and drops the flags.
  EXPECT_EQ(poolings(R"({"word_embedding_dimension": 8, "pooling_mode": "cls", "pooling_mode_mean_tokens": true})"),
            std::vector<Pooling>{Pooling::Cls});
}

// The older names of the Transformer's settings file, which sentence-transformers still reads.
TEST(SentenceTransformers, OlderSettingsFileNames) {
  const std::string dir = st_folder(kTransformerAndPooling, R"({"pooling_mode_mean_tokens": true})");
  test::write_file(dir + "/sentence_roberta_config.json", R"({"max_seq_length": 77})");
  EXPECT_EQ(load_sentence_transformer_config(*ModelSource::open(dir))->max_seq_length, 77);
  test::write_file(dir + "/sentence_bert_config.json", R"({"max_seq_length": 64})");  // read first
  EXPECT_EQ(load_sentence_transformer_config(*ModelSource::open(dir))->max_seq_length, 64);
}

TEST(SentenceTransformers, UnsupportedModulesAreErrors) {
  const auto error = [](const std::string& modules, const std::string& pooling) {
    try {
      load_sentence_transformer_config(*ModelSource::open(st_folder(modules, pooling)));
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  const std::string dense = R"([{"path": "", "type": "sentence_transformers.models.Transformer"},
      {"path": "pool", "type": "sentence_transformers.models.Pooling"},
      {"path": "2_Dense", "type": "sentence_transformers.models.Dense"}])";
  EXPECT_NE(error(dense, R"({"pooling_mode_mean_tokens": true})")
                .find("modules.json: module 'sentence_transformers.models.Dense' is not supported"),
            std::string::npos);
  EXPECT_NE(error(kTransformerAndPooling, R"({"pooling_mode_mean_tokens": false})").find("no pooling mode"),
            std::string::npos);
  EXPECT_NE(error(kTransformerAndPooling, R"({"pooling_mode_lasttoken": true})").find("pooling_mode_lasttoken"),
            std::string::npos);
  const std::string escaping = R"([{"path": "", "type": "sentence_transformers.models.Transformer"},
      {"path": "../pool", "type": "sentence_transformers.models.Pooling"}])";
  EXPECT_NE(error(escaping, "{}").find("points outside the model"), std::string::npos);
  const std::string dense5 = R"([{"path": "", "type": "sentence_transformers.base.modules.transformer.Transformer"},
      {"path": "pool", "type": "sentence_transformers.sentence_transformer.modules.pooling.Pooling"},
      {"path": "2_Dense", "type": "sentence_transformers.base.modules.dense.Dense"}])";
  EXPECT_NE(error(dense5, R"({"pooling_mode": "mean"})")
                .find("modules.json: module 'sentence_transformers.base.modules.dense.Dense' is not supported"),
            std::string::npos);
  EXPECT_NE(error(kTransformerAndPooling, R"({"pooling_mode": "lasttoken"})").find("pool/config.json: pooling_mode "
                                                                                  "'lasttoken' is not supported"),
            std::string::npos);
  EXPECT_NE(error(kTransformerAndPooling, R"({"pooling_mode": ["mean", "median"]})")
                .find("pooling_mode 'median' is not a pooling mode"),
            std::string::npos);
  EXPECT_NE(error(kTransformerAndPooling, R"({"pooling_mode": []})").find("no pooling mode"), std::string::npos);
}

// What invar cannot do the way sentence-transformers would is refused, naming the file and field:
// a cross-encoder's Transformer, a prompt prepended to every text by default.
TEST(SentenceTransformers, SettingsInvarDoesNotRunAreErrors) {
  const auto error = [](const std::string& file, const std::string& content) {
    const std::string dir = st_folder(kTransformerAndPooling, R"({"pooling_mode": "mean"})");
    test::write_file(dir + "/" + file, content);
    try {
      load_sentence_transformer_config(*ModelSource::open(dir));
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_NE(error("sentence_bert_config.json", R"({"transformer_task": "sequence-classification"})")
                .find("sentence_bert_config.json: transformer_task 'sequence-classification' is not supported"),
            std::string::npos);
  EXPECT_NE(error("config_sentence_transformers.json", R"({"prompts": {"query": "query: "}, "default_prompt_name": "query"})")
                .find("config_sentence_transformers.json: default_prompt_name 'query' is not supported"),
            std::string::npos);
  EXPECT_EQ(error("config_sentence_transformers.json", R"({"prompts": {"query": "query: "}, "default_prompt_name": null})"),
            "(no error)");
}

// One config.json reader feeds both specs. Before, the seq2seq spec read config.json a second time
// with defaults of its own; where the two disagreed, transformers 4.19's config classes win. Each
// test says what the old seq2seq reader did instead.
namespace {

Seq2SeqSpec spec_of(const std::string& json) { return seq2seq_spec(minimal(json)); }

SearchSettings search_of(const std::string& json) {
  const ModelConfig config = minimal(json);
  return search_defaults(config, seq2seq_spec(config));
}

std::string spec_error(const std::string& json) {
  try {
    spec_of(json);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

constexpr const char* kSmallBart = R"("d_model": 16, "encoder_attention_heads": 2, "decoder_attention_heads": 2)";

}  // namespace

TEST(OneConfigReader, M2M100ScalesEmbeddingsUnlessTheConfigSaysNot) {
  // M2M100Config(scale_embedding=True); the old reader defaulted to false for every family but FSMT.
  const Seq2SeqSpec spec = spec_of(std::string(R"({"model_type": "m2m_100", )") + kSmallBart + "}");
  EXPECT_FLOAT_EQ(spec.embed_scale, 4.0f);
  const Seq2SeqSpec off = spec_of(std::string(R"({"model_type": "m2m_100", "scale_embedding": false, )") + kSmallBart + "}");
  EXPECT_FLOAT_EQ(off.embed_scale, 1.0f);
}

TEST(OneConfigReader, M2M100AndFsmtDefaultToRelu) {
  // M2M100Config and FSMTConfig(activation_function="relu"); the old reader assumed gelu.
  EXPECT_EQ(spec_of(std::string(R"({"model_type": "m2m_100", )") + kSmallBart + "}").activation, Activation::Relu);
  EXPECT_EQ(spec_of(std::string(R"({"model_type": "fsmt", )") + kSmallBart + "}").activation, Activation::Relu);
  EXPECT_EQ(spec_of(std::string(R"({"model_type": "bart", )") + kSmallBart + "}").activation, Activation::GeluErf);
}

TEST(OneConfigReader, FsmtSearchesWithFiveBeamsUpTo200Tokens) {
  // FSMTConfig(num_beams=5, max_length=200); the old reader gave PretrainedConfig's 1 and 20.
  const SearchSettings fsmt = search_of(std::string(R"({"model_type": "fsmt", )") + kSmallBart + "}");
  EXPECT_EQ(fsmt.num_beams, 5);
  EXPECT_EQ(fsmt.max_length, 200);
  const SearchSettings bart = search_of(std::string(R"({"model_type": "bart", )") + kSmallBart + "}");
  EXPECT_EQ(bart.num_beams, 1);
  EXPECT_EQ(bart.max_length, 20);
}

TEST(OneConfigReader, ForcedEosFollowsTheFamily) {
  // The config classes' forced_eos_token_id; the old reader forced nothing when the field was absent.
  const auto forced = [](const char* type, const std::string& extra = "") {
    return search_of(std::string(R"({"model_type": ")") + type + R"(", )" + kSmallBart + extra + "}")
        .forced_eos_token_id;
  };
  EXPECT_EQ(forced("bart"), 2);
  EXPECT_EQ(forced("mbart", R"(, "decoder_start_token_id": 2)"), 2);
  EXPECT_EQ(forced("fsmt"), 2);
  EXPECT_EQ(forced("marian"), 0);
  EXPECT_EQ(forced("pegasus"), 1);
  EXPECT_FALSE(forced("m2m_100").has_value());
  EXPECT_FALSE(forced("t5", R"(, "decoder_start_token_id": 0)").has_value());
}

TEST(OneConfigReader, SpecialTokensTakeTheFamilyDefaults) {
  // The old reader failed on a config without pad_token_id / eos_token_id.
  const Seq2SeqSpec marian = spec_of(std::string(R"({"model_type": "marian", )") + kSmallBart + "}");
  EXPECT_EQ(marian.pad_token_id, 58100);
  EXPECT_EQ(marian.eos_token_id, 0);
  EXPECT_EQ(marian.decoder_start_token_id, 58100);
  const Seq2SeqSpec pegasus = spec_of(std::string(R"({"model_type": "pegasus", )") + kSmallBart + "}");
  EXPECT_EQ(pegasus.pad_token_id, 0);
  EXPECT_EQ(pegasus.eos_token_id, 1);
  // mBART has no decoder start of its own: generate() falls back to bos_token_id (0).
  EXPECT_EQ(spec_of(std::string(R"({"model_type": "mbart", )") + kSmallBart + "}").decoder_start_token_id, 0);
  // T5 has neither: generation needs the config to name one.
  EXPECT_NE(spec_error(R"({"model_type": "t5"})").find("neither 'decoder_start_token_id' nor 'bos_token_id'"),
            std::string::npos);
}

TEST(OneConfigReader, T5SizesTakeT5ConfigDefaults) {
  // T5Config's d_model 512, d_kv 64, d_ff 2048, num_heads 8; the old reader failed on each.
  const Seq2SeqSpec t5 = spec_of(R"({"model_type": "t5", "decoder_start_token_id": 0})");
  EXPECT_EQ(t5.d_model, 512);
  EXPECT_EQ(t5.encoder.head_dim, 64);
  EXPECT_EQ(t5.encoder.ffn, 2048);
  EXPECT_EQ(t5.encoder.heads, 8);
  EXPECT_EQ(t5.decoder.layers, 6);
  EXPECT_FLOAT_EQ(t5.norm_eps, 1e-6f);
}

TEST(OneConfigReader, FeedForwardProjIsActOrGatedAct) {
  // T5Config splits feed_forward_proj on "-": "gated-ACT" or "ACT", nothing else; the old reader
  // passed "gelu-gated" on as an activation name.
  EXPECT_NE(spec_error(R"({"model_type": "t5", "feed_forward_proj": "gelu-gated"})")
                .find("feed_forward_proj 'gelu-gated' is not 'ACT' or 'gated-ACT'"),
            std::string::npos);
  EXPECT_TRUE(spec_of(R"({"model_type": "t5", "decoder_start_token_id": 0, "feed_forward_proj": "gated-silu"})")
                  .gated_ffn);
  const std::string unknown = spec_error(R"({"model_type": "t5", "decoder_start_token_id": 0, "feed_forward_proj": "gated-cube"})");
  EXPECT_NE(unknown.find("feed_forward_proj"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("cube"), std::string::npos) << unknown;
}

TEST(OneConfigReader, MarianDecoderVocabulary) {
  // MarianConfig's decoder_vocab_size (a separate target vocabulary); the old reader used
  // vocab_size for both sides.
  const Seq2SeqSpec spec = spec_of(std::string(R"({"model_type": "marian", "vocab_size": 100, )") +
                                   R"("decoder_vocab_size": 80, "pad_token_id": 79, "decoder_start_token_id": 79, )" +
                                   kSmallBart + "}");
  EXPECT_EQ(spec.encoder.vocab, 100);
  EXPECT_EQ(spec.decoder.vocab, 80);
}

TEST(OneConfigReader, StacksAreSizedIndependently) {
  // BartConfig and its relatives size each stack on its own (valid in transformers, e.g. for FSMT);
  // the old spec held one head_dim and refused "d_model 40 must split evenly over the attention
  // heads (5 encoder, 4 decoder)".
  for (const char* type : {"marian", "bart", "mbart", "pegasus", "m2m_100", "fsmt"}) {
    const Seq2SeqSpec spec = spec_of(std::string(R"({"model_type": ")") + type +
                                     R"(", "d_model": 40, "encoder_attention_heads": 5, "decoder_attention_heads": 4, )"
                                     R"("encoder_ffn_dim": 24, "decoder_ffn_dim": 56, "encoder_layers": 3, )"
                                     R"("decoder_layers": 1, "decoder_start_token_id": 2})");
    EXPECT_EQ(spec.encoder.heads, 5) << type;
    EXPECT_EQ(spec.encoder.head_dim, 8) << type;
    EXPECT_EQ(spec.decoder.heads, 4) << type;
    EXPECT_EQ(spec.decoder.head_dim, 10) << type;
    EXPECT_EQ(spec.encoder.ffn, 24) << type;
    EXPECT_EQ(spec.decoder.ffn, 56) << type;
    EXPECT_EQ(spec.encoder.layers, 3) << type;
    EXPECT_EQ(spec.decoder.layers, 1) << type;
  }
  // T5: one num_heads and d_kv (heads × d_kv need not be d_model), layers per stack.
  const Seq2SeqSpec t5 = spec_of(R"({"model_type": "t5", "d_model": 40, "num_heads": 3, "d_kv": 7, "num_layers": 2, )"
                                 R"("num_decoder_layers": 5, "decoder_start_token_id": 0})");
  EXPECT_EQ(t5.encoder.attention_width(), 21);
  EXPECT_EQ(t5.decoder.attention_width(), 21);
  EXPECT_EQ(t5.encoder.layers, 2);
  EXPECT_EQ(t5.decoder.layers, 5);
}

TEST(OneConfigReader, SpecialTokensFitTheirSide) {
  // Padding fills both stacks' inputs: FSMT's pad_token_id must fit the smaller vocabulary (the old
  // check took the larger, and the encoder's padding then indexed past its embeddings).
  const std::string sizes = R"(, "d_model": 16, "encoder_attention_heads": 2, "decoder_attention_heads": 2})";
  EXPECT_NE(spec_error(std::string(R"({"model_type": "fsmt", "src_vocab_size": 4, "tgt_vocab_size": 10, )") +
                       R"("pad_token_id": 5, "eos_token_id": 2, "decoder_start_token_id": 2)" + sizes)
                .find("pad_token_id 5 is outside the vocabulary (4)"),
            std::string::npos);
  // EOS and the start token are decoder tokens.
  EXPECT_NE(spec_error(std::string(R"({"model_type": "fsmt", "src_vocab_size": 10, "tgt_vocab_size": 4, )") +
                       R"("pad_token_id": 1, "eos_token_id": 7, "decoder_start_token_id": 2)" + sizes)
                .find("special token id 7 is outside the target vocabulary (4)"),
            std::string::npos);
}

TEST(OneConfigReader, EncoderOnlyModelsAreNotSeq2Seq) {
  EXPECT_NE(spec_error(R"({"model_type": "bert"})").find("'bert' is an encoder-only model"), std::string::npos);
}

// Issue 18, item 4: sizes are checked before anything is allocated from them, naming the field.
TEST(HfConfig, HostileSizesFailBeforeAllocating) {
  EXPECT_NE(config_error(R"({"model_type": "bert", "num_hidden_layers": 1000000000})")
                .find("config.json: field 'num_hidden_layers' must be at most 4096, got 1000000000"),
            std::string::npos);
  EXPECT_NE(config_error(R"({"model_type": "bert", "num_labels": 1000000000})")
                .find("config.json: field 'num_labels' must be at most 1048576"),
            std::string::npos);
  EXPECT_NE(config_error(R"({"model_type": "bert", "id2label": {"1000000000": "x"}})").find("id2label entry"),
            std::string::npos);
  EXPECT_NE(config_error(R"({"model_type": "bart", "vocab_size": 100000000000})").find("field 'vocab_size' must be at most"),
            std::string::npos);
  EXPECT_NE(config_error(R"({"model_type": "t5", "num_decoder_layers": 5000})").find("'num_decoder_layers' must be at most"),
            std::string::npos);
  for (const char* eps : {"-1", "0"})
    EXPECT_NE(config_error(std::string(R"({"model_type": "bert", "layer_norm_eps": )") + eps + "}")
                  .find("config.json: field 'layer_norm_eps' must be a positive number"),
              std::string::npos) << eps;
  EXPECT_NE(config_error(R"({"model_type": "t5", "layer_norm_epsilon": -1e-6})").find("'layer_norm_epsilon'"),
            std::string::npos);
}
