#include "glassbox/token_ids.hpp"

#include "glassbox/error.hpp"

namespace glassbox {

Result<void> check_token_id(int id, int vocab_size) {
  if (id < 0 || id >= vocab_size)
    return error(ErrorCode::BadArgument, "token id ", id, " is outside the vocabulary (0..", vocab_size - 1,
                 ")");
  return ok();
}

Result<void> check_token_ids(std::span<const int> ids, int vocab_size) {
  for (int id : ids)
    GLASSBOX_TRY(check_token_id(id, vocab_size));
  return ok();
}

}  // namespace glassbox
