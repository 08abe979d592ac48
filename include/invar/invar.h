/* invar's C API: load a model (a Hugging Face folder or an .invar file), tokenize, embed, classify,
 * read hidden states, score with a masked LM's pseudo-log-likelihood, translate or generate, and
 * score text with sacrebleu-exact BLEU, chrF and TER, BERTScore and METEOR. C99; usable from C, C++ and any foreign-function interface.
 * docs/embedding.md has the API by example.
 *
 * Conventions
 * - Every call that can fail returns an invar_status; INVAR_OK is 0. On failure invar_last_error()
 *   holds the message (the one the invar command line prints: it names the file, line and field),
 *   and the handle or result it was to give back is NULL.
 * - Handles (invar_model, invar_metric) and results are created by the library and released by the
 *   invar_*_free function of their type; each free function accepts NULL. Results are plain structs
 *   the caller reads but never modifies or frees member by member. Strings are UTF-8, NUL-terminated.
 * - No C++ exception leaves the library.
 * - Thread safety: calls on different handles are independent and may run on any threads at once.
 *   An invar_model is used by one thread at a time (its calls change its scratch memory); an
 *   invar_metric is read-only once created and may be shared by threads. Results are owned by the
 *   caller. Error messages are stored per thread.
 */
#ifndef INVAR_INVAR_H
#define INVAR_INVAR_H

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define INVAR_API __attribute__((visibility("default")))
#else
#define INVAR_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- status, errors, version ---- */

typedef enum invar_status {
  INVAR_OK = 0,
  INVAR_ERROR_ARGUMENT = 1,   /* a NULL where a value is needed, or an option outside its range */
  INVAR_ERROR_MODEL_KIND = 2, /* the call needs another kind of model (an encoder, a seq2seq model, a
                                 classification head, a masked-LM head) */
  INVAR_ERROR_INPUT = 3,      /* invar refused a file, a model, a text or a setting */
  INVAR_ERROR_MEMORY = 4,     /* out of memory */
  INVAR_ERROR_INTERNAL = 5,   /* anything else: a bug, please report the message */
  INVAR_ERROR_STOPPED = 6     /* a file job's progress callback asked it to stop (invar_run_options) */
} invar_status;

/* The message of the last call on this thread that did not return INVAR_OK ("" when none); valid
 * until the next failing call on this thread. Never NULL. Thread-safe (per thread). */
INVAR_API const char* invar_last_error(void);

/* The library's version, "MAJOR.MINOR.PATCH". Thread-safe. */
INVAR_API const char* invar_version(void);

/* ---- warnings (since 1.0) ---- */

typedef enum invar_log_level {
  INVAR_LOG_WARNING = 1 /* a result may not be what the caller expects (non-finite weights loaded, ...) */
} invar_log_level;

/* Receives each warning: one line, UTF-8, without the "invar: warning: " prefix or a newline; valid
 * during the call only. */
typedef void (*invar_log_fn)(invar_log_level level, const char* message, void* user);

/* Where the library's warnings go, for the whole process: `callback` (with `user`), or, for NULL
 * (the default), stderr as "invar: warning: MESSAGE" lines, as the command line prints them. The
 * callback runs on the thread of the call that warns, so it may run on several threads at once.
 * Thread-safe. The OpenCL module (docs/embedding.md) keeps writing its own warnings to stderr. */
INVAR_API void invar_log_set(invar_log_fn callback, void* user);

/* ---- models ---- */

typedef struct invar_model invar_model;

typedef enum invar_model_kind {
  INVAR_MODEL_ENCODER = 0, /* BERT, RoBERTa, XLM-R, MPNet: tokenize, embed, classify, PLL */
  INVAR_MODEL_SEQ2SEQ = 1  /* Marian, BART, mBART, Pegasus, M2M100, FSMT, T5: tokenize, generate, translate */
} invar_model_kind;

typedef enum invar_weights {
  INVAR_WEIGHTS_F32 = 0,
  INVAR_WEIGHTS_F16 = 1, /* half the weights' memory on an OpenCL device (docs/opencl.md) */
  INVAR_WEIGHTS_INT8 = 2 /* CPU: linear layers in int8, per-channel weights (docs/performance.md) */
} invar_weights;

