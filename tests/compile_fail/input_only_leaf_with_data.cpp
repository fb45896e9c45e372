// ETAD_EXPECT: etad: a leaf type that says input_only = true must be an empty class
// A user-defined leaf that claims input_only (its value follows from its type) but carries a
// value: the static sweep shares input-only subexpressions by type and stores no stateless child,
// so such a leaf would silently lose its value.
#include <etad/etad.hpp>

struct fixed_leaf {
  using etad_expression = void;
#ifdef ETAD_SHOULD_FAIL
  static constexpr bool input_only = true;
#else
  static constexpr bool input_only = false;
#endif
  double value;
};

int main() {
  const auto e = etad::sin(fixed_leaf{0.5}) * etad::arg<0>{};
  return sizeof(e) >= sizeof(double) ? 0 : 1;
}
