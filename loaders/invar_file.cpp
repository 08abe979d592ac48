// .invar model files: the layout is described in docs/model-format.md.
#include "loaders/invar_file.hpp"

#include <xxhash.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <charconv>
#include <cmath>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <span>
#include <thread>

#include "core/crc32.hpp"
#include "core/error.hpp"
#include "core/quantize.hpp"
#include "loaders/mapped_file.hpp"
#include "loaders/model_files.hpp"
#include "loaders/sources.hpp"
#include "loaders/tensor_set.hpp"

namespace invar {

namespace {

constexpr std::uint64_t kMaxHeaderBytes = 100'000'000;

// The fixed 64-byte preamble, little-endian.
struct Preamble {
  std::uint32_t version = kInvarVersion;
  std::uint32_t flags = 0;
  std::uint64_t header_offset = kInvarPreambleBytes;
  std::uint64_t header_size = 0;
  std::uint64_t data_offset = 0;
  std::uint64_t data_size = 0;
  std::uint32_t header_crc = 0;
  std::uint32_t data_crc = 0;
  std::uint32_t preamble_crc = 0;  // of bytes [0, 56)
};

constexpr std::size_t kPreambleCrcOffset = 56;

// The same CRC of a large range on two threads, joined by zlib's crc32_combine: opening an .invar
// file checks its whole data section, and zlib's single pass (≈ 2.3 GB/s) was half of the start-up
// of a 1 GB model.
std::uint32_t crc32_of_large(const std::byte* data, std::uint64_t size) {
  constexpr std::uint64_t kSplitFrom = std::uint64_t{64} << 20;
  if (size < kSplitFrom || std::thread::hardware_concurrency() < 2) return crc32_of(data, size);
  const std::uint64_t half = size / 2;
  std::uint32_t second = 0;
  std::thread worker([&] { second = crc32_of(data + half, size - half); });
  const std::uint32_t first = crc32_of(data, half);
  worker.join();
  return static_cast<std::uint32_t>(crc32_combine(first, second, static_cast<z_off_t>(size - half)));
}

std::uint64_t align_up(std::uint64_t offset) { return (offset + kInvarAlignment - 1) / kInvarAlignment * kInvarAlignment; }

void put_le(std::byte* out, std::uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out[i] = static_cast<std::byte>((value >> (8 * i)) & 0xFF);
}
std::uint64_t get_le(const std::byte* in, int bytes) {
  std::uint64_t value = 0;
  for (int i = bytes - 1; i >= 0; --i) value = (value << 8) | static_cast<std::uint8_t>(in[i]);
  return value;
}

std::array<std::byte, kInvarPreambleBytes> encode_preamble(Preamble p) {
  std::array<std::byte, kInvarPreambleBytes> bytes{};
  std::memcpy(bytes.data(), kInvarMagic, 8);
  put_le(&bytes[8], p.version, 4);
  put_le(&bytes[12], p.flags, 4);
  put_le(&bytes[16], p.header_offset, 8);
  put_le(&bytes[24], p.header_size, 8);
  put_le(&bytes[32], p.data_offset, 8);
  put_le(&bytes[40], p.data_size, 8);
  put_le(&bytes[48], p.header_crc, 4);
  put_le(&bytes[52], p.data_crc, 4);
  put_le(&bytes[kPreambleCrcOffset], crc32_of(bytes.data(), kPreambleCrcOffset), 4);
  return bytes;
}

Preamble decode_preamble(const std::byte* bytes, std::size_t size, const std::string& path) {
  if (size < kInvarPreambleBytes)
    fail("{}: truncated .invar file: {} bytes, the preamble alone needs {}", path, size, kInvarPreambleBytes);
  if (std::memcmp(bytes, kInvarMagic, 8) != 0) fail("{}: neither a model folder nor an .invar model file (bad magic)", path);
  Preamble p;
  p.version = static_cast<std::uint32_t>(get_le(bytes + 8, 4));
  if (p.version != kInvarVersion)
    fail("{}: .invar format version {}; this invar reads version {}", path, p.version, kInvarVersion);
  p.preamble_crc = static_cast<std::uint32_t>(get_le(bytes + kPreambleCrcOffset, 4));
  if (p.preamble_crc != crc32_of(bytes, kPreambleCrcOffset)) fail("{}: preamble checksum mismatch", path);
  p.flags = static_cast<std::uint32_t>(get_le(bytes + 12, 4));
  p.header_offset = get_le(bytes + 16, 8);
  p.header_size = get_le(bytes + 24, 8);
  p.data_offset = get_le(bytes + 32, 8);
  p.data_size = get_le(bytes + 40, 8);
  p.header_crc = static_cast<std::uint32_t>(get_le(bytes + 48, 4));
  p.data_crc = static_cast<std::uint32_t>(get_le(bytes + 52, 4));
  if (p.flags != 0) fail("{}: unknown flags 0x{:x} in the preamble", path, p.flags);
  if (p.header_offset != kInvarPreambleBytes) fail("{}: header offset {} is not {}", path, p.header_offset, kInvarPreambleBytes);
  if (p.header_size > size - kInvarPreambleBytes)
    fail("{}: truncated .invar header: it declares {} bytes but the file has {} after the preamble", path,
         p.header_size, size - kInvarPreambleBytes);
  if (p.header_size > kMaxHeaderBytes) fail("{}: .invar header of {} bytes is too large", path, p.header_size);
  if (p.data_offset % kInvarAlignment != 0 || p.data_offset < kInvarPreambleBytes + p.header_size)
    fail("{}: data offset {} is not 64-byte aligned after the header", path, p.data_offset);
  if (p.data_offset > size || p.data_size != size - p.data_offset)
    fail("{}: truncated or padded .invar file: data [{}, +{}) but the file has {} bytes", path, p.data_offset,
         p.data_size, size);
  return p;
}

// --- Writing ---------------------------------------------------------------------------------------

// One piece of the data section: an auxiliary file, a tensor (after any dtype conversion), or the
// scales of the I8 tensor before it.
struct Piece {
  enum class Kind : std::uint8_t { File, Tensor, Scales };
  Kind kind = Kind::Tensor;
  std::string name;
  std::string file;     // a file's content
  TensorData tensor;    // a tensor as stored in the source, or as quantized here
  DType dtype{};        // the tensor's dtype in the .invar file
  bool finite = false;  // a floating tensor whose stored values hold no NaN or infinity
  std::uint64_t offset = 0, size = 0;
};

// The bytes of a tensor in `dtype`: the stored bytes, or converted ones in `scratch`.
std::span<const std::byte> tensor_bytes(const TensorData& tensor, DType dtype, std::vector<std::byte>& scratch) {
  if (tensor.dtype == dtype) return {tensor.data, tensor.nbytes};
  const std::vector<float> values = to_f32(tensor);
  scratch.resize(values.size() * dtype_size(dtype));
  if (dtype == DType::F32) {
    std::memcpy(scratch.data(), values.data(), scratch.size());
  } else {
    for (std::size_t i = 0; i < values.size(); ++i) {
      const std::uint16_t bits = dtype == DType::F16 ? f32_to_f16_bits(values[i]) : f32_to_bf16_bits(values[i]);
      std::memcpy(scratch.data() + 2 * i, &bits, 2);
    }
  }
  return scratch;
}

std::span<const std::byte> piece_bytes(const Piece& piece, std::vector<std::byte>& scratch) {
  switch (piece.kind) {
    case Piece::Kind::File:
      return std::as_bytes(std::span(piece.file.data(), piece.file.size()));
    case Piece::Kind::Tensor:
      return tensor_bytes(piece.tensor, piece.dtype, scratch);
    case Piece::Kind::Scales:
      return std::as_bytes(std::span(piece.tensor.scales, piece.size / sizeof(float)));
  }
  return {};
}

// Feeds the data section, padding included, to `sink` in order.
void emit_data(const std::vector<Piece>& pieces, const std::function<void(std::span<const std::byte>)>& sink) {
  static constexpr std::array<std::byte, kInvarAlignment> kZeros{};
  std::vector<std::byte> scratch;
  std::uint64_t position = 0;
  for (const auto& piece : pieces) {
    sink({kZeros.data(), piece.offset - position});
    sink(piece_bytes(piece, scratch));
    position = piece.offset + piece.size;
  }
}

// Quantized copies of tensors (core/quantize.hpp), kept until the file is written.
struct Int8Matrix {
  std::vector<std::int8_t> q;
  std::vector<float> scales;
};

TensorData quantized(const std::string& name, const TensorData& tensor, const std::string& where,
                     std::deque<Int8Matrix>& kept) {
  if (tensor.shape.size() != 2)
    fail("{}: tensor '{}' has {} dimensions: only a matrix can be stored as int8", where, name, tensor.shape.size());
  const std::vector<float> values = to_f32(tensor);
  Int8Matrix& matrix = kept.emplace_back();
  matrix.q.resize(values.size());
  matrix.scales.resize(static_cast<std::size_t>(tensor.shape[0]));
  quantize_rows_int8(values.data(), tensor.shape[0], tensor.shape[1], matrix.q.data(), matrix.scales.data());
  return {DType::I8, tensor.shape, reinterpret_cast<const std::byte*>(matrix.q.data()), matrix.q.size(),
          matrix.scales.data()};
}

// The tensor `name` as pieces: itself in its .invar dtype, and its scales when that is I8.
void add_tensor_pieces(const ModelSource& source, const std::string& name, std::optional<DType> float_dtype,
                       bool to_int8, std::deque<Int8Matrix>& kept, std::vector<Piece>& pieces) {
  Piece piece;
  piece.name = name;
  piece.tensor = source.tensor(name);
  if (to_int8 && is_floating(piece.tensor.dtype)) piece.tensor = quantized(name, piece.tensor, source.path(), kept);
  const bool converts = is_floating(piece.tensor.dtype) || piece.tensor.dtype == DType::I8;
  piece.dtype = float_dtype && converts ? *float_dtype : piece.tensor.dtype;
  piece.size = piece.tensor.nbytes / dtype_size(piece.tensor.dtype) * dtype_size(piece.dtype);
  if (is_floating(piece.dtype)) {
    // Checked on the bytes as written (a conversion to F16 may overflow), so that readers can skip
    // the check: the data CRC proves them unchanged since.
    std::vector<std::byte> scratch;
    const auto bytes = tensor_bytes(piece.tensor, piece.dtype, scratch);
    piece.finite = count_non_finite(TensorData{piece.dtype, piece.tensor.shape, bytes.data(), bytes.size()}) == 0;
  }
  pieces.push_back(piece);
  if (piece.dtype != DType::I8) return;
  piece.kind = Piece::Kind::Scales;
  piece.size = static_cast<std::uint64_t>(piece.tensor.shape[0]) * sizeof(float);
  pieces.push_back(std::move(piece));
}

// Places the pieces one after the other, 64-aligned, and returns the header that lists them.
nlohmann::json place(std::vector<Piece>& pieces) {
  nlohmann::json files = nlohmann::json::array(), tensors = nlohmann::json::array();
  std::uint64_t end = 0;
  for (auto& piece : pieces) {
    piece.offset = align_up(end);
    end = piece.offset + piece.size;
    switch (piece.kind) {
      case Piece::Kind::File:
        files.push_back({{"name", piece.name}, {"offset", piece.offset}, {"size", piece.size}});
        break;
      case Piece::Kind::Tensor:
        tensors.push_back({{"name", piece.name}, {"dtype", dtype_name(piece.dtype)}, {"shape", piece.tensor.shape},
                           {"offset", piece.offset}, {"size", piece.size}});
        if (piece.finite) tensors.back()["finite"] = true;
        break;
      case Piece::Kind::Scales:
        tensors.back()["scales"] = {{"dtype", dtype_name(DType::F32)}, {"shape", {piece.tensor.shape[0]}},
                                    {"offset", piece.offset}, {"size", piece.size}};
        break;
    }
  }
  return nlohmann::json{{"files", files}, {"tensors", tensors}};
}

// The XXH3 hash of each kInvarBlockBytes of a stream (the last block may be shorter).
class BlockHashes {
 public:
  BlockHashes() : state_(XXH3_createState()) {
    if (!state_) throw std::bad_alloc();
    XXH3_64bits_reset(state_);
  }
  ~BlockHashes() { XXH3_freeState(state_); }
  BlockHashes(const BlockHashes&) = delete;
  BlockHashes& operator=(const BlockHashes&) = delete;

