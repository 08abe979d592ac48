// invar_model: opening a model as the CLI's --model, --device, --threads, --weights,
// --linear, --deterministic, --allow-non-finite, --batch-size, --src-lang, --tgt-lang and --tokenizer do;
// tokenize.
#include "capi/model.hpp"

#include <memory>
#include <optional>
#include <string>

#include "capi/guard.hpp"
#include "capi/results.hpp"
#include "core/log.hpp"
#include "core/version.hpp"
#include "backends/registry.hpp"
#include "models/family.hpp"
#include "models/hf_config.hpp"

namespace invar::capi {
namespace {

std::optional<std::string> optional_text(const char* text) {
  return text == nullptr ? std::nullopt : std::optional<std::string>(text);
}

BackendOptions backend_options(const invar_model_options& options) {
  if (options.threads < 0 || options.threads > kMaxThreads)
    throw ArgumentError(
        fmt::format("threads must be 0 (every core) to {}, got {}", kMaxThreads, options.threads));
  WeightType weights = WeightType::F32;
  switch (options.weights) {
    case INVAR_WEIGHTS_F32: break;
    case INVAR_WEIGHTS_F16: weights = WeightType::F16; break;
    case INVAR_WEIGHTS_INT8: weights = WeightType::Int8; break;
    default:
      throw ArgumentError(
          fmt::format("weights must be INVAR_WEIGHTS_F32, INVAR_WEIGHTS_F16 or INVAR_WEIGHTS_INT8, got {}", options.weights));
  }
  LinearKernel linear = LinearKernel::OneDnn;
  switch (options.linear) {
    case INVAR_LINEAR_ONEDNN: break;
    case INVAR_LINEAR_OPENBLAS: linear = LinearKernel::OpenBlas; break;
    default:
      throw ArgumentError(
          fmt::format("linear must be INVAR_LINEAR_ONEDNN or INVAR_LINEAR_OPENBLAS, got {}", options.linear));
  }
  return {.threads = thread_count(options.threads),
          .deterministic = options.deterministic != 0,
          .weights = weights,
          .linear = linear};
}

const char* kind_name(ModelKind kind) { return kind == ModelKind::Encoder ? "an encoder" : "a seq2seq model"; }

void open_model(const char* path, const invar_model_options& options, invar_model& model) {
  require(path, "path");
  if (options.batch_size == 0) throw ArgumentError("batch_size must be at least 1");
  const BackendOptions compute = backend_options(options);
  model.batch_size = options.batch_size;
  TokenizerChoice choice;
  switch (options.tokenizer) {
    case INVAR_TOKENIZER_AUTO: choice = TokenizerChoice::Auto; break;
    case INVAR_TOKENIZER_JSON: choice = TokenizerChoice::Json; break;
    case INVAR_TOKENIZER_SLOW: choice = TokenizerChoice::Slow; break;
    default:
      throw ArgumentError(fmt::format(
          "tokenizer must be INVAR_TOKENIZER_AUTO, INVAR_TOKENIZER_JSON or INVAR_TOKENIZER_SLOW, got {}", options.tokenizer));
  }
  model.source = ModelSource::open(path);
  if (options.allow_non_finite) model.source->set_non_finite(NonFinite::Warn);
  model.source->set_tokenizer_choice(choice);
  const ModelKind kind = family(load_model_config(*model.source).family).kind;
  const bool languages = options.source_language != nullptr || options.target_language != nullptr;
  if (kind == ModelKind::Encoder && languages)
    throw ArgumentError(fmt::format("{}: source_language and target_language apply to seq2seq models; this is an encoder",
                                    model.source->path()));
  model.backend = make_backend(options.device == nullptr ? "cpu" : options.device, compute);
  if (kind == ModelKind::Encoder) {
    model.encoder = std::make_unique<TextEncoder>(*model.source, *model.backend);
    return;
  }
  model.translator = std::make_unique<Translator>(*model.source, *model.backend);
  model.translator->set_languages(optional_text(options.source_language), optional_text(options.target_language));
}

const Tokenizer& tokenizer_of(invar_model& model) {
  return model.encoder ? model.encoder->tokenizer() : model.translator->tokenizer();
}

}  // namespace

TextEncoder& encoder_of(invar_model* model, const char* call) {
  require(model, "model");
  if (!model->encoder)
    throw KindError(fmt::format("{}: {} needs an encoder model ({}); this is {}", model->source->path(), call,
                                model_types(ModelKind::Encoder), kind_name(ModelKind::Seq2Seq)));
  return *model->encoder;
}

Translator& translator_of(invar_model* model, const char* call) {
  require(model, "model");
  if (!model->translator)
    throw KindError(fmt::format("{}: {} needs a seq2seq model ({}); this is {}", model->source->path(), call,
                                model_types(ModelKind::Seq2Seq), kind_name(ModelKind::Encoder)));
  return *model->translator;
}

void report_progress(const invar_model& model, std::size_t done, std::size_t total) {
  if (model.progress != nullptr && model.progress(done, total, model.progress_user) != 0)
    throw Stopped(fmt::format("stopped by the progress callback after {} of {} inputs", done, total));
}

BatchOptions reporting_batches(const invar_model& model, std::size_t total) {
  BatchOptions options{.batch_size = model.batch_size};
  if (model.progress == nullptr) return options;
  // The engine reports each batch's inputs; the callback gets the running count.
  options.progress = [&model, total, done = std::make_shared<std::size_t>(0)](std::size_t batch) {
    *done += batch;
    report_progress(model, *done, total);
  };
  return options;
}

}  // namespace invar::capi

