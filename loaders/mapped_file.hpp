#pragma once
// A whole file mapped read-only into memory. Model files are read through these views, so tensors
// are never copied on load; the mapping lives as long as the last shared_ptr to it.
//
// A file truncated while mapped makes reading its lost pages raise SIGBUS. The first open installs
// a SIGBUS handler that, for an address inside a live mapping, writes
// "invar: error: FILE: the file changed (truncated?) while it was being read" and exits with
// status 1; faults elsewhere go to the handler that was installed before (by default, death).
#include <cstddef>
#include <memory>
#include <string>

namespace invar {

class MappedFile {
 public:
  // Fails with a message naming the path when the file cannot be opened or mapped.
  static std::shared_ptr<const MappedFile> open(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const std::byte* data() const { return data_; }
  std::size_t size() const { return size_; }
  const std::string& path() const { return path_; }

 private:
  MappedFile() = default;
  std::string path_;
  const std::byte* data_ = nullptr;
  std::size_t size_ = 0;
  std::string changed_message_;  // the SIGBUS handler's line for this file
  void* slot_ = nullptr;         // this mapping's entry in the handler's table, if it got one
};

}  // namespace invar
