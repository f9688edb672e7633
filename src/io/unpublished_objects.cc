#include "io/unpublished_objects.h"

namespace omnigraph {

void DeleteUnpublished(ObjectStore* store, const std::vector<std::string>& keys) {
  for (const std::string& key : keys) (void)store->Delete(key);
}

}  // namespace omnigraph