typedef enum invar_tokenizer {
  INVAR_TOKENIZER_AUTO = 0, /* tokenizer.json where the folder has one (the fast tokenizer), else the slow files */
  INVAR_TOKENIZER_JSON = 1, /* tokenizer.json only */
  INVAR_TOKENIZER_SLOW = 2  /* the slow tokenizer's files only (vocab.txt, spiece.model, ...) */
} invar_tokenizer;

typedef enum invar_linear {
  INVAR_LINEAR_ONEDNN = 0,  /* CPU, f32 weights: linear layers on oneDNN, each weight packed once at load */
  INVAR_LINEAR_OPENBLAS = 1 /* CPU, f32 weights: linear layers on OpenBLAS's sgemm, weights as stored */
} invar_linear;

typedef struct invar_model_options {
  const char* device;          /* "cpu", "opencl", "opencl:P:D" (invar devices); NULL = "cpu" */
  int threads;                 /* CPU threads, 0 to 1024 as --threads; 0 = every core */
  int deterministic;           /* nonzero: bit-identical results for every thread count and batch */
  int weights;                 /* an invar_weights (an int: C++ may not hold other values in the enum) */
  int allow_non_finite;        /* nonzero: load weights holding NaN or infinity (else refused) */
  size_t batch_size;           /* texts per batch */
  const char* source_language; /* seq2seq: mBART "de_DE", M2M100 "de"; NULL = the model's */
  const char* target_language; /* seq2seq: mBART "en_XX", M2M100 "en", multilingual Marian "fr" */
  int tokenizer;               /* an invar_tokenizer: which tokenizer files a folder is read with */
  int linear;                  /* an invar_linear (as --linear; int8 weights need INVAR_LINEAR_ONEDNN) */
} invar_model_options;

/* Defaults: cpu, every core, not deterministic, f32, non-finite weights refused, batches of 32,
 * the model's languages, INVAR_TOKENIZER_AUTO, INVAR_LINEAR_ONEDNN. */
INVAR_API void invar_model_options_init(invar_model_options* options);

/* Opens the model at `path` (options NULL = the defaults). Thread-safe. The calls below that take
 * an invar_model use it from one thread at a time; different models run concurrently. */
INVAR_API invar_status invar_model_open(const char* path, const invar_model_options* options, invar_model** model);
/* Not while another call uses the model. Results made with it stay valid. */
INVAR_API void invar_model_free(invar_model* model);
INVAR_API invar_status invar_model_kind_of(const invar_model* model, invar_model_kind* kind);

/* Called by the long calls on a model as they go, with the inputs done so far and the call's total; a
 * nonzero return stops the call (INVAR_ERROR_STOPPED). The file jobs below take theirs in
 * invar_run_options. */
typedef int (*invar_progress_fn)(size_t done, size_t total, void* user);

/* Since 1.0: a progress and stop callback for the model's in-memory calls (invar_embed,
 * invar_classify, invar_hidden_states, invar_bertscore: after each batch of texts; invar_generate,
 * invar_translate: after each batch of sources). A call it stops returns INVAR_ERROR_STOPPED and
 * gives back nothing. NULL = none (the default). Not while a call uses the model. */
INVAR_API invar_status invar_model_set_progress(invar_model* model, invar_progress_fn progress, void* user);

/* ---- tokenize (any model) ---- */

typedef struct invar_tokens {
  size_t count;
  int32_t* ids;  /* with the model's special tokens, as Hugging Face's tokenizer(text) */
  char** tokens; /* convert_ids_to_tokens(ids) */
} invar_tokens;

INVAR_API invar_status invar_tokenize(invar_model* model, const char* text, invar_tokens** tokens);
INVAR_API void invar_tokens_free(invar_tokens* tokens);

/* ---- encoders: embed, classify, pseudo-log-likelihood ---- */
/* Texts longer than the model allows are truncated (embed, classify), as the invar command line does. */

typedef struct invar_embeddings {
  size_t count;     /* texts */
  size_t dimension; /* floats per embedding */
  float* values;    /* count × dimension, row-major */
  size_t truncated; /* since 1.0: texts cut to the model's length (the count `invar embed` warns of) */
} invar_embeddings;

/* Sentence embeddings as sentence-transformers computes them: modules.json's pooling and Normalize
 * (mean pooling for a plain model). */
INVAR_API invar_status invar_embed(invar_model* model, const char* const* texts, size_t count,
                                   invar_embeddings** embeddings);
INVAR_API void invar_embeddings_free(invar_embeddings* embeddings);

