// etad/core/error.hpp — the exception type every run-time error of etad derives from.
// Compile-time misuse is a static_assert; misuse only visible at run time throws etad::error.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace etad {

/// Base of every exception etad throws. what() is one sentence that says what went wrong and
/// what to do about it. Catch etad::error to handle all of them.
class error : public std::logic_error {
public:
  using std::logic_error::logic_error;
};

namespace detail {
/// "1 source", "2 sources": a count and a noun for error messages.
inline std::string count_of(std::size_t n, const char* noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}
}  // namespace detail

}  // namespace etad
