// ETAD_EXPECT: etad: compile-fail harness self-test
// Self-test of the compile-fail harness itself (not of etad): without ETAD_SHOULD_FAIL this
// compiles; with it, a dependent static_assert fires with the message on the first line.
template <class T>
constexpr bool always_false = false;

template <class T>
void instantiate_me() {
#ifdef ETAD_SHOULD_FAIL
  static_assert(always_false<T>, "etad: compile-fail harness self-test");
#endif
}

int main() {
  instantiate_me<int>();
  return 0;
}