typedef struct invar_classification {
  size_t count;         /* inputs */
  size_t labels;        /* logits per input; 1 for a regression head */
  int regression;       /* nonzero: logits[i] is input i's score */
  char** label_names;   /* config.json's id2label, `labels` names */
  float* logits;        /* count × labels */
  float* probabilities; /* count × labels: softmax (sigmoid for multi-label models); NULL for regression */
  int64_t* best;        /* per input: the label with the largest logit; -1 for regression or non-finite logits */
  size_t truncated;     /* since 1.0: inputs cut to the model's length */
} invar_classification;

/* `second_texts` NULL: single texts; else `count` second texts classified as pairs. */
INVAR_API invar_status invar_classify(invar_model* model, const char* const* texts, const char* const* second_texts,
                                      size_t count, invar_classification** classification);
INVAR_API void invar_classification_free(invar_classification* classification);

typedef struct invar_pll {
  double total;      /* Σ log p of every non-special token, natural log */
  size_t tokens;     /* tokens scored */
  double* per_token; /* `tokens` values */
  size_t windows;    /* 1, or the overlapping windows a text longer than the model was scored in */
} invar_pll;

/* Salazar et al.'s pseudo-log-likelihood of `text` under a masked-LM model; not truncated. */
INVAR_API invar_status invar_pseudo_log_likelihood(invar_model* model, const char* text, invar_pll** pll);
INVAR_API void invar_pll_free(invar_pll* pll);

/* Since 1.0. */
typedef struct invar_hidden {
  size_t count;     /* texts */
  size_t width;     /* floats per token: the model's hidden size */
  size_t* lengths;  /* tokens per text, special tokens included */
  int32_t** ids;    /* per text: its lengths[i] token ids */
  float** values;   /* per text: lengths[i] × width floats, row-major */
  size_t truncated; /* texts cut to the model's length */
} invar_hidden;

/* Every token's hidden state after `layer` layers, as `invar hidden --layer` (0 = the embeddings;
 * negative counts from the end: -1 = the last layer, the default of the command line). */
INVAR_API invar_status invar_hidden_states(invar_model* model, const char* const* texts, size_t count, int64_t layer,
                                           invar_hidden** states);
INVAR_API void invar_hidden_free(invar_hidden* states);

/* ---- BERTScore (since 1.0) ---- */

/* bert_score v0.3.13's score(), as `invar metric bertscore`. */
typedef struct invar_bertscore_options {
  int64_t layer;        /* hidden states after this many layers (0 = embeddings); -1 = bert_score's layer for
                           the model's folder name or config.json's _name_or_path (e.g. roberta-large: 17) */
  int idf;              /* nonzero: weigh tokens by idf over the call's references */
  size_t batch_size;    /* sentences per model batch, pairs per matching batch (bert_score's batch_size) */
  size_t max_length;    /* truncate texts to this many tokens; 0 = the tokenizer's and the model's limit */
  const char* baseline; /* a LAYER,P,R,F baseline file to rescale with; NULL = no rescaling */
} invar_bertscore_options;

/* Defaults: the model's default layer, no idf, batches of 64, the model's length, no rescaling. */
INVAR_API void invar_bertscore_options_init(invar_bertscore_options* options);

typedef struct invar_bertscores {
  size_t count;      /* hypotheses */
  float* precision;  /* per hypothesis, the maximum over its references (NaN as bert_score gives it) */
  float* recall;
  float* f1;
  float mean[3];     /* P, R and F averaged over the hypotheses: the command line's summary */
  int64_t layer;     /* the layer used */
  char* hash;        /* bert_score's hash, e.g. "roberta-large_L17_no-idf_version=0.3.12(hug_trans=4.19.0.dev0)" */
  size_t truncated;  /* distinct texts cut to the length limit */
} invar_bertscores;

/* BERTScore of `count` hypotheses against references laid out as invar_corpus_score takes them (NULL
 * where a stream has none; every hypothesis needs one) on an encoder model. options NULL = the
 * defaults. An empty hypothesis or reference scores P = R = F = 0, as in bert_score. */
INVAR_API invar_status invar_bertscore(invar_model* model, const char* const* hypotheses, size_t count,
                                       const char* const* references, size_t num_references,
                                       const invar_bertscore_options* options, invar_bertscores** scores);
INVAR_API void invar_bertscores_free(invar_bertscores* scores);

/* ---- seq2seq: generate, translate ---- */

