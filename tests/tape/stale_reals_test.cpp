// tests/tape/stale_reals_test.cpp — every vector statement (the reductions, dot, quadratic_form,
// matvec, map_sum, rows_times, the pointer forms) refuses a real recorded before reset() or on
// another tape with etad::error, in every build, and leaves the tape as it was. Built twice: into
// etad_tests (ETAD_CHECKED=1) and into etad_unchecked_tests with NDEBUG and ETAD_CHECKED=0, as a
// release build is (tests/CMakeLists.txt): there these checks must hold too, since a stale
// range of consecutive reals would otherwise be recorded over the new reals of the same indices
// (a silently wrong value and gradient; see the last test).
#include <etad/etad.hpp>

#include <catch2/catch.hpp>

#include <array>
#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {

using real = etad::real<double>;
using reals = std::vector<real>;

constexpr std::string_view stale_in_reduction =
    "etad: a reduction uses a real recorded on another tape or before reset()";

bool is_stale_error(const etad::error& e) {
  return std::string_view(e.what()).find(stale_in_reduction) != std::string_view::npos;
}

const std::array<double, 3> c3{0.5, -1.0, 2.0};
// 3 x 3 and 2 x 3, row-major.
const std::array<double, 9> a33{2.0, 1.0, 0.0, -1.0, 3.0, 0.5, 0.0, 4.0, 1.0};
const std::array<double, 6> a23{1.0, 2.0, -1.0, 0.5, 3.0, 0.0};

/// One vector statement of three reals x (and their value, for the tests' reference).
struct use {
  std::string name;
  std::function<real(std::span<const real>)> of;
};

std::vector<use> uses() {
  const auto square = [](auto v) { return v * v; };
  return {
      {"sum", [](std::span<const real> x) { return etad::sum(x); }},
      {"mean", [](std::span<const real> x) { return etad::mean(x); }},
      {"squared_norm", [](std::span<const real> x) { return etad::squared_norm(x); }},
      {"prod", [](std::span<const real> x) { return etad::prod(x); }},
      {"log_sum_exp", [](std::span<const real> x) { return etad::log_sum_exp(x); }},
      {"dot(x, numbers)", [](std::span<const real> x) { return etad::dot(x, c3); }},
      {"dot(numbers, x)", [](std::span<const real> x) { return etad::dot(c3, x); }},
      {"dot(x, x)", [](std::span<const real> x) { return etad::dot(x, x); }},
      {"quadratic_form", [](std::span<const real> x) { return etad::quadratic_form(a33, x); }},
      {"matvec", [](std::span<const real> x) { return etad::matvec(a23, x)[1]; }},
      {"matvec into out",
       [](std::span<const real> x) {
         std::array<real, 2> out;
         etad::matvec(a23, x, std::span<real>(out));
         return out[0];
       }},
      {"map_sum over x", [square](std::span<const real> x) { return etad::map_sum(square, x); }},
      {"map_sum, x as scalars",
       [](std::span<const real> x) {
         return etad::map_sum([](auto d, auto a, auto b, auto c) { return d * (a + b * c); }, c3,
                              x[0], x[1], x[2]);
       }},
      {"map_sum with rows_times",
       [square](std::span<const real> x) {
         return etad::map_sum(square, etad::rows_times(a23, x));
       }},
      {"sum(p, n)", [](std::span<const real> x) { return etad::sum(x.data(), x.size()); }},
      {"prod(p, n)", [](std::span<const real> x) { return etad::prod(x.data(), x.size()); }},
      {"dot(p, q, n)",
       [](std::span<const real> x) { return etad::dot(x.data(), c3.data(), x.size()); }},
  };
}

}  // namespace

TEST_CASE("stale reals: every vector statement refuses them and leaves the tape as it was",
          "[tape][errors][stale]") {
  const std::vector<double> v{1.5, -0.5, 2.0};
  etad::tape t{etad::persistent};
  const reals old = t.variables(v);
  t.reset();
  // The new variables have the indices the old ones had: only the epoch tells them apart.
  const reals y = t.variables(v);
  REQUIRE(y[0].index() == old[0].index());
  reals foreign;
  {
    etad::tape other;  // active while it lives
    foreign = other.variables(v);
  }
  const std::vector<std::pair<std::string, reals>> layouts{
      {"from before reset(), consecutive", old},
      {"of another tape, consecutive", foreign},
      {"one from before reset() between consecutive ends", {y[0], old[1], y[2]}},
      {"one from before reset(), scattered", {y[2], y[1], old[0]}},
      {"one of another tape, scattered", {foreign[1], y[0], y[2]}},
  };
  for (const auto& u : uses())
    for (const auto& [layout, x] : layouts) {
      INFO(u.name << ": reals " << layout);
      const std::size_t statements = t.statements(), partials = t.partials();
      std::optional<std::string> message;
      try {
        (void)u.of(x);
      } catch (const etad::error& e) {
        message = e.what();
      }
      CHECK(message.has_value());
      if (message) CHECK(message->find(stale_in_reduction) != std::string::npos);
      CHECK(t.statements() == statements);
      CHECK(t.partials() == partials);
    }
  // The tape goes on: the same statements of y, their gradients by finite differences of the
  // same function evaluated on constants (a statement of constants is a value).
  for (const auto& u : uses()) {
    INFO(u.name);
    const real r = u.of(y);
    CHECK_FALSE(r.is_constant());
    std::vector<double> g(3);
    t.gradient(r, y, g);
    for (std::size_t i = 0; i < 3; ++i) {
      const double h = 1e-6;
      std::vector<real> up(v.begin(), v.end()), down(v.begin(), v.end());
      up[i] = v[i] + h;
      down[i] = v[i] - h;
      const double fd = (u.of(up).value() - u.of(down).value()) / (2 * h);
      INFO("d/dy" << i);
      CHECK(g[i] == Approx(fd).epsilon(1e-7).margin(1e-8));
    }
  }
}

