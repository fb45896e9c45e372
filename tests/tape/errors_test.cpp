// tests/tape/errors_test.cpp — run-time misuse of the tape throws etad::error with a sentence that
// says what to do, and a throw leaves the tape as it was: stale handles (reset, another tape, no
// tape), seed counts, output spans of the wrong size, reductions of empty or mismatched ranges or
// of a null pointer with a length, matrices of the wrong size. (ETAD_CHECKED is on in the tests;
// tape/stale_reals_test.cpp checks the vector statements' stale reals in both builds.)
#include <etad/etad.hpp>

#include <catch2/catch.hpp>

#include <array>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace {
using real = etad::real<double>;
using reals = std::vector<real>;

/// CHECK_THROWS_MATCHES(expr, etad::error, message_has("...")): an etad::error whose what()
/// contains the given text (the type and the message in one evaluation of expr).
class message_has : public Catch::MatcherBase<etad::error> {
public:
  explicit message_has(std::string part) : part_(std::move(part)) {}
  bool match(const etad::error& e) const override {
    return std::string_view(e.what()).find(part_) != std::string_view::npos;
  }
  std::string describe() const override { return "has a message containing \"" + part_ + "\""; }

private:
  std::string part_;
};

// The messages of a real used where it is not valid (tape/real.hpp, tape/reduce.hpp).
constexpr const char* stale_in_expression =
    "etad: an expression uses a real recorded on another tape or before reset()";
constexpr const char* stale_in_reduction =
    "etad: a reduction uses a real recorded on another tape or before reset()";
// A real of a live tape of this thread that a newer tape keeps from being active.
constexpr const char* inactive_in_expression =
    "etad: an expression uses a real of a tape that is not the active one: a tape made after it "
    "is active on this thread";
constexpr const char* inactive_in_reduction =
    "etad: a reduction uses a real of a tape that is not the active one";
// A reduction of reals whose tape is gone, with no tape active (detail::no_tape_for_reduction):
// the same message in checked and unchecked builds, as for expressions.
constexpr const char* no_tape_in_reduction =
    "etad: a reduction of reals was computed with no active tape";
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
  CHECK_THROWS_MATCHES(real(old * x), etad::error, message_has(stale_in_expression));
  CHECK_THROWS_MATCHES(real(etad::sin(old_z)), etad::error, message_has(stale_in_expression));
  // In a reduction.
  const reals mixed{x, old};
  CHECK_THROWS_MATCHES(etad::sum(mixed), etad::error, message_has(stale_in_reduction));
  // As a target, a source, or a stop_gradients entry.
  const real z = x * x;
  CHECK_THROWS_MATCHES(t.gradient(old_z, x), etad::error,
                       message_has("etad: a target is a real recorded on another tape or before "
                                   "this tape's reset()"));
  CHECK_THROWS_MATCHES(t.gradient(z, old), etad::error,
                       message_has("etad: a source is a real recorded on another tape"));
  const reals tz{z}, sx{x}, stale{old};
  CHECK_THROWS_MATCHES(t.gradients(tz, stale), etad::error,
                       message_has("etad: a source is a real recorded on another tape"));
  CHECK_THROWS_MATCHES(t.gradients(tz, sx, {.stop_gradients = stale}), etad::error,
                       message_has("etad: a stop_gradients entry is a real recorded on another "
                                   "tape"));
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
    // Used while b is active: a is alive, so the message names the cause (a newer tape is
    // active), not a stale real.
    CHECK_THROWS_MATCHES(real(xa * xb), etad::error, message_has(inactive_in_expression));
    CHECK_THROWS_MATCHES(real(xa + 1.0), etad::error, message_has(inactive_in_expression));
    const reals both{xa, xb};
    CHECK_THROWS_MATCHES(etad::sum(both), etad::error, message_has(inactive_in_reduction));
    CHECK_THROWS_MATCHES(etad::dot(both, std::array{1.0, 2.0}), etad::error,
                         message_has(inactive_in_reduction));
    CHECK_THROWS_MATCHES(etad::call([](auto p, auto q) { return p * q; }, xa, xb), etad::error,
                         message_has("etad: call() was given a real of a tape that is not the "
                                     "active one"));
    CHECK(b.statements() == statements);
    // Passed to b's gradient.
    const real zb = xb * xb;
    CHECK_THROWS_MATCHES(b.gradient(zb, xa), etad::error,
                         message_has("etad: a source is a real recorded on another tape"));
    CHECK_THROWS_MATCHES(b.gradient(xa, xb), etad::error,
                         message_has("etad: a target is a real recorded on another tape"));
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
  CHECK_THROWS_MATCHES(etad::squared_norm(gap), etad::error, message_has(stale_in_reduction));
  CHECK_THROWS_MATCHES(etad::prod(gap), etad::error, message_has(stale_in_reduction));
  CHECK_THROWS_MATCHES(etad::log_sum_exp(gap), etad::error, message_has(stale_in_reduction));
  CHECK_THROWS_MATCHES(etad::dot(gap, std::array{1.0, 2.0, 3.0}), etad::error,
                       message_has(stale_in_reduction));
  CHECK_THROWS_MATCHES(etad::sum(gap), etad::error, message_has(stale_in_reduction));
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
  const auto no_tape = message_has("etad: an expression of reals was assigned with no active tape");
  CHECK_THROWS_MATCHES(real(*x * 2.0), etad::error, no_tape);
  // Two leaves: the path that merges repeated inputs (tape/real.hpp) checks the same way.
  CHECK_THROWS_MATCHES(real(*x * *x), etad::error, no_tape);
  CHECK_THROWS_MATCHES(real(*x * etad::sin(*x) + 1.0), etad::error, no_tape);
  const reals xs{*x, *x};
  CHECK_THROWS_MATCHES(etad::sum(xs), etad::error, message_has(no_tape_in_reduction));
  CHECK_THROWS_MATCHES(etad::prod(xs), etad::error, message_has(no_tape_in_reduction));
  CHECK_THROWS_MATCHES(etad::dot(xs, xs), etad::error, message_has(no_tape_in_reduction));
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