/* Hugging Face generate() settings over the model's config.json; the unset values the init gives
 * (-1 for integers, NaN for reals) keep the model's. */
typedef struct invar_search_options {
  int num_beams;            /* 1 = greedy */
  int num_return_sequences; /* hypotheses per input */
  int max_length;           /* longest output in tokens, counting the decoder start token */
  int max_new_tokens;       /* longest output in generated tokens (overrides max_length) */
  int min_length;
  int no_repeat_ngram_size;
  int encoder_no_repeat_ngram_size; /* no n-gram of this size of the source is generated */
  double repetition_penalty;
  double length_penalty;
  int early_stopping;       /* -1 = the model's, 0 = false, 1 = true */
  int do_sample;            /* nonzero: sample (then temperature, top_k, top_p apply) */
  double temperature;
  int top_k;
  double top_p;
  uint64_t seed;            /* the same seed gives the same samples */
  int truncate;             /* nonzero: cut a source longer than the model's positions (else it fails) */
} invar_search_options;

INVAR_API void invar_search_options_init(invar_search_options* options);

typedef struct invar_hypothesis {
  char* text;    /* decoded, special tokens skipped */
  int32_t* ids;  /* decoder start token first */
  size_t length; /* ids */
  float score;   /* Hugging Face's sequence score */
} invar_hypothesis;

typedef struct invar_hypotheses {
  size_t count; /* 0 for a text without tokens */
  invar_hypothesis* items; /* best first */
} invar_hypotheses;

typedef struct invar_generation {
  size_t count;              /* inputs */
  invar_hypotheses* inputs;  /* in input order */
  size_t truncated;          /* sources cut to the model's positions (options->truncate) */
} invar_generation;

/* options NULL = the model's settings. */
INVAR_API invar_status invar_generate(invar_model* model, const char* const* texts, size_t count,
                                      const invar_search_options* options, invar_generation** generation);
INVAR_API void invar_generation_free(invar_generation* generation);

typedef struct invar_texts {
  size_t count;
  char** texts;
} invar_texts;

/* The best hypothesis's text per input ("" for a text without tokens). */
INVAR_API invar_status invar_translate(invar_model* model, const char* const* texts, size_t count,
                                       const invar_search_options* options, invar_texts** translations);
INVAR_API void invar_texts_free(invar_texts* texts);

/* ---- long jobs over files: resume, shards (docs/scale-out.md) ---- */
/* A file job reads its input file (one text per line), computes it in chunks of 8 × the model's
 * batch_size lines and writes one output line per input line, atomically, as the invar command
 * line writes them. Finished chunks are kept beside the output (OUTPUT.invar-progress, removed once
 * the output is written), so a job that was stopped (a crash, a kill, the progress callback)
 * continues with `resume` to the bytes of an uninterrupted job; the progress belongs to one input
 * and one set of settings (the model's path and batch size, the search options), and a resume with
 * others fails (INVAR_ERROR_INPUT). A job split into `shards` parts, each run separately (any
 * process, any machine), is joined by one more call with `parts`: again the bytes of one whole job.
 * Each call uses the model from one thread, as the other calls do; jobs on different models run
 * concurrently. */

/* A file job calls its invar_run_options.progress before each chunk it computes, with the lines this
 * call finished so far and the input's line count; a nonzero return stops the job: the call returns
 * INVAR_ERROR_STOPPED, the finished chunks stay in the progress file and the output is not written. */

typedef struct invar_run_options {
  int resume;               /* nonzero: continue from the progress kept beside the output */
  size_t shard;             /* with shards > 1: compute part `shard` (0 <= shard < shards) and write */
  size_t shards;            /*   a partial result to the output; 0 or 1 = the whole input */
  const char* const* parts; /* part_count partial results (one of each shard, any order): join them into */
  size_t part_count;        /*   the output instead of computing; the input must be unchanged since */
  invar_progress_fn progress; /* NULL = none */
  void* user;               /* handed to progress */
} invar_run_options;

/* Defaults: no resume, the whole input, nothing to join, no callback. */
INVAR_API void invar_run_options_init(invar_run_options* options);

/* Sentence embeddings of every line of `input` (as invar_embed) into `output`, one JSON line
 * {"embedding": [...]} per input line, as `invar embed -i INPUT -o OUTPUT` writes them. run NULL =
 * the defaults. */
INVAR_API invar_status invar_embed_file(invar_model* model, const char* input, const char* output,
                                        const invar_run_options* run);
