// etad/static/evaluate.hpp — the value of an expression whose leaves carry values (numbers and
// reals), by the same forward sweep the gradients use.
#pragma once

#include <etad/core/expression.hpp>
#include <etad/static/detail/sweep.hpp>

#include <boost/mp11/algorithm.hpp>
#include <boost/mp11/integral.hpp>

#include <type_traits>

namespace etad {

namespace detail {

// The scalar of an expression: that of its first active leaf (a real's T), else the widest
// floating type among its constants (integer constants count as double).
template <class E>
struct scalar_of {
  using type = float;  // placeholders: neutral in the common type
  static constexpr bool active = false;
  static constexpr bool has_placeholder = is_arg_v<E>;
};
template <class T>
struct scalar_of<constant<T>> {
  using type = std::conditional_t<std::is_floating_point_v<T>, T, double>;
  static constexpr bool active = false;
  static constexpr bool has_placeholder = false;
};
template <class E>
  requires is_active_leaf_v<E>
struct scalar_of<E> {
  using type = typename E::value_type;
  static constexpr bool active = true;
  static constexpr bool has_placeholder = false;
};
template <class E>
using is_active_q = boost::mp11::mp_bool<scalar_of<E>::active>;

template <class Op, class... C>
struct scalar_of<node<Op, C...>> {
  static constexpr bool active = any_v<scalar_of<C>::active...>;
  static constexpr bool has_placeholder = any_v<scalar_of<C>::has_placeholder...>;
  using children = boost::mp11::mp_list<C...>;
  using first_active = boost::mp11::mp_at<
      children, boost::mp11::mp_min<boost::mp11::mp_find_if<children, is_active_q>,
                                    boost::mp11::mp_size_t<sizeof...(C) - 1>>>;
  using type = std::conditional_t<active, typename scalar_of<first_active>::type,
                                  std::common_type_t<typename scalar_of<C>::type...>>;
};

}  // namespace detail

/// The scalar type an expression evaluates in: a real<T>'s T, else the constants' common type.
template <class E>
using scalar_t = typename detail::scalar_of<std::remove_cvref_t<E>>::type;

/// evaluate(e): the value of e (bool for a comparison). Every leaf must carry a value: numbers
/// and reals, not placeholders (those get their values from gradient(), jvp(), ...).
template <expression E>
constexpr auto evaluate(const E& e) {
  static_assert(!detail::scalar_of<E>::has_placeholder,
                "etad: evaluate() needs an expression whose leaves have values (numbers and "
                "reals); placeholders get their values from gradient(), jvp() or jacobian()");
  using S = scalar_t<E>;
  detail::sweep_for<S, 0, E> sw{};
  detail::frame<E, S> fr{};
  sw.template forward_slots<false>();
  return sw.template forward<false>(e, fr);  // values only: no fused rule's partials
}

}  // namespace etad
