#pragma once
// What identifies a model on disk without reading its weights: for a report's provenance (which
// model made these numbers), cheap enough to take for every model a command names.
#include <cstdint>
#include <optional>
#include <string>

namespace invar {

struct ModelFingerprint {
  std::string format;      // "huggingface" (a folder) or "invar" (an .invar file)
  std::string model_type;  // config.json's model_type (or its first architecture); empty when unreadable
  std::uint64_t bytes = 0;  // the file's size, or the sum of the folder's files
  std::int64_t modified = 0;  // the newest file's modification time, seconds since the epoch (UTC)
  // An .invar file's data CRC-32 as its preamble records it (checked whenever the model is loaded),
  // as 8 hex digits; empty for a folder.
  std::string data_crc32;
};

// The fingerprint of a Hugging Face folder (a folder with config.json) or an .invar file (by its
// magic); nullopt for anything else. Reads config.json, or an .invar file's preamble, header and
// stored config.json, never the weights; never fails: what cannot be read is left empty, and the
// command that loads the model reports it.
std::optional<ModelFingerprint> fingerprint_model(const std::string& path);

}  // namespace invar