TEST_CASE("tape errors: a reduction of reals with no active tape throws", "[tape][errors]") {
  // Every reduction, over scattered reals (one real twice) and over consecutive ones (as
  // variables() makes them: the range-statement paths) of a tape that is gone.
  std::optional<real> x;
  reals v;
  {
    etad::tape t;
    x = t.variable(2.0);
    v = t.variables(std::vector<double>{1.0, 2.0, 3.0});
  }
  REQUIRE(etad::tape::current() == nullptr);
  const reals xs{*x, *x};
  const std::array<double, 3> c{1.0, 2.0, 3.0};
  const std::array<double, 9> a{1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0};
  const auto square = [](auto e) { return e * e; };
  reals out(3);
  for (const reals* r : std::array<const reals*, 2>{&xs, &v}) {
    INFO((r == &v ? "consecutive reals" : "scattered reals"));
    const reals& e = *r;
    const auto n = message_has(no_tape_in_reduction);
    CHECK_THROWS_MATCHES(etad::sum(e), etad::error, n);
    CHECK_THROWS_MATCHES(etad::mean(e), etad::error, n);
    CHECK_THROWS_MATCHES(etad::squared_norm(e), etad::error, n);
    CHECK_THROWS_MATCHES(etad::prod(e), etad::error, n);
    CHECK_THROWS_MATCHES(etad::log_sum_exp(e), etad::error, n);
    CHECK_THROWS_MATCHES(etad::dot(e, e), etad::error, n);
    CHECK_THROWS_MATCHES(etad::map_sum(square, e), etad::error, n);
  }
  CHECK_THROWS_MATCHES(etad::dot(v, c), etad::error, message_has(no_tape_in_reduction));
  CHECK_THROWS_MATCHES(etad::quadratic_form(a, v), etad::error, message_has(no_tape_in_reduction));
  CHECK_THROWS_MATCHES(etad::matvec(a, v), etad::error, message_has(no_tape_in_reduction));
  CHECK_THROWS_MATCHES(etad::matvec(a, v, std::span<real>(out)), etad::error,
                       message_has(no_tape_in_reduction));
  CHECK_THROWS_MATCHES(etad::map_sum(square, etad::rows_times(a, v)), etad::error,
                       message_has(no_tape_in_reduction));
  // Inside stop_recording the same reductions are values only.
  {
    etad::stop_recording<> pause;
    const real s = etad::sum(v);
    CHECK(s.is_constant());
    CHECK(s.value() == 6.0);
  }
  // A new tape records them again.
  etad::tape t;
  const reals w = t.variables(std::vector<double>{1.0, 2.0, 3.0});
  const real y = etad::squared_norm(w);
  CHECK(y.value() == 14.0);
  CHECK(t.gradient(y, w[0], w[1], w[2]) == std::array{2.0, 4.0, 6.0});
}

