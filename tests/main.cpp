// tests/main.cpp — the Catch2 main() of every Catch2 test executable (compiled once, as the
// object library etad_catch_main); the test cases live in *_test.cpp files.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
