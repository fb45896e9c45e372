// tests/tape/errors_test.cpp — run-time misuse of the tape throws etad::error with a sentence that
// says what to do, and a throw leaves the tape as it was: stale handles (reset, another tape, no
// tape), seed counts, reductions of empty or mismatched ranges. (ETAD_CHECKED is on in the tests.)
#include <etad/etad.hpp>

#include <catch2/catch.hpp>

#include <array>
#include <memory>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

namespace {
using real = etad::real<double>;
using reals = std::vector<real>;
}  // namespace

TEST_CASE("tape errors: etad::error is a std::logic_error", "[tape][errors]") {
  STATIC_REQUIRE(std::is_base_of_v<std::logic_error, etad::error>);
  STATIC_REQUIRE(ETAD_CHECKED == 1);
}

TEST_CASE("tape errors: a real from before reset() throws", "[tape][errors]") {
  etad::tape t{etad::persistent};
  const real old = t.variable(1.0);
  const real old_z = old * 2.0;
  t.reset();
  const real x = t.variable(2.0);
  const std::size_t statements = t.statements();
  // In an expression (the new statement would point at a forgotten index).
  CHECK_THROWS_AS(real(old * x), etad::error);
  CHECK_THROWS_WITH(real(old * x), Catch::Contains("reset()"));
  CHECK_THROWS_AS(real(etad::sin(old_z)), etad::error);
  // In a reduction.
  const reals mixed{x, old};
  CHECK_THROWS_AS(etad::sum(mixed), etad::error);
  // As a target, a source, or a stop_gradients entry.
  const real z = x * x;
  CHECK_THROWS_AS(t.gradient(old_z, x), etad::error);
  CHECK_THROWS_AS(t.gradient(z, old), etad::error);
  const reals tz{z}, sx{x}, stale{old};
  CHECK_THROWS_WITH(t.gradients(tz, stale), Catch::Contains("reset()"));
  CHECK_THROWS_AS(t.gradients(tz, sx, {.stop_gradients = stale}), etad::error);
  // Nothing was recorded by the failed attempts, and the tape still works.
  CHECK(t.statements() == statements + 1);  // z
  CHECK(t.gradient(z, x)[0] == 4.0);
}

TEST_CASE("tape errors: a real from another tape throws", "[tape][errors]") {
  etad::tape a{etad::persistent};
  const real xa = a.variable(1.5);
  {
    etad::tape b{etad::persistent};
    const real xb = b.variable(2.0);
    const std::size_t statements = b.statements();
    // Used while b is active.
    CHECK_THROWS_AS(real(xa * xb), etad::error);
    CHECK_THROWS_WITH(real(xa + 1.0), Catch::Contains("another tape"));
    const reals both{xa, xb};
    CHECK_THROWS_AS(etad::sum(both), etad::error);
    CHECK_THROWS_AS(etad::dot(both, std::array{1.0, 2.0}), etad::error);
    CHECK(b.statements() == statements);
    // Passed to b's gradient.
    const real zb = xb * xb;
    CHECK_THROWS_AS(b.gradient(zb, xa), etad::error);
    CHECK_THROWS_AS(b.gradient(xa, xb), etad::error);
    CHECK(b.gradient(zb, xb)[0] == 4.0);
  }
  // a is active again: its reals are fine, and b's are stale.
  const real za = xa * xa;
  CHECK(a.gradient(za, xa)[0] == 3.0);
}

TEST_CASE("tape errors: a stale real between consecutive ends leaves the tape as it was",
          "[tape][errors]") {
  // The reductions that check a range's elements inside their own loop (squared_norm, prod,
  // log_sum_exp, dot with numbers) record the statement first when the range's ends are
  // consecutive reals of the tape; a stale real in between is found afterwards, and the
  // statement must be taken back before the error.
  etad::tape t{etad::persistent};
  const real old = t.variable(1.5);
  t.reset();
  const reals x = t.variables(std::vector<double>{1.0, 2.0, 3.0});
  const reals gap{x[0], old, x[2]};  // x[0], x[2] look like a range of three; old is stale
  const std::size_t statements = t.statements(), partials = t.partials();
  CHECK_THROWS_WITH(etad::squared_norm(gap), Catch::Contains("before reset()"));
  CHECK_THROWS_AS(etad::prod(gap), etad::error);
  CHECK_THROWS_AS(etad::log_sum_exp(gap), etad::error);
  CHECK_THROWS_AS(etad::dot(gap, std::array{1.0, 2.0, 3.0}), etad::error);
  CHECK_THROWS_AS(etad::sum(gap), etad::error);
  CHECK(t.statements() == statements);
  CHECK(t.partials() == partials);
  // The tape goes on as if nothing had happened: a statement, then its gradient.
  const real y = etad::squared_norm(x);  // 1 + 4 + 9, partials 2 x
  CHECK(y.value() == 14.0);
  CHECK(t.statements() == statements + 1);
  CHECK(t.gradient(y, x[0], x[1], x[2]) == std::array{2.0, 4.0, 6.0});
}