/* The translation of every line of `input` (as invar_translate) into `output`, one line each, as
 * `invar translate` writes them. options NULL = the model's settings; run NULL = the defaults. */
INVAR_API invar_status invar_translate_file(invar_model* model, const char* input, const char* output,
                                            const invar_search_options* options, const invar_run_options* run);

/* ---- metrics: sacrebleu 2.4.3-exact BLEU, chrF, TER; NLTK's METEOR ---- */

typedef struct invar_metric invar_metric;

typedef struct invar_bleu_options {
  const char* tokenize; /* "13a", "intl", "zh", "char", "ja-mecab", "ko-mecab", "none"; NULL = "13a" */
  const char* smooth;   /* "exp", "floor", "add-k", "none"; NULL = "exp" */
  double smooth_value;  /* floor and add-k only; NaN = sacrebleu's default (0.1, 1) */
  int lowercase;
  int effective_order;  /* corpus scores; sentence scores always use effective order, as sacrebleu */
  int max_ngram_order;
} invar_bleu_options;

typedef struct invar_chrf_options {
  int char_order;
  int word_order; /* 2 = chrF++ */
  int beta;
  int lowercase;
  int whitespace;
  int eps_smoothing;
} invar_chrf_options;

typedef struct invar_ter_options {
  int normalized;
  int no_punct;
  int asian_support;
  int case_sensitive;
} invar_ter_options;

/* Since 1.0: METEOR as NLTK's meteor_score, as `invar metric meteor`. */
typedef struct invar_meteor_options {
  const char* nltk;    /* "3.8" (NULL; NLTK >= 3.6.5) or "3.6.2" (eval/metrics/lexical/meteor.hpp) */
  double alpha;
  double beta;
  double gamma;
  const char* wordnet; /* WordNet 3.0's database folder; NULL = $WNSEARCHDIR, else /usr/share/wordnet */
} invar_meteor_options;

/* sacrebleu's defaults: BLEU 13a/exp/order 4, chrF2 (6, 0, 2), case-insensitive TER; NLTK's METEOR
 * 3.8 with alpha 0.9, beta 3, gamma 0.5. */
INVAR_API void invar_bleu_options_init(invar_bleu_options* options);
INVAR_API void invar_chrf_options_init(invar_chrf_options* options);
INVAR_API void invar_ter_options_init(invar_ter_options* options);
INVAR_API void invar_meteor_options_init(invar_meteor_options* options);

/* options NULL = the defaults. Thread-safe. A metric is read-only once created: the scoring calls
 * below may use one metric from several threads at once. */
INVAR_API invar_status invar_metric_bleu(const invar_bleu_options* options, invar_metric** metric);
INVAR_API invar_status invar_metric_chrf(const invar_chrf_options* options, invar_metric** metric);
INVAR_API invar_status invar_metric_ter(const invar_ter_options* options, invar_metric** metric);
/* METEOR's sentence score is the best over the segment's references; its corpus score the mean of the
 * sentence scores, as `invar metric meteor` prints it (verbose "mean of N segments"). Reads WordNet. */
INVAR_API invar_status invar_metric_meteor(const invar_meteor_options* options, invar_metric** metric);
INVAR_API void invar_metric_free(invar_metric* metric);

typedef struct invar_score {
  char* name;      /* "BLEU", "chrF2", "chrF2++", "TER", "METEOR" */
  double score;
  char* signature; /* "nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.4.3" */
  char* verbose;   /* BLEU's "61.5/29.0/... (BP = ...)"; "" for the others */
} invar_score;

typedef struct invar_sentence_scores {
  size_t count;
  double* scores;  /* one per hypothesis */
  char* signature;
} invar_sentence_scores;

/* References come as sacrebleu takes them: `num_references` streams of `count` segments each;
 * reference r of segment i is references[r * count + i]. */
INVAR_API invar_status invar_corpus_score(const invar_metric* metric, const char* const* hypotheses, size_t count,
                                          const char* const* references, size_t num_references, invar_score** score);
INVAR_API void invar_score_free(invar_score* score);
INVAR_API invar_status invar_sentence_score(const invar_metric* metric, const char* const* hypotheses, size_t count,
                                            const char* const* references, size_t num_references,
                                            invar_sentence_scores** scores);
INVAR_API void invar_sentence_scores_free(invar_sentence_scores* scores);

#ifdef __cplusplus
}
#endif

#endif /* INVAR_INVAR_H */
