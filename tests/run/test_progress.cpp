// The progress bar's line (tqdm's count, elapsed time, time left and rate) on an injected clock, and
// a warning (core/log.hpp's warn) printed while a bar shows: it gets a line of its own, and the bar
// is drawn again below.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "core/console.hpp"
#include "core/log.hpp"
#include "run/progress.hpp"

using namespace invar;
using namespace std::chrono_literals;

namespace {

// Captures the console's output for the test's lifetime.
struct CapturedConsole {
  std::string text;
  ConsoleWriter previous;
  CapturedConsole() : previous(set_console_writer([this](std::string_view t) { text += t; })) {}
  ~CapturedConsole() { set_console_writer(previous); }
};

struct FakeClock {
  std::chrono::steady_clock::time_point now{};
  run::ProgressOptions options() {
    return {.clock = [this] { return now; }, .always = true};
  }
};

}  // namespace

TEST(ProgressLine, CountElapsedLeftAndRateAsTqdm) {
  // 37 of 120 in 12.13 s: 3.05 items/s, 83 left → 27 s.
  EXPECT_EQ(run::progress_line("embed", 37, 120, 12.13),
            "embed:  30%|#########                     | 37/120 [00:12<00:27, 3.05it/s]");
  // Below one item a second the rate is seconds per item: 2 in 9 s → 4.50 s/it, 8 left → 36 s.
  EXPECT_EQ(run::progress_line("fits", 2, 10, 9.0), "fits:  20%|######                        | 2/10 [00:09<00:36, 4.50s/it]");
  EXPECT_EQ(run::progress_line("fits", 0, 10, 0.0), "fits:   0%|                              | 0/10 [00:00<?, ?it/s]");
  EXPECT_EQ(run::progress_line("x", 10, 10, 4.0), "x: 100%|##############################| 10/10 [00:04<00:00, 2.50it/s]");
  EXPECT_EQ(run::progress_time(59.9), "00:59");
  EXPECT_EQ(run::progress_time(3725), "1:02:05");
}

TEST(Progress, DrawsOnTheInjectedClockAtMostTenTimesASecond) {
  CapturedConsole console;
  FakeClock clock;
  {
    run::Progress bar("embed", 4, clock.options());
    EXPECT_EQ(console.text, "\rembed:   0%|                              | 0/4 [00:00<?, ?it/s]\033[K");
    console.text.clear();
    clock.now += 50ms;
    bar.advance(1);  // within 0.1 s of the last drawing: not drawn
    EXPECT_EQ(console.text, "");
    clock.now += 1950ms;
    bar.advance(1);
    EXPECT_EQ(console.text, "\rembed:  50%|###############               | 2/4 [00:02<00:02, 1.00it/s]\033[K");
    console.text.clear();
    clock.now += 10ms;
    bar.advance(2);  // the last item is always drawn
    EXPECT_NE(console.text.find("4/4 [00:02<00:00,"), std::string::npos) << console.text;
    console.text.clear();
  }
  EXPECT_EQ(console.text, "\r\033[K");  // erased when done
}

TEST(Progress, AWarningWhileABarShowsStartsOnItsOwnLine) {
  CapturedConsole console;
  FakeClock clock;
  {
    run::Progress bar("score", 3, clock.options());
    clock.now += 1s;
    bar.advance(1);
    console.text.clear();
    warn("3 texts were truncated");
    // The bar's line is erased first, the warning is a whole line, and the bar comes back below it.
    EXPECT_EQ(console.text, "\r\033[Kinvar: warning: 3 texts were truncated\n"
                            "score:  33%|##########                    | 1/3 [00:01<00:02, 1.00it/s]");
  }
  console.text.clear();
  warn("after");  // no bar: the line alone
  EXPECT_EQ(console.text, "invar: warning: after\n");
}