TEST_CASE("tape errors: variables() needs one output real per value", "[tape][errors]") {
  etad::tape t;  // not persistent: the failed calls do not touch the one gradient call either
  const real x = t.variable(2.0);
  const real y = x * x;
  const std::size_t statements = t.statements(), partials = t.partials();
  const std::vector<double> values{1.0, 2.0, 3.0};
  reals two(2), four(4);
  CHECK_THROWS_MATCHES(t.variables(values, two), etad::error,
                       message_has("etad: variables() got 3 values and 2 output reals"));
  CHECK_THROWS_MATCHES(t.variables(values, four), etad::error,
                       message_has("etad: variables() got 3 values and 4 output reals"));
  CHECK(t.statements() == statements);
  CHECK(t.partials() == partials);
  // The tape goes on: three new variables, a statement of them and the earlier y.
  reals three(3);
  t.variables(values, three);
  CHECK(t.statements() == statements + 3);
  const real z = etad::sum(three) * y;  // 6 x^2
  CHECK(z.value() == 24.0);
  CHECK(t.gradient(z, x, three[0], three[2]) == std::array{24.0, 4.0, 4.0});
}

TEST_CASE("tape errors: seeds must match the targets", "[tape][errors]") {
  etad::tape t;  // not persistent: a throwing call does not use up the one gradient call
  const real x = t.variable(2.0);
  const real y = x * x;
  const real z = x * 3.0;
  const reals targets{y, z}, sources{x};
  const std::array<double, 1> one{1.0};
  const std::array<double, 3> three{1.0, 1.0, 1.0};
  CHECK_THROWS_MATCHES(t.gradients(targets, sources, {.output_gradients = one}), etad::error,
                       message_has("etad: gradients() got 1 output gradients for 2 targets"));
  CHECK_THROWS_MATCHES(t.gradients(targets, sources, {.output_gradients = three}), etad::error,
                       message_has("etad: gradients() got 3 output gradients for 2 targets"));
  const std::array<double, 2> two{1.0, 2.0};
  const auto g = t.gradients(targets, sources, {.output_gradients = two});
  CHECK(g[0] == 4.0 + 6.0);
}

TEST_CASE("tape errors: gradient into a span needs one slot per source", "[tape][errors]") {
  etad::tape t;  // not persistent: a throwing call does not use up the one gradient call
  const real x = t.variable(2.0);
  const real y = x * x;
  const reals sources{x, x};
  std::array<double, 1> small{};
  std::array<double, 3> large{};
  CHECK_THROWS_MATCHES(t.gradient(y, sources, small), etad::error,
                       message_has("etad: gradient() got 1 output slot for 2 sources"));
  CHECK_THROWS_MATCHES(t.gradient(y, sources, large), etad::error,
                       message_has("etad: gradient() got 3 output slots for 2 sources"));
  // Past 16 sources gradient() takes another path (see the next test); the size is checked first.
  const reals many(17, x);
  std::vector<double> sixteen(16);
  CHECK_THROWS_MATCHES(t.gradient(y, many, sixteen), etad::error,
                       message_has("etad: gradient() got 16 output slots for 17 sources"));
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
    CHECK_THROWS_MATCHES(t.gradient(z, bad, out), etad::error,
                         message_has("etad: a source is a real recorded on another tape"));
    t.gradient(z, xs, out);
    CHECK(out[0] == 3.0);
    CHECK(out[1] == 3.0);
    CHECK(out[n - 1] == 0.0);
    CHECK_THROWS_MATCHES(t.gradient(z, xs, out), etad::error,
                         message_has("etad: gradient() was already called on this "
                                     "non-persistent tape"));
  }
}