TEST_CASE("stale reals: a null tape or a paused one is not a stale-real error",
          "[tape][errors][stale]") {
  reals old;
  {
    etad::tape t;
    old = t.variables(std::vector<double>{1.0, 2.0, 3.0});
  }
  // No tape: the missing tape is the error.
  CHECK_THROWS_MATCHES(etad::sum(old), etad::error,
                       Catch::Matchers::Predicate<etad::error>(
                           [](const etad::error& e) {
                             return std::string_view(e.what()).find(
                                        "etad: a reduction of reals was computed with no "
                                        "active tape") != std::string_view::npos;
                           },
                           "the no-tape message"));
  // A tape that is paused: values only, whatever tape the reals came from.
  etad::tape t;
  const std::size_t statements = t.statements();
  {
    etad::stop_recording<> pause;
    for (const auto& u : uses()) {
      INFO(u.name);
      const real r = u.of(old);
      CHECK(r.is_constant());
    }
    CHECK(etad::squared_norm(old).value() == 14.0);
  }
  CHECK(t.statements() == statements);
}

TEST_CASE("stale reals: squared_norm of variables from before reset() is an error, not the new "
          "variables' gradient",
          "[tape][errors][stale]") {
  // The audit's case. x and z are variables 1, 2, 3 of two epochs; recorded as a range statement
  // over indices 1..3, squared_norm(x) would have taken x's values (1400) and given z the
  // gradient 2x = (20, 40, 60), although z was never used.
  etad::tape t;
  const reals x = t.variables(std::vector<double>{10.0, 20.0, 30.0});
  t.reset();
  const reals z = t.variables(std::vector<double>{1.0, 2.0, 3.0});
  const std::size_t statements = t.statements();
  CHECK_THROWS_MATCHES(etad::squared_norm(x), etad::error,
                       Catch::Matchers::Predicate<etad::error>(is_stale_error, "stale"));
  CHECK_THROWS_MATCHES(etad::sum(x.data(), x.size()), etad::error,
                       Catch::Matchers::Predicate<etad::error>(is_stale_error, "stale"));
  CHECK(t.statements() == statements);
  const real q = etad::squared_norm(z);
  CHECK(q.value() == 14.0);
  CHECK(t.gradient(q, z[0], z[1], z[2]) == std::array{2.0, 4.0, 6.0});
}

TEST_CASE("stale reals: a block's operator[] past its end is an error in every build",
          "[tape][errors][stale]") {
  // b[2] of a 2-variable block was the next statement's real (y, here) with a value read past
  // the block: dz/db[2] came out as dz/dy = 10, silently (and past the recording, an index the
  // sweep would write out of bounds). This file is also built with NDEBUG and ETAD_CHECKED=0.
  etad::tape t;
  auto b = t.variable_block(std::vector<double>{1.0, 2.0});
  const real y = t.variable(5.0);
  const real z = y * 10.0 + b[0] * b[1];
  CHECK(b[1].value() == 2.0);
  CHECK_THROWS_WITH(b[2], Catch::Contains("variable block index 2 is past its end (it holds 2 "
                                          "variables)"));
  CHECK_THROWS_AS(b[std::size_t(-1)], etad::error);
  CHECK(t.gradient(z, y)[0] == 10.0);
  const etad::variable_block<double> empty;
  CHECK_THROWS_WITH(empty[0], Catch::Contains("index 0 is past its end (it holds 0 variables)"));
}

TEST_CASE("stale reals: an index past the recording is an error in every build",
          "[tape][errors][stale]") {
  // A real from before reset() whose index lies past the new recording: recorded as an input,
  // the sweep wrote its adjoint outside the adjoint array (AddressSanitizer: heap-buffer-
  // overflow; one case ended in SIGSEGV) in builds without ETAD_CHECKED. Scalar statements and
  // call() now check every input against the next index in every build (whether a real below it
  // is stale stays a check of ETAD_CHECKED builds).
  etad::tape t;
  real old = t.variable(1.0);
  for (int i = 0; i < 20; ++i) old = old * 1.5;
  t.reset();
  const real x = t.variable(2.0);
  const std::size_t statements = t.statements();
  CHECK_THROWS_WITH(real(old * x), Catch::Contains("etad: an expression uses a real recorded on "
                                                   "another tape or before reset()"));
  CHECK_THROWS_AS(real(x * x + old), etad::error);
  CHECK_THROWS_AS(real(old * old), etad::error);  // (merged: one input)
  CHECK_THROWS_AS(etad::call([](auto a, auto b) { return a * b; }, x, old), etad::error);
  CHECK(t.statements() == statements);
  const real y = x * x;
  CHECK(t.gradient(y, x)[0] == 4.0);
}
