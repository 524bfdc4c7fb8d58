// A token id's one rule: 0 <= id < vocab_size. Checked wherever ids come in from outside the engine (a
// session's input, a generator's prompt, the page's requests), in one place, so every caller refuses the
// same ids with the same code (bad-argument) and the same words.
#pragma once

#include <span>

#include "glassbox/result.hpp"

namespace glassbox {

// Fails with bad-argument naming the id and the vocabulary's range when `id` is outside 0..vocab_size - 1.
Result<void> check_token_id(int id, int vocab_size);

// check_token_id on each of `ids`, failing on the first one outside the vocabulary.
Result<void> check_token_ids(std::span<const int> ids, int vocab_size);

}  // namespace glassbox