TEST_CASE("tape errors: reductions of empty or mismatched ranges", "[tape][errors]") {
  etad::tape t;
  const real x = t.variable(1.0);
  const reals empty;
  const reals two{x, x};
  const reals three{x, x, x};
  const std::size_t statements = t.statements();
  CHECK_THROWS_MATCHES(etad::mean(empty), etad::error,
                       message_has("etad: mean() of an empty range; give at least one element"));
  CHECK_THROWS_MATCHES(etad::dot(two, three), etad::error,
                       message_has("etad: dot of ranges of different lengths (2 and 3)"));
  CHECK_THROWS_MATCHES(etad::dot(two, std::array{1.0, 2.0, 3.0}), etad::error,
                       message_has("etad: dot of ranges of different lengths (2 and 3)"));
  // (Numbers first: the lengths are given reals first.)
  CHECK_THROWS_MATCHES(etad::dot(std::array{1.0}, three), etad::error,
                       message_has("etad: dot of ranges of different lengths (3 and 1)"));
  CHECK_THROWS_MATCHES(etad::quadratic_form(std::array{1.0, 2.0, 3.0}, two), etad::error,
                       message_has("etad: quadratic_form needs an n x n matrix for n = 2 values, "
                                   "but the matrix has 3 entries"));
  CHECK_THROWS_MATCHES(etad::matvec(std::array{1.0, 2.0, 3.0}, two), etad::error,
                       message_has("etad: matvec needs an m x n matrix for n = 2 values, but the "
                                   "matrix has 3 entries"));
  CHECK_THROWS_MATCHES(
      etad::map_sum([](auto a, auto b) { return a * b; }, std::array{1.0, 2.0}, three), etad::error,
      message_has("etad: map_sum over ranges of different lengths (2 and 3)"));
  CHECK(t.statements() == statements);
  // The empty cases that are defined: sum 0, prod 1, log_sum_exp -inf, all constants.
  CHECK(etad::sum(empty).value() == 0.0);
  CHECK(etad::sum(empty).is_constant());
  CHECK(etad::prod(empty).value() == 1.0);
  CHECK(etad::log_sum_exp(empty).value() == -std::numeric_limits<double>::infinity());
  CHECK(etad::dot(empty, empty).value() == 0.0);
}

TEST_CASE("tape errors: a null pointer with a length", "[tape][errors]") {
  // The pointer forms of the reductions: a null pointer with n != 0 is an error (std::span of it
  // would be read), with the function's name and the length; the tape is left as it was.
  etad::tape t;
  const reals x = t.variables(std::vector<double>{1.0, 2.0, 3.0});
  const real* none = nullptr;
  const double* no_numbers = nullptr;
  const std::array<double, 3> c{1.0, 2.0, 3.0};
  const std::size_t statements = t.statements(), partials = t.partials();
  const auto null_in = [](const std::string& name) {
    return message_has("etad: " + name + "() got a null pointer with a length of 3; pass a "
                       "pointer to 3 elements, or a length of 0 for an empty range");
  };
  CHECK_THROWS_MATCHES(etad::sum(none, 3), etad::error, null_in("sum"));
  CHECK_THROWS_MATCHES(etad::mean(none, 3), etad::error, null_in("mean"));
  CHECK_THROWS_MATCHES(etad::squared_norm(none, 3), etad::error, null_in("squared_norm"));
  CHECK_THROWS_MATCHES(etad::prod(none, 3), etad::error, null_in("prod"));
  CHECK_THROWS_MATCHES(etad::log_sum_exp(none, 3), etad::error, null_in("log_sum_exp"));
  // dot: either pointer.
  CHECK_THROWS_MATCHES(etad::dot(none, c.data(), 3), etad::error, null_in("dot"));
  CHECK_THROWS_MATCHES(etad::dot(x.data(), no_numbers, 3), etad::error, null_in("dot"));
  CHECK_THROWS_MATCHES(etad::dot(no_numbers, x.data(), 3), etad::error, null_in("dot"));
  CHECK_THROWS_MATCHES(etad::dot(c.data(), none, 3), etad::error, null_in("dot"));
  CHECK_THROWS_MATCHES(etad::dot(x.data(), none, 3), etad::error, null_in("dot"));
  CHECK_THROWS_MATCHES(etad::dot(none, x.data(), 3), etad::error, null_in("dot"));
  CHECK(t.statements() == statements);
  CHECK(t.partials() == partials);
  const real s = etad::sum(x.data(), 3);
  CHECK(t.gradient(s, x[0], x[1], x[2]) == std::array{1.0, 1.0, 1.0});
}

