#include "engine/error.hpp"
#include "loaders/sources.hpp"

namespace invar {

std::unique_ptr<ModelSource> open_invar_file(const std::string& path) {
  fail("{}: not a model folder (.invar files are not implemented yet)", path);
}

}  // namespace invar