  void add(std::span<const std::byte> bytes) {
    while (!bytes.empty()) {
      const std::size_t take = std::min<std::uint64_t>(bytes.size(), kInvarBlockBytes - filled_);
      XXH3_64bits_update(state_, bytes.data(), take);
      bytes = bytes.subspan(take);
      if ((filled_ += take) == kInvarBlockBytes) finish_block();
    }
  }
  // Hex digits, 16 per block in order (XXH64's canonical big-endian form).
  std::string hex() {
    if (filled_ > 0) finish_block();
    return hex_;
  }

 private:
  void finish_block() {
    hex_ += fmt::format("{:016x}", XXH3_64bits_digest(state_));
    XXH3_64bits_reset(state_);
    filled_ = 0;
  }
  XXH3_state_t* state_;
  std::uint64_t filled_ = 0;
  std::string hex_;
};

}  // namespace

void write_invar_file(const ModelSource& source, std::ostream& out, std::optional<DType> float_dtype,
                      const std::set<std::string>& int8_tensors) {
  if (float_dtype && !int8_tensors.empty()) fail_internal("an .invar file is written in one float dtype or in int8");
  std::vector<Piece> pieces;
  for (const auto& name : source.file_names()) {
    Piece piece;
    piece.kind = Piece::Kind::File;
    piece.name = name;
    piece.file = source.read_file(name);
    piece.size = piece.file.size();
    pieces.push_back(std::move(piece));
  }
  if (!source.has_file("config.json")) fail("{}: no config.json", source.path());
  auto tensor_names = source.tensor_names();
  std::sort(tensor_names.begin(), tensor_names.end());
  std::deque<Int8Matrix> kept;
  for (const auto& name : tensor_names)
    add_tensor_pieces(source, name, float_dtype, int8_tensors.count(name) != 0, kept, pieces);
  nlohmann::json header_json = place(pieces);
  const std::uint64_t end = pieces.empty() ? 0 : pieces.back().offset + pieces.back().size;

  Preamble preamble;
  BlockHashes blocks;
  emit_data(pieces, [&](std::span<const std::byte> bytes) {
    preamble.data_crc = crc32_of(preamble.data_crc, bytes.data(), bytes.size());
    blocks.add(bytes);
  });
  header_json["blocks"] = {{"size", kInvarBlockBytes}, {"xxh3", blocks.hex()}};
  const std::string header = header_json.dump();
  preamble.header_size = header.size();
  preamble.data_offset = align_up(kInvarPreambleBytes + header.size());
  preamble.data_size = end;
  preamble.header_crc = crc32_of(reinterpret_cast<const std::byte*>(header.data()), header.size());

  const auto preamble_bytes = encode_preamble(preamble);
  out.write(reinterpret_cast<const char*>(preamble_bytes.data()), preamble_bytes.size());
  out << header << std::string(preamble.data_offset - kInvarPreambleBytes - header.size(), '\0');
  emit_data(pieces, [&](std::span<const std::byte> bytes) {
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  });
  if (!out) fail("cannot write the .invar file for {}", source.path());
}

// --- Reading ---------------------------------------------------------------------------------------

namespace {

struct Range {
  std::string what;
  std::uint64_t begin = 0, end = 0;
};

class InvarHeader {
 public:
  InvarHeader(const nlohmann::json& json, std::uint64_t data_size, const std::string& path)
      : data_size_(data_size), path_(path) {
    if (!json.is_object()) fail("{}: .invar header is not a JSON object", path);
    for (const char* key : {"files", "tensors"})
      if (!json.contains(key) || !json[key].is_array()) fail("{}: .invar header has no '{}' list", path, key);
  }

