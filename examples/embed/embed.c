/* Sentence embeddings through invar's C API (include/invar/invar.h; docs/embedding.md).
 *
 *   embed MODEL TEXT...
 *
 * prints the library's version, the embedding dimension, then one line of values per text, computed
 * on the device $INVAR_DEVICE names ("cpu" when unset; "opencl" loads the OpenCL module). On failure
 * it prints the library's message and exits with the invar_status. Build it against an installed
 * invar with pkg-config:
 *
 *   cc embed.c $(pkg-config --cflags --libs invar) -o embed
 *
 * or with CMake (CMakeLists.txt beside this file: find_package(invar)). */
#include <invar/invar.h>

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s MODEL TEXT...\n", argv[0]);
    return 2;
  }
  invar_model_options options;
  invar_model_options_init(&options);
  options.threads = 1;
  options.device = getenv("INVAR_DEVICE"); /* NULL = cpu */

  invar_model* model = NULL;
  invar_status status = invar_model_open(argv[1], &options, &model);
  if (status != INVAR_OK) {
    fprintf(stderr, "embed: %s\n", invar_last_error());
    return (int)status;
  }
  invar_embeddings* embeddings = NULL;
  status = invar_embed(model, (const char* const*)(argv + 2), (size_t)(argc - 2), &embeddings);
  if (status == INVAR_OK) {
    printf("invar %s\ndimension %zu\n", invar_version(), embeddings->dimension);
    for (size_t i = 0; i < embeddings->count; ++i)
      for (size_t d = 0; d < embeddings->dimension; ++d)
        printf("%.6f%c", embeddings->values[i * embeddings->dimension + d], d + 1 < embeddings->dimension ? ' ' : '\n');
  } else {
    fprintf(stderr, "embed: %s\n", invar_last_error());
  }
  invar_embeddings_free(embeddings);
  invar_model_free(model);
  return (int)status;
}