TEST_CASE("tape errors: matrices and ranges of the wrong size leave the tape as it was",
          "[tape][errors]") {
  etad::tape t{etad::persistent};
  const reals x = t.variables(std::vector<double>{1.0, 2.0});
  const reals three = t.variables(std::vector<double>{1.0, 1.0, 1.0});
  const std::array<double, 4> a{2.0, 1.0, 0.0, 3.0};  // 2 x 2, row-major
  const std::array<double, 6> a6{};
  reals out(2), out3(3);
  const auto times = [](auto u, auto v) { return u * v; };
  const std::size_t statements = t.statements(), partials = t.partials();

  // quadratic_form: n x n entries for n reals.
  CHECK_THROWS_MATCHES(etad::quadratic_form(a6, x), etad::error,
                       message_has("etad: quadratic_form needs an n x n matrix for n = 2 values, "
                                   "but the matrix has 6 entries"));
  CHECK_THROWS_MATCHES(etad::quadratic_form(a, three), etad::error,
                       message_has("for n = 3 values, but the matrix has 4 entries"));
  // matvec, new vector: a multiple of n entries.
  CHECK_THROWS_MATCHES(etad::matvec(std::array{1.0, 2.0, 3.0}, x), etad::error,
                       message_has("etad: matvec needs an m x n matrix for n = 2 values, but the "
                                   "matrix has 3 entries"));
  CHECK_THROWS_MATCHES(etad::matvec(std::array{1.0, 2.0}, reals{}), etad::error,
                       message_has("etad: matvec needs an m x n matrix for n = 0 values, but the "
                                   "matrix has 2 entries"));
  // matvec into out: exactly out.size() * n entries.
  CHECK_THROWS_MATCHES(etad::matvec(a6, x, std::span<real>(out)), etad::error,
                       message_has("etad: matvec needs an m x n matrix (row-major, m*n entries) "
                                   "for n = 2 values and m = 2 outputs, but the matrix has 6 "
                                   "entries"));
  CHECK_THROWS_MATCHES(etad::matvec(a, x, std::span<real>(out3)), etad::error,
                       message_has("for n = 2 values and m = 3 outputs, but the matrix has 4 "
                                   "entries"));
  // map_sum: every range, and rows_times' rows, of one length.
  CHECK_THROWS_MATCHES(etad::map_sum(times, x, three), etad::error,
                       message_has("etad: map_sum over ranges of different lengths (2 and 3)"));
  CHECK_THROWS_MATCHES(etad::map_sum(times, etad::rows_times(a, x), three), etad::error,
                       message_has("etad: map_sum over ranges of different lengths (2 and 3)"));
  CHECK_THROWS_MATCHES(etad::map_sum([](auto s, auto u, auto v) { return s * u * v; }, 2.0,
                                     std::array{1.0, 2.0, 3.0}, x),
                       etad::error,
                       message_has("etad: map_sum over ranges of different lengths (3 and 2)"));
  // dot: reals with reals, reals with numbers.
  CHECK_THROWS_MATCHES(etad::dot(x, three), etad::error,
                       message_has("etad: dot of ranges of different lengths (2 and 3)"));
  CHECK_THROWS_MATCHES(etad::dot(three, std::array{1.0, 2.0}), etad::error,
                       message_has("etad: dot of ranges of different lengths (3 and 2)"));
  CHECK(t.statements() == statements);
  CHECK(t.partials() == partials);

  // The same operations of the right sizes, on the same tape, with their gradients.
  // x^T A x = 2 x0^2 + x0 x1 + 3 x1^2 = 2 + 2 + 12; gradient (A + A^T) x = (4 x0 + x1, x0 + 6 x1).
  const real q = etad::quadratic_form(a, x);
  CHECK(q.value() == 16.0);
  CHECK(t.gradient(q, x[0], x[1]) == std::array{6.0, 13.0});
  // A x = (2 x0 + x1, 3 x1) = (4, 6); row i is the gradient of output i.
  etad::matvec(a, x, std::span<real>(out));
  CHECK(out[0].value() == 4.0);
  CHECK(out[1].value() == 6.0);
  CHECK(t.gradient(out[0], x[0], x[1]) == std::array{2.0, 1.0});
  CHECK(t.gradient(out[1], x[0], x[1]) == std::array{0.0, 3.0});
  // sum of 3 x0 + 4 x1 = 11.
  const real m = etad::map_sum(times, std::array{3.0, 4.0}, x);
  CHECK(m.value() == 11.0);
  CHECK(t.gradient(m, x[0], x[1]) == std::array{3.0, 4.0});
  // x . x = 5, gradient 2 x.
  const real d = etad::dot(x, x);
  CHECK(d.value() == 5.0);
  CHECK(t.gradient(d, x[0], x[1]) == std::array{2.0, 4.0});
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

TEST_CASE("tape errors: several tapes kept alive, each made active in turn", "[tape][errors]") {
  // An optimizer per model, each holding its own tape: the newest tape is active, so the older
  // one could not record, and the error blamed the real ("recorded on another tape or before
  // reset()"). activate() makes a tape active again; the message says so.
  auto model_a = std::make_unique<etad::tape>(etad::persistent);
  const real x = model_a->variable(2.0);
  auto model_b = std::make_unique<etad::tape>(etad::persistent);
  const real y = model_b->variable(3.0);
  CHECK_THROWS_MATCHES(real(x * x), etad::error, message_has("call activate() on the real's tape"));
  const reals xs{x, x};
  CHECK_THROWS_MATCHES(etad::sum(xs), etad::error, message_has(inactive_in_reduction));
  model_a->activate();
  const real fa = x * x * x;  // 8, d/dx = 12, recorded on a
  CHECK_THROWS_MATCHES(real(y * 2.0), etad::error, message_has(inactive_in_expression));
  model_b->activate();
  const real fb = y * y;  // 9, d/dy = 6, recorded on b
  model_a->activate();
  CHECK(model_a->gradient(fa, x)[0] == 12.0);
  CHECK(model_b->gradient(fb, y)[0] == 6.0);
  CHECK(etad::tape::current() == model_a.get());
  // Destroying the active tape makes the one active before its activate() active again.
  model_a.reset();
  CHECK(etad::tape::current() == model_b.get());
  const real gb = y * 4.0;
  CHECK(model_b->gradient(gb, y)[0] == 4.0);
  // And destroying a tape that is not active leaves the active one alone.
  etad::tape c;
  model_b->activate();
  CHECK(etad::tape::current() == model_b.get());
  c.activate();
  model_b.reset();
  CHECK(etad::tape::current() == &c);
  // activate() on another thread is an error.
  std::string message;
  std::thread([&] {
    try {
      c.activate();
    } catch (const etad::error& e) {
      message = e.what();
    }
  }).join();
  CHECK(message.find("activate() was called on another thread") != std::string::npos);
}