TEST_CASE("tape errors: an expression of active reals with no active tape throws", "[tape][errors]") {
  std::optional<real> x;
  {
    etad::tape t;
    x = t.variable(2.0);
  }
  REQUIRE(etad::tape::current() == nullptr);
  CHECK_THROWS_AS(real(*x * 2.0), etad::error);
  CHECK_THROWS_WITH(real(*x * 2.0), Catch::Contains("no active tape"));
  // Two leaves: the path that merges repeated inputs (tape/real.hpp) checks the same way.
  CHECK_THROWS_WITH(real(*x * *x), Catch::Contains("no active tape"));
  CHECK_THROWS_WITH(real(*x * etad::sin(*x) + 1.0), Catch::Contains("no active tape"));
  const reals xs{*x, *x};
  CHECK_THROWS_AS(etad::sum(xs), etad::error);
  CHECK_THROWS_AS(etad::prod(xs), etad::error);
  CHECK_THROWS_AS(etad::dot(xs, xs), etad::error);
  // Values are still available; inside stop_recording, computing with them is allowed.
  CHECK(x->value() == 2.0);
  etad::stop_recording<> pause;
  const real y = *x * 2.0;
  CHECK(y.is_constant());
  CHECK(y.value() == 4.0);
  const real z = *x * *x;
  CHECK(z.is_constant());
  CHECK(z.value() == 4.0);
}

TEST_CASE("tape errors: seeds must match the targets", "[tape][errors]") {
  etad::tape t;  // not persistent: a throwing call does not use up the one gradient call
  const real x = t.variable(2.0);
  const real y = x * x;
  const real z = x * 3.0;
  const reals targets{y, z}, sources{x};
  const std::array<double, 1> one{1.0};
  const std::array<double, 3> three{1.0, 1.0, 1.0};
  CHECK_THROWS_AS(t.gradients(targets, sources, {.output_gradients = one}), etad::error);
  CHECK_THROWS_WITH(t.gradients(targets, sources, {.output_gradients = three}), Catch::Contains("seed"));
  const std::array<double, 2> two{1.0, 2.0};
  const auto g = t.gradients(targets, sources, {.output_gradients = two});
  CHECK(g[0] == 4.0 + 6.0);
}

TEST_CASE("tape errors: gradient into a span needs one slot per source", "[tape][errors]") {
  etad::tape t;
  const real x = t.variable(2.0);
  const real y = x * x;
  const reals sources{x, x};
  std::array<double, 1> small{};
  CHECK_THROWS_AS(t.gradient(y, sources, small), etad::error);
  std::array<double, 2> out{};
  t.gradient(y, sources, out);
  CHECK(out == std::array{4.0, 4.0});
}

TEST_CASE("tape errors: a foreign source leaves a non-persistent tape able to answer",
          "[tape][errors]") {
  // gradient(target, span, out) checks up to 16 sources before its sweep, and more after it
  // (in the pass that copies them out): either way the failed call does not count.
  for (const std::size_t n : {std::size_t(16), std::size_t(17), std::size_t(40)}) {
    INFO(n << " sources");
    etad::tape other;
    const real foreign = other.variable(1.0);
    etad::tape t;  // non-persistent
    const reals xs = t.variables(std::vector<double>(n, 1.5));
    const real z = xs[0] * xs[1] * 2.0;
    reals bad = xs;
    bad[n / 2] = foreign;
    std::vector<double> out(n);
    CHECK_THROWS_WITH(t.gradient(z, bad, out), Catch::Contains("another tape"));
    t.gradient(z, xs, out);
    CHECK(out[0] == 3.0);
    CHECK(out[1] == 3.0);
    CHECK(out[n - 1] == 0.0);
    CHECK_THROWS_WITH(t.gradient(z, xs, out), Catch::Contains("already called"));
  }
}

TEST_CASE("tape errors: reductions of empty or mismatched ranges", "[tape][errors]") {
  etad::tape t;
  const real x = t.variable(1.0);
  const reals empty;
  const reals two{x, x};
  const reals three{x, x, x};
  CHECK_THROWS_AS(etad::mean(empty), etad::error);
  CHECK_THROWS_WITH(etad::mean(empty), Catch::Contains("empty"));
  CHECK_THROWS_AS(etad::dot(two, three), etad::error);
  CHECK_THROWS_AS(etad::dot(two, std::array{1.0, 2.0, 3.0}), etad::error);
  CHECK_THROWS_AS(etad::dot(std::array{1.0}, three), etad::error);
  CHECK_THROWS_AS(etad::quadratic_form(std::array{1.0, 2.0, 3.0}, two), etad::error);
  CHECK_THROWS_AS(etad::matvec(std::array{1.0, 2.0, 3.0}, two), etad::error);
  CHECK_THROWS_AS(etad::map_sum([](auto a, auto b) { return a * b; }, std::array{1.0, 2.0}, three), etad::error);
  // The empty cases that are defined: sum 0, prod 1, log_sum_exp -inf, all constants.
  CHECK(etad::sum(empty).value() == 0.0);
  CHECK(etad::sum(empty).is_constant());
  CHECK(etad::prod(empty).value() == 1.0);
  CHECK(etad::log_sum_exp(empty).value() == -std::numeric_limits<double>::infinity());
  CHECK(etad::dot(empty, empty).value() == 0.0);
}

// A tape destroyed while it is not the active one (out of LIFO order, e.g. held in a
// std::optional or std::unique_ptr) is unlinked, so etad::tape::current() never points at a
// destroyed tape. Run in its own thread so that a regression (a dangling thread_local pointer)
// dies with it and cannot break later tests.
TEST_CASE("tape errors: tapes destroyed out of order leave no dangling active tape",
          "[tape][errors]") {
  bool newest_active = false, none_active = false;
  std::thread([&] {
    auto a = std::make_unique<etad::tape>();
    auto b = std::make_unique<etad::tape>();
    a.reset();  // a goes first while b is active
    newest_active = etad::tape::current() == b.get();
    b.reset();
    none_active = etad::tape::current() == nullptr;  // is the destroyed a
  }).join();
  CHECK(newest_active);
  CHECK(none_active);
}
