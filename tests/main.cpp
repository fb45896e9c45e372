// tests/main.cpp — the Catch2 main() for etad_tests; the test cases live in *_test.cpp files.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
