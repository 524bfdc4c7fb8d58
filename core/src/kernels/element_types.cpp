#include "kernels/element_types.hpp"

namespace glassbox {

std::string computable_type_names() {
  std::string names;
  std::size_t count = 0;
  for (const ElementType& e : kElementTypes)
    count += e.dtype.has_value();
  std::size_t i = 0;
  for (const ElementType& e : kElementTypes) {
    if (!e.dtype) continue;
    if (i > 0) names += i + 1 == count ? " and " : ", ";
    names += e.name;
    ++i;
  }
  return names;
}

}  // namespace glassbox