using namespace invar::capi;

extern "C" {

const char* invar_version(void) { return invar::kVersion; }

void invar_model_options_init(invar_model_options* options) {
  if (options != nullptr) *options = invar_model_options{.device = "cpu", .batch_size = 32};
}

invar_status invar_model_open(const char* path, const invar_model_options* options, invar_model** model) {
  if (model != nullptr) *model = nullptr;
  return guarded([&] {
    require(model, "model");
    invar_model_options defaults;
    invar_model_options_init(&defaults);
    auto opened = std::make_unique<invar_model>();
    open_model(path, options != nullptr ? *options : defaults, *opened);
    *model = opened.release();
  });
}

void invar_model_free(invar_model* model) { delete model; }

invar_status invar_model_set_progress(invar_model* model, invar_progress_fn progress, void* user) {
  return guarded([&] {
    require(model, "model");
    model->progress = progress;
    model->progress_user = user;
  });
}

void invar_log_set(invar_log_fn callback, void* user) {
  if (callback == nullptr) {
    invar::set_log_sink({});
    return;
  }
  // A sink that throws would break the call that warns: bad_alloc here ends in std::terminate
  // rather than leaving the C API (the log is set outside every guarded call).
  invar::set_log_sink([callback, user](const std::string& message) { callback(INVAR_LOG_WARNING, message.c_str(), user); });
}

invar_status invar_model_kind_of(const invar_model* model, invar_model_kind* kind) {
  return guarded([&] {
    require(model, "model");
    require(kind, "kind");
    *kind = model->encoder ? INVAR_MODEL_ENCODER : INVAR_MODEL_SEQ2SEQ;
  });
}

invar_status invar_tokenize(invar_model* model, const char* text, invar_tokens** tokens) {
  if (tokens != nullptr) *tokens = nullptr;
  return guarded([&] {
    require(model, "model");
    require(text, "text");
    require(tokens, "tokens");
    const invar::Encoding encoding = tokenizer_of(*model).encode(text);
    Result<invar_tokens, invar_tokens_free> out;
    out->count = encoding.ids.size();
    out->ids = new_array<std::int32_t>(encoding.ids);
    out->tokens = new_strings(encoding.tokens);
    *tokens = out.release();
  });
}

void invar_tokens_free(invar_tokens* tokens) {
  if (tokens == nullptr) return;
  delete[] tokens->ids;
  delete_strings(tokens->tokens, tokens->count);
  delete tokens;
}

}  // extern "C"