  const nlohmann::json& field(const nlohmann::json& entry, const char* key, const std::string& what) const {
    if (!entry.is_object() || !entry.contains(key)) fail("{}: {} has no '{}'", path_, what, key);
    return entry[key];
  }
  std::uint64_t unsigned_field(const nlohmann::json& entry, const char* key, const std::string& what) const {
    const auto& value = field(entry, key, what);
    if (!value.is_number_unsigned()) fail("{}: {}: '{}' must be a non-negative integer", path_, what, key);
    return value.get<std::uint64_t>();
  }
  std::string name(const nlohmann::json& entry, const char* kind) const {
    const auto& value = field(entry, "name", kind);
    if (!value.is_string()) fail("{}: a {} name is not a string", path_, kind);
    return value.get<std::string>();
  }
  // The entry's data range, checked against the data section and the alignment.
  Range range(const nlohmann::json& entry, const std::string& what) {
    const std::uint64_t offset = unsigned_field(entry, "offset", what), size = unsigned_field(entry, "size", what);
    if (offset % kInvarAlignment != 0) fail("{}: {}: offset {} is not 64-byte aligned", path_, what, offset);
    if (offset > data_size_ || size > data_size_ - offset)
      fail("{}: {}: [{}, +{}) runs past the end of the data ({} bytes)", path_, what, offset, size, data_size_);
    ranges_.push_back({what, offset, offset + size});
    return ranges_.back();
  }
  // An I8 tensor's scales (docs/model-format.md), validated: F32 [rows], finite, not negative.
  // `verify` checks a range's bytes before they are read.
  const float* scales(const nlohmann::json& entry, const std::vector<std::int64_t>& shape, const std::string& what,
                      const std::byte* data, const std::function<void(const Range&)>& verify) {
    if (shape.size() != 2) fail("{}: {}: an I8 tensor must be a matrix, not {}-dimensional", path_, what, shape.size());
    const auto& scales = field(entry, "scales", what);
    const std::string of = what + " scales";
    const auto& dtype = field(scales, "dtype", of);
    if (dtype != dtype_name(DType::F32)) fail("{}: {}: dtype {} is not F32", path_, of, dtype.dump());
    const auto& scales_shape = field(scales, "shape", of);
    if (scales_shape != nlohmann::json::array({shape[0]}))
      fail("{}: {}: shape {} is not [{}], one per row", path_, of, scales_shape.dump(), shape[0]);
    const Range place = range(scales, of);
    const auto rows = static_cast<std::uint64_t>(shape[0]);
    if (place.end - place.begin != rows * sizeof(float))
      fail("{}: {}: F32 [{}] needs {} bytes but {} are stored", path_, of, rows, rows * sizeof(float),
           place.end - place.begin);
    verify(place);
    const auto* values = reinterpret_cast<const float*>(data + place.begin);  // 64-byte aligned
    for (std::uint64_t j = 0; j < rows; ++j)
      if (!std::isfinite(values[j]) || values[j] < 0.0f)
        fail("{}: {}: the scale of row {} is {}, not a finite number >= 0", path_, of, j, values[j]);
    return values;
  }
  void check_overlaps() {
    std::sort(ranges_.begin(), ranges_.end(), [](const Range& a, const Range& b) {
      return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
    });
    for (std::size_t i = 1; i < ranges_.size(); ++i)
      if (ranges_[i].begin < ranges_[i - 1].end && ranges_[i].begin != ranges_[i].end)
        fail("{}: {} and {} overlap", path_, ranges_[i - 1].what, ranges_[i].what);
  }

