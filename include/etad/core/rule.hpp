// etad/core/rule.hpp — what a differentiation rule is, and how applying one builds a node.
// Built-in ops and users' custom gradients are the same thing: a rule struct, applied by etad::apply()
// or through an op_fn<Rule> object. Nothing here knows about sweeps or tapes.
#pragma once

#include <etad/core/detail/holds_active_leaf.hpp>
#include <etad/core/expression.hpp>

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

namespace etad {

/// A rule is a struct with (all but value() optional):
///   static constexpr std::string_view name;        // for diagnostics
///   static constexpr std::size_t arity;            // absent: variadic
///   value(const auto&... args)                     // the function
///   partials(const auto&... args, const auto& f)   // one partial per argument, as a tuple-like
///                                                  // (std::array / std::tuple); f = value(args...)
///   static constexpr bool gated = true;            // optional, with
///   gate(const auto&... args, const auto& f)       // std::array<bool, arity>: an argument whose
///                                                  // gate is false receives no gradient at all
///                                                  // (not even 0 * partial)
///   static constexpr bool differentiable = false;  // optional: zero gradient everywhere, no sweep
///   static constexpr bool predicate = true;        // optional: bool-valued (comparisons)
///   static constexpr bool product = true;          // optional: the value is the product of the
///                                                  // arguments, so partial i is the product of
///                                                  // the others (see is_product_v)
///   static constexpr bool partials_need_value = false;
///                                                  // optional: partials() does not read f
///                                                  // (see partials_need_value_v)
///   static constexpr bool fused = true;            // optional, with
///   value_and_partials(const auto&... args)        // an object with members `value` and
///                                                  // `partials` (one per argument), computed
///                                                  // together; the sweeps then never call
///                                                  // partials() (see is_fused_v)
/// Members may be static (stateless rules) or not (rules with parameters, e.g. integer powers).
/// A parameter is a constant of the rule: only its arguments are differentiated. So a rule must
/// not keep a real (etad::real, of any scalar, also nested): a rule `scaled_op { real<double> s;
/// ... s.value() * x ... }` would compute s x and give s no gradient. apply() rejects such a
/// rule at compile time (one sentence: pass the real as an argument, or use
/// etad::custom_gradient for a function of reals it does not take as arguments). What it sees
/// (detail::rule_holds_active_leaf_v; C++20 has no reflection, so aggregates are probed by
/// brace-initialization, core/detail/holds_active_leaf.hpp): every member and base of an
/// aggregate rule (one without constructors or private members), and a real inside a member's
/// nested aggregates, C arrays, std::array, std::tuple, std::pair, std::vector (anything with a
/// value_type), std::optional, smart or plain pointer, or expression, at least five such levels
/// down. A rule with constructors is seen only through them: one of one parameter that holds a
/// real is rejected; its members, and constructors of several parameters, are not seen. Nor are
/// the captures of a lambda member (grad_pass_through's function), members of a type that takes
/// anything (std::any), or the members of an aggregate of more than 64 positions (a long C array
/// member): a real kept there still loses its gradient without a word.
/// Write value() and partials() with unqualified calls after `using std::sin;` etc. (or with
/// etad's own functions), so that one rule serves numbers, expressions and, later, duals.
template <class Rule>
inline constexpr bool is_predicate_v = requires { requires bool(Rule::predicate); };

template <class Rule>
inline constexpr bool is_differentiable_v = [] {
  if constexpr (is_predicate_v<Rule>)
    return false;
  else if constexpr (requires { Rule::differentiable; })
    return bool(Rule::differentiable);
  else
    return true;
}();

template <class Rule>
inline constexpr bool is_gated_v = requires { requires bool(Rule::gated); };

/// A product rule (mul) promises that its value is the product of its arguments and that its
/// partials are the products of the other arguments. The static sweep uses that to treat a tree
/// of products as one product of its factors: a factor that occurs k times (x in c x x x) gets
/// ONE partial, k times that of its last occurrence, instead of k partials added up — what one
/// writes by hand (3 c x^2). A product rule must not be gated.
template <class Rule>
inline constexpr bool is_product_v = requires { requires bool(Rule::product); };

/// Whether a rule's partials() reads f, its last argument (the value). A rule that declares
/// `partials_need_value = false` promises that it does not (it may use f's type): a static
/// gradient may then call partials() before value(), with f a quiet NaN, so that a division in
/// the partials (log's 1/x, atan's 1/(1 + x^2)) runs while value()'s call does, instead of after
/// it. Nothing else changes: the same partials, the same numbers.
template <class Rule>
inline constexpr bool partials_need_value_v = [] {
  if constexpr (requires { Rule::partials_need_value; })
    return bool(Rule::partials_need_value);
  else
    return true;
}();

// is_fused_v (fused rules) is defined in core/expression.hpp, which node's input_only needs.

namespace detail {

template <class Rule>
consteval bool has_fixed_arity() {
  return requires { Rule::arity; };
}

// Named so that the compiler's note on a failing static_assert shows the rule and the counts.
template <class Rule, std::size_t Returned, std::size_t Arguments>
inline constexpr bool rule_returns_one_partial_per_argument = Returned == Arguments;

template <class Rule, std::size_t Given, std::size_t Expected>
inline constexpr bool rule_called_with_its_arity = Given == Expected;

template <class Rule, class A>
inline constexpr bool rule_argument_is_operand = operand<A>;
template <class Rule, class A>
constexpr bool check_rule_argument() {
  static_assert(rule_argument_is_operand<Rule, A>,
                "etad: an argument of an op or rule is neither an etad expression nor a number "
                "(bool does not count); pass an etad expression or a number such as 2.0");
  return true;
}

/// Named so that the compiler's note on the failing static_assert names the rule.
template <class Rule>
inline constexpr bool rule_holds_no_real = !rule_holds_active_leaf_v<Rule>;

/// apply()'s checks of the rule alone, one value per rule: apply_is_valid is instantiated for
/// every application (each rule with each list of argument types), and reads only this.
template <class Rule>
inline constexpr bool rule_checks_pass =
    rule_holds_no_real<Rule> && !(is_product_v<Rule> && is_gated_v<Rule>);

/// Whether P is tuple-like (std::array, std::tuple, std::pair): what partials() and gate() return.
template <class P>
inline constexpr bool is_tuple_like_v = requires { std::tuple_size<std::remove_cvref_t<P>>::value; };

template <class Rule, class Partials>
inline constexpr bool rule_partials_are_an_array_or_tuple = is_tuple_like_v<Partials>;

template <class Rule, class Gate>
inline constexpr bool rule_gate_is_an_array = is_tuple_like_v<Gate>;

}  // namespace detail

template <class Rule, std::size_t Returned, std::size_t Arguments>
inline constexpr bool rule_gate_has_one_flag_per_argument = Returned == Arguments;

/// Checks a rule's gate(): one flag per argument. Used by every sweep.
/// Callers use the gate only when detail::is_tuple_like_v<Gate> (no follow-on errors).
template <class Rule, std::size_t Arity, class Gate>
constexpr void check_gate() {
  static_assert(detail::rule_gate_is_an_array<Rule, Gate>,
                "etad: a rule's gate() returned something that is not a std::array; return "
                "one bool per argument, as std::array<bool, arity> (std::array{flag} for one)");
  if constexpr (detail::is_tuple_like_v<Gate>) {
    constexpr std::size_t n = std::tuple_size_v<std::remove_cvref_t<Gate>>;
    static_assert(rule_gate_has_one_flag_per_argument<Rule, n, Arity>,
                  "etad: a rule's gate() returned a different number of flags than the rule has "
                  "arguments; gate() must return one bool per argument");
  }
}

namespace detail {
/// Whether a rule's partials() result can be used: a std::array or std::tuple of one partial per
/// argument. Where it cannot, check_partials has said why, and the sweeps use nothing of it (an
/// out-of-range std::get would add the standard library's error before etad's sentence).
template <class P, std::size_t Arity>
consteval bool partials_usable() {
  if constexpr (is_tuple_like_v<P>)
    return std::tuple_size_v<std::remove_cvref_t<P>> == Arity;
  else
    return false;
}
}  // namespace detail

/// Checks a rule's partials(): one per argument. Used by every sweep.
/// A lone number is not accepted for a rule of one argument: std::array{p} says which it is.
/// Callers use the partials only when detail::is_tuple_like_v<Partials> (no follow-on errors).
template <class Rule, std::size_t Arity, class Partials>
constexpr void check_partials() {
  static_assert(detail::rule_partials_are_an_array_or_tuple<Rule, Partials>,
                "etad: a rule's partials() returned something that is not a std::array or "
                "std::tuple; return one partial per argument in one (std::array{p} for one)");
  if constexpr (detail::is_tuple_like_v<Partials>) {
    constexpr std::size_t n = std::tuple_size_v<std::remove_cvref_t<Partials>>;
    static_assert(detail::rule_returns_one_partial_per_argument<Rule, n, Arity>,
                  "etad: a rule's partials() returned a different number of partials than the "
                  "rule has arguments; partials() must return one partial per argument");
  }
}

namespace detail {
/// Whether apply(rule, a...) passes its checks; each failed check has its own static_assert.
template <class Rule, class... A>
consteval bool apply_is_valid() {
  if constexpr (!all_v<rule_argument_is_operand<Rule, A>...>)
    return false;
  else if constexpr (!rule_checks_pass<Rule>)
    return false;
  else if constexpr (!all_v<valid_input_only_v<std::remove_cvref_t<as_expression_t<A>>>...>)
    return false;
  else if constexpr (has_fixed_arity<Rule>())  // Rule::arity exists only then
    return sizeof...(A) == Rule::arity;
  else
    return true;
}

/// What apply() returns after one of its checks failed: its first expression argument (or 0.0),
/// which every later step accepts, so that the compiler reports the failed check and nothing
/// after it (building the node would add a page of errors from inside the sweeps).
template <class... A>
constexpr auto stand_in(const A&... a) {
  constexpr std::size_t n = sizeof...(A);
  constexpr std::size_t first = [] {
    constexpr bool is_expression[] = {expression<A>..., true};
    std::size_t i = 0;
    while (!is_expression[i]) ++i;
    return i;
  }();
  if constexpr (first < n)
    return std::get<first>(std::tie(a...));
  else
    return 0.0;
}
}  // namespace detail

/// etad::apply(rule, args...): with at least one expression argument, the node
/// node<Rule, as_expression_t<Args>...>; with numbers only, the value computed at once.
template <class Rule, class... A>
constexpr auto apply(const Rule& rule, const A&... a) {
  if constexpr (detail::apply_is_valid<Rule, A...>()) {
    if constexpr (detail::any_v<expression<A>...>)
      return node<Rule, as_expression_t<A>...>{rule, as_expression(a)...};
    else
      return rule.value(a...);
  } else {
    // A check failed: its static_assert below says which. What is returned then is a stand-in
    // that every later step accepts, so that this sentence is the only error (building the node
    // would add a page of errors from inside the sweeps).
    // One check per argument, so that the compiler names the rule and the argument's type
    // (rule_argument_is_operand<twice_op, std::string> in g++'s note and on clang's line).
    [[maybe_unused]] constexpr bool operands_checked[] = {
        detail::check_rule_argument<Rule, A>()..., true};
    if constexpr (detail::has_fixed_arity<Rule>())
      static_assert(detail::rule_called_with_its_arity<Rule, sizeof...(A), Rule::arity>,
                    "etad: a rule was applied to a different number of arguments than its "
                    "arity; pass exactly `arity` arguments, or drop `arity` if the rule is "
                    "variadic");
    // Checked here, where every use of the rule passes, and not only in the static sweep of a
    // product tree (which would let a rule pass its own tests and fail in a later formula).
    static_assert(!(is_product_v<Rule> && is_gated_v<Rule>),
                  "etad: a product rule cannot be gated; drop `product` or `gated`");
    static_assert(detail::rule_holds_no_real<Rule>,
                  "etad: a rule holds a real (an etad::real member, or a constructor "
                  "parameter), and only a rule's arguments are differentiated, so that real's "
                  "gradient would be lost; pass the real to the rule as an argument (or hold "
                  "r.value() if it is a constant), or use etad::custom_gradient for a function "
                  "of reals it does not take as arguments");
    if constexpr (!detail::all_v<detail::rule_argument_is_operand<Rule, A>...>) {
      return detail::stand_in(a...);  // (as_expression_t of a non-operand does not exist)
    } else {
      constexpr bool leaves_ok =
          detail::all_v<detail::valid_input_only_v<std::remove_cvref_t<as_expression_t<A>>>...>;
      static_assert(leaves_ok,
                    "etad: a leaf type that says input_only = true must be an empty class (equal "
                    "types must mean equal values); give a leaf with data members input_only = "
                    "false");
      // A leaf that broke the input_only rule would break it again in the next op that takes
      // the stand-in, so that stand-in is a number.
      if constexpr (!leaves_ok)
        return 0.0;
      else
        return detail::stand_in(a...);
    }
  }
}

/// op_fn<Rule>: the callable through which a rule is used, e.g.
///   inline constexpr etad::op_fn<softplus_op> softplus{};
/// A rule with parameters is passed in: op_fn<powi_op>{powi_op{3}}.
template <class Rule>
struct op_fn {
  [[no_unique_address]] Rule rule{};
  template <class... A>
  constexpr auto operator()(const A&... a) const {
    return etad::apply(rule, a...);
  }
};

}  // namespace etad
