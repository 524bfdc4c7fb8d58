// The token-id rule every entry point shares (glassbox/token_ids.hpp): the range's ends, the code, and the
// words that name the id and the range.
#include <gtest/gtest.h>

#include <climits>
#include <vector>

#include "glassbox/error.hpp"
#include "glassbox/token_ids.hpp"

namespace glassbox {
namespace {

TEST(TokenIds, AcceptsEveryIdOfTheVocabulary) {
  EXPECT_TRUE(check_token_id(0, 32).ok());
  EXPECT_TRUE(check_token_id(31, 32).ok());
  EXPECT_TRUE(check_token_ids(std::vector<int>{0, 5, 31, 31}, 32).ok());
  EXPECT_TRUE(check_token_ids(std::vector<int>{}, 32).ok());  // no ids: nothing outside
}

TEST(TokenIds, RefusesAnIdOutsideWithBadArgumentNamingIdAndRange) {
  for (int bad : {-1, 32, INT_MAX, INT_MIN}) {
    const Result<void> r = check_token_id(bad, 32);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().code, ErrorCode::BadArgument);
    EXPECT_EQ(r.error().message, cat("token id ", bad, " is outside the vocabulary (0..31)"));
  }
}

TEST(TokenIds, ListNamesTheFirstIdOutside) {
  const Result<void> r = check_token_ids(std::vector<int>{3, 40, -2}, 32);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::BadArgument);
  EXPECT_EQ(r.error().message, "token id 40 is outside the vocabulary (0..31)");
}

}  // namespace
}  // namespace glassbox
