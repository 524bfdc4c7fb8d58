// Errors are values: every fallible function returns Result<T>, which holds either a T or an Error (error.hpp:
// a stable code and a message that names the file, the field, the offset, expected versus found). Nothing
// in the core throws, aborts or asserts on bad input; callers decide what to do with it.
#pragma once

#include <string>
#include <utility>
#include <variant>

#include "glassbox/error.hpp"

namespace glassbox {

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::in_place_index<0>, std::move(value)) {}
  Result(Error error) : state_(std::in_place_index<1>, std::move(error)) {}

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(state_); }
  const T& value() const& { return std::get<0>(state_); }
  T&& value() && { return std::get<0>(std::move(state_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const Error& error() const { return std::get<1>(state_); }

 private:
  std::variant<T, Error> state_;
};

// Result<void>: success carries nothing.
template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)), ok_(false) {}

  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const { return error_; }

 private:
  Error error_;
  bool ok_ = true;
};

inline Result<void> ok() {
  return {};
}

}  // namespace glassbox

#define GLASSBOX_CONCAT_INNER(a, b) a##b
#define GLASSBOX_CONCAT(a, b) GLASSBOX_CONCAT_INNER(a, b)

// `GLASSBOX_ASSIGN(target, expr);` evaluates expr (a Result<T>); on error returns the error from the
// enclosing function, otherwise moves the value into target (an existing variable or a new declaration).
#define GLASSBOX_ASSIGN(target, expr)                           \
  auto GLASSBOX_CONCAT(glassbox_assign_, __LINE__) = (expr);    \
  if (!GLASSBOX_CONCAT(glassbox_assign_, __LINE__).ok())        \
    return GLASSBOX_CONCAT(glassbox_assign_, __LINE__).error(); \
  target = std::move(GLASSBOX_CONCAT(glassbox_assign_, __LINE__)).value()

// Propagates an error from an expression returning Result<...> out of the enclosing function.
#define GLASSBOX_TRY(expr)                                               \
  do {                                                                   \
    auto glassbox_try_result_ = (expr);                                  \
    if (!glassbox_try_result_.ok()) return glassbox_try_result_.error(); \
  } while (0)