 private:
  std::uint64_t data_size_;
  const std::string& path_;
  std::vector<Range> ranges_;
};

class InvarFileSource : public ModelSource {
 public:
  explicit InvarFileSource(std::string path) : path_(std::move(path)) {
    auto file = MappedFile::open(path_);
    const std::byte* bytes = file->data();
    const Preamble preamble = decode_preamble(bytes, file->size(), path_);
    const std::byte* header_bytes = bytes + preamble.header_offset;
    if (crc32_of(header_bytes, preamble.header_size) != preamble.header_crc)
      fail("{}: header checksum mismatch (the file is corrupted)", path_);
    const std::byte* data = bytes + preamble.data_offset;
    data_ = data;
    data_size_ = preamble.data_size;
    data_crc_ = preamble.data_crc;

    const char* text = reinterpret_cast<const char*>(header_bytes);
    const nlohmann::json::parser_callback_t depth_limit = [&](int depth, nlohmann::json::parse_event_t,
                                                               nlohmann::json&) {
      if (depth > 5) fail("{}: .invar header nests deeper than an .invar header can", path_);
      return true;
    };
    nlohmann::json json;
    try {
      json = nlohmann::json::parse(text, text + preamble.header_size, depth_limit);
    } catch (const nlohmann::json::exception& e) {
      fail("{}: .invar header is not valid JSON: {}", path_, e.what());
    }
    InvarHeader header(json, preamble.data_size, path_);
    read_blocks(json);
    // Without block hashes (a file written before them), the data CRC is checked on open, before any
    // byte of the data is used; with them, each block is checked when first read (verify()).
    if (block_hashes_.empty()) verify_all();
    for (const auto& entry : json["files"]) {
      const std::string name = header.name(entry, "file");
      check_relative_path(name, path_);
      if (!is_auxiliary_file(name)) fail("{}: file '{}' is not an auxiliary model file", path_, name);
      const Range range = header.range(entry, "file '" + name + "'");
      if (!files_.emplace(name, std::string_view(reinterpret_cast<const char*>(data + range.begin), range.end - range.begin)).second)
        fail("{}: file '{}' is stored twice", path_, name);
    }
    for (const auto& entry : json["tensors"]) {
      const std::string name = header.name(entry, "tensor");
      const std::string what = "tensor '" + name + "'";
      TensorData tensor;
      const auto& dtype = header.field(entry, "dtype", what);
      const auto parsed = dtype.is_string() ? parse_dtype_name(dtype.get<std::string>()) : std::nullopt;
      if (!parsed) fail("{}: {}: dtype {} is not F32, F16, BF16, I32, I64 or I8", path_, what, dtype.dump());
      tensor.dtype = *parsed;
      const auto& shape = header.field(entry, "shape", what);
      if (!shape.is_array()) fail("{}: {}: 'shape' must be a list", path_, what);
      for (const auto& size : shape) {
        if (!size.is_number_unsigned()) fail("{}: {}: 'shape' must hold non-negative integers", path_, what);
        tensor.shape.push_back(static_cast<std::int64_t>(std::min<std::uint64_t>(size.get<std::uint64_t>(), std::uint64_t{1} << 62)));
      }
      const Range range = header.range(entry, what);
      tensor.nbytes = range.end - range.begin;
      const std::size_t expected = checked_nbytes(tensor.shape, tensor.dtype, path_, what);
      if (expected != tensor.nbytes)
        fail("{}: {}: {} {} needs {} bytes but {} are stored", path_, what, dtype_name(tensor.dtype), shape.dump(),
             expected, tensor.nbytes);
      tensor.data = data + range.begin;
      if (entry.contains("finite")) {
        if (!entry["finite"].is_boolean()) fail("{}: {}: 'finite' must be true or false", path_, what);
        if (entry["finite"].get<bool>()) finite_.insert(name);
      }
      if (tensor.dtype == DType::I8) {
        tensor.scales =
            header.scales(entry, tensor.shape, what, data, [&](const Range& r) { verify(r.what, r.begin, r.end); });
      } else if (entry.contains("scales")) {
        fail("{}: {}: only an I8 tensor has 'scales', not a {} one", path_, what, dtype_name(tensor.dtype));
      }
      tensors_.add(name, std::move(tensor), path_);
    }
    header.check_overlaps();
    if (!files_.count("config.json")) fail("{}: no config.json inside", path_);
    verify_file("config.json");
    try {
      config_ = nlohmann::json::parse(files_.at("config.json"));
    } catch (const nlohmann::json::exception& e) {
      fail("{}: config.json inside is not valid JSON: {}", path_, e.what());
    }
    if (!config_.is_object()) fail("{}: config.json inside is not a JSON object", path_);
    tensors_.keep(std::move(file));
  }

