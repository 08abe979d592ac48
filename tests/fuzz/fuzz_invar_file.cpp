// libFuzzer target: the .invar model file's header and what it points to. The input is the header
// JSON, a NUL byte, and the start of the data section; the target writes a file around them with a
// valid preamble and checksums (so mutations reach the header's checks instead of failing the
// CRC), the data section zero-padded by kDataPadding bytes so that tensor ranges of seeds whose data
// was cut after the files still fit. The file is opened as a model source, every auxiliary file
// and tensor read and converted (I8 ones dequantized). Any bytes must be accepted or rejected with
// an invar::Error: never a crash, hang, leak or another exception. The provenance fingerprint of
// the same file (loaders/fingerprint.hpp), which never fails, reads its header and config.json too.
#include <zlib.h>

#include <string>

#include "core/dtype.hpp"
#include "core/error.hpp"
#include "fuzz_support.hpp"
#include "loaders/fingerprint.hpp"
#include "loaders/invar_file.hpp"
#include "loaders/model_source.hpp"

namespace {

constexpr std::size_t kDataPadding = 512 << 10;  // more than any fixture's tensors

std::string le(std::uint64_t value, int bytes) {
  std::string out(static_cast<std::size_t>(bytes), '\0');
  for (int i = 0; i < bytes; ++i) out[static_cast<std::size_t>(i)] = static_cast<char>((value >> (8 * i)) & 0xFF);
  return out;
}

std::uint32_t crc(std::string_view bytes) {
  return static_cast<std::uint32_t>(
      ::crc32(0, reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uInt>(bytes.size())));
}

// docs/model-format.md: magic, version, flags, header offset and size, data offset and size,
// header CRC, data CRC, then the preamble's own CRC; header at 64, data 64-byte aligned after it.
std::string invar_file(std::string_view header, std::string_view data_start) {
  const std::uint64_t data_offset = (invar::kInvarPreambleBytes + header.size() + invar::kInvarAlignment - 1) /
                                    invar::kInvarAlignment * invar::kInvarAlignment;
  std::string data(data_start);
  data.resize(data.size() + kDataPadding, '\0');
  std::string file(invar::kInvarMagic, sizeof invar::kInvarMagic);
  file += le(invar::kInvarVersion, 4) + le(0, 4) + le(invar::kInvarPreambleBytes, 8) + le(header.size(), 8) +
          le(data_offset, 8) + le(data.size(), 8) + le(crc(header), 4) + le(crc(data), 4);
  file += le(crc(file), 4);
  file.resize(invar::kInvarPreambleBytes, '\0');
  file += header;
  file.resize(data_offset, '\0');
  return file + data;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input = invar::fuzz::as_text(data, size);
  const auto nul = input.find('\0');
  const std::string_view header = input.substr(0, nul);
  const std::string_view data_start = nul == std::string_view::npos ? std::string_view() : input.substr(nul + 1);
  const std::string path = invar::fuzz::scratch() + "/model.invar";
  invar::fuzz::write_file(path, invar_file(header, data_start));
  invar::fingerprint_model(path);
  try {
    const auto source = invar::ModelSource::open(path);
    for (const auto& name : source->file_names()) source->read_file(name);
    for (const auto& name : source->tensor_names()) {
      const invar::TensorData tensor = source->tensor(name);
      if (invar::is_floating(tensor.dtype) || tensor.dtype == invar::DType::I8) invar::to_f32(tensor);
    }
  } catch (const invar::Error&) {
  }
  return 0;
}
