#pragma once
// The tensors of one model source by name, and the memory they point into (mapped files, or
// buffers the set owns). Shared by every reader so each validates and registers tensors the same
// way.
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "loaders/model_source.hpp"

namespace invar {

class TensorSet {
 public:
  // Keeps `owner` (a mapped file, a buffer) alive as long as the set.
  void keep(std::shared_ptr<const void> owner) { owners_.push_back(std::move(owner)); }
  // Registers a tensor whose bytes stay valid while the kept owners live. Bytes that are not
  // aligned to the element size are copied into an aligned buffer (reading a float through a
  // misaligned pointer is undefined). Fails on a second tensor of the same name, naming `where`.
  void add(const std::string& name, TensorData tensor, const std::string& where);

  // Registers a tensor whose bytes `copy_out` produces on its first get() (a strided view copied
  // out contiguously), so that only the tensors a model uses take memory, and only after their
  // shapes were checked through info(). `tensor` has its dtype, shape and nbytes; no data.
  using CopyOut = std::function<std::shared_ptr<const std::vector<std::uint64_t>>()>;
  void add_copied_on_use(const std::string& name, TensorData tensor, CopyOut copy_out, const std::string& where);

  bool has(const std::string& name) const { return tensors_.count(name) != 0; }
  // Fails naming `where` and the tensor when it is absent; copies a tensor out on its first use
  // (failing, naming both, when memory runs out).
  const TensorData& get(const std::string& name, const std::string& where) const;
  // The tensor's dtype and shape without copying it out.
  TensorInfo info(const std::string& name, const std::string& where) const;
  std::vector<std::string> names() const;
  std::size_t size() const { return tensors_.size(); }

 private:
  struct Entry {
    TensorData tensor;
    CopyOut copy_out;  // set until the first get()
  };
  Entry& entry(const std::string& name, const std::string& where) const;

  mutable std::map<std::string, Entry> tensors_;
  mutable std::vector<std::shared_ptr<const void>> owners_;
};

// The number of elements of `shape`, failing (naming `where` and `what`) on a negative size or an
// overflow of 2^62 elements or bytes of `dtype`.
std::size_t checked_nbytes(const std::vector<std::int64_t>& shape, DType dtype, const std::string& where,
                           const std::string& what);

}  // namespace invar