  const std::string& path() const override { return path_; }
  const nlohmann::json& config_json() const override { return config_; }
  bool has_file(const std::string& name) const override { return files_.count(name) != 0; }
  std::string read_file(const std::string& name) const override {
    auto it = files_.find(name);
    if (it == files_.end()) fail("{}: no file '{}'", path_, name);
    verify_file(name);
    return std::string(it->second);
  }
  std::vector<std::string> file_names() const override {
    std::vector<std::string> names;
    for (const auto& [name, content] : files_) names.push_back(name);
    return names;
  }
  std::vector<std::string> tensor_names() const override { return tensors_.names(); }
  bool has_tensor(const std::string& name) const override { return tensors_.has(name); }
  TensorData tensor(const std::string& name) const override {
    const TensorData& tensor = tensors_.get(name, path_);
    verify_bytes(name, tensor.data, tensor.nbytes);
    return tensor;
  }
  TensorData table(const std::string& name) const override { return tensors_.get(name, path_); }
  TensorInfo tensor_info(const std::string& name) const override { return tensors_.info(name, path_); }

  void verify_all() const override {
    for (std::uint64_t block = 0; block < block_hashes_.size(); ++block) verify_block(block, "the data");
    if (crc32_of_large(data_, data_size_) != data_crc_) fail("{}: data checksum mismatch (the file is corrupted)", path_);
  }

