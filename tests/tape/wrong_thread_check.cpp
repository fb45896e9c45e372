// tests/tape/wrong_thread_check.cpp — a tape (argument "tape") or a stop_recording (argument
// "pause") destroyed on another thread than the one that made it ends the program with etad's
// message (std::terminate): the making thread would otherwise keep a dangling active tape, or
// stay paused. CTest runs it once per argument and looks for the message (tests/CMakeLists.txt);
// with "same-thread" it destroys both on their own thread and must exit normally.
#include <etad/etad.hpp>

#include <cstdio>
#include <memory>
#include <string_view>
#include <thread>

int main(int argc, char** argv) {
  const std::string_view what = argc > 1 ? argv[1] : "";
  if (what == "tape") {
    auto t = std::make_unique<etad::tape>();
    const etad::real<double> x = t->variable(2.0);
    std::thread([p = std::move(t)]() mutable { p.reset(); }).join();
    std::puts("not reached");
    return x.value() == 2.0 ? 0 : 1;
  }
  if (what == "pause") {
    auto pause = std::make_unique<etad::stop_recording<>>();
    std::thread([p = std::move(pause)]() mutable { p.reset(); }).join();
    std::puts("not reached");
    return 0;
  }
  // Made and destroyed on one thread (another one than main's): fine.
  int result = 1;
  std::thread([&] {
    auto t = std::make_unique<etad::tape>();
    const etad::real<double> x = t->variable(3.0);
    const etad::real<double> y = x * x;
    {
      const etad::stop_recording<> pause;
      const etad::real<double> c = x * 2.0;
      if (!c.is_constant()) return;
    }
    result = t->gradient(y, x)[0] == 6.0 ? 0 : 1;
  }).join();
  std::puts(result == 0 ? "same-thread: ok" : "same-thread: wrong");
  return result;
}