 protected:
  bool verified_finite(const std::string& name) const override { return finite_.count(name) != 0; }
  void verify_bytes(const std::string& name, const std::byte* bytes, std::size_t size) const override {
    if (size == 0) return;
    if (bytes < data_ || bytes + size > data_ + data_size_) fail_internal("{}: tensor '{}' is not in the file", path_, name);
    const auto begin = static_cast<std::uint64_t>(bytes - data_);
    verify("tensor '" + name + "'", begin, begin + size);
  }

 private:
  // The header's "blocks" (docs/model-format.md), validated; none in a file written before them.
  void read_blocks(const nlohmann::json& json) {
    if (!json.contains("blocks")) return;
    const auto& blocks = json["blocks"];
    const auto& size = blocks.is_object() && blocks.contains("size") ? blocks["size"] : nlohmann::json();
    const auto& hashes = blocks.is_object() && blocks.contains("xxh3") ? blocks["xxh3"] : nlohmann::json();
    if (!size.is_number_unsigned() || !hashes.is_string())
      fail("{}: .invar header: 'blocks' must be an object with a 'size' and an 'xxh3' string", path_);
    block_bytes_ = size.get<std::uint64_t>();
    if (block_bytes_ == 0 || block_bytes_ % kInvarAlignment != 0 || block_bytes_ > (std::uint64_t{1} << 32))
      fail("{}: .invar header: block size {} is not a multiple of 64 from 64 to 2^32", path_, block_bytes_);
    const std::string& hex = hashes.get_ref<const std::string&>();
    const std::uint64_t count = (data_size_ + block_bytes_ - 1) / block_bytes_;
    if (hex.size() != 16 * count)
      fail("{}: .invar header: {} hex digits of block hashes, but the {} bytes of data need {} ({} blocks of {})", path_,
           hex.size(), data_size_, 16 * count, count, block_bytes_);
    block_hashes_.resize(count);
    for (std::uint64_t i = 0; i < count; ++i) {
      const char* digits = hex.data() + 16 * i;
      const auto [end, error] = std::from_chars(digits, digits + 16, block_hashes_[i], 16);
      if (error != std::errc() || end != digits + 16)
        fail("{}: .invar header: block hash {} is not 16 hex digits", path_, i);
    }
    verified_ = std::make_unique<std::atomic<bool>[]>(count);
  }
  // Checks the blocks that [begin, end) of the data lies in, each once; `what` names the range.
  void verify(const std::string& what, std::uint64_t begin, std::uint64_t end) const {
    if (block_hashes_.empty() || end <= begin) return;
    for (std::uint64_t block = begin / block_bytes_; block * block_bytes_ < end; ++block) verify_block(block, what);
  }
  void verify_block(std::uint64_t block, const std::string& what) const {
    if (verified_[block].load(std::memory_order_acquire)) return;
    const std::uint64_t begin = block * block_bytes_, size = std::min(block_bytes_, data_size_ - begin);
    if (XXH3_64bits(data_ + begin, size) != block_hashes_[block])
      fail("{}: data checksum mismatch in {} (block {}, bytes [{}, +{}) of the data): the file is corrupted", path_,
           what, block, begin, size);
    verified_[block].store(true, std::memory_order_release);
  }
  void verify_file(const std::string& name) const {
    const std::string_view content = files_.at(name);
    const auto begin = static_cast<std::uint64_t>(reinterpret_cast<const std::byte*>(content.data()) - data_);
    verify("file '" + name + "'", begin, begin + content.size());
  }

  std::string path_;
  nlohmann::json config_;
  std::map<std::string, std::string_view> files_;  // views into the mapping, kept by tensors_
  TensorSet tensors_;
  std::set<std::string> finite_;  // tensors marked "finite" by the writer
  const std::byte* data_ = nullptr;  // the data section, in the mapping tensors_ keeps
  std::uint64_t data_size_ = 0;
  std::uint32_t data_crc_ = 0;
  std::uint64_t block_bytes_ = 0;
  std::vector<std::uint64_t> block_hashes_;             // empty: the data CRC was checked on open
  std::unique_ptr<std::atomic<bool>[]> verified_;       // by block: checked already (any thread)
};

}  // namespace

std::unique_ptr<ModelSource> open_invar_file(const std::string& path) { return std::make_unique<InvarFileSource>(path); }

}  // namespace invar
