// heddle replay FILE --steps: after each step, what it changed (semaphore
// counts and values, barrier phases and pending arrivals, copies in flight
// and their phases), checked on its own and against golden files.
#include <fmt/format.h>

#include <filesystem>

#include "checker/report/step_states.hpp"
#include "test/golden/golden.hpp"

using namespace heddle;
using heddle::test::check_golden;
using heddle::test::has;

namespace {
/// The --steps section of `heddle replay` on the counterexample of `run_args`.
std::string steps_of(const std::string& run_args) {
  const std::string dir = test::temp_dir();
  auto run = test::cli("run " + run_args + " --quiet --out " + dir + "/cex.json");
  INFO(run.out << run.err);
  REQUIRE(run.code == 1);
  auto replay = test::cli("replay " + dir + "/cex.json --steps");
  INFO(replay.out << replay.err);
  REQUIRE(replay.code == 1);
  std::filesystem::remove_all(dir);
  const std::string head = "steps, each with what it changed:\n";
  auto from = replay.out.find(head);
  REQUIRE(from != std::string::npos);
  auto to = replay.out.find("\n\n", from);
  REQUIRE(to != std::string::npos);
  return replay.out.substr(from, to + 1 - from);
}

/// The lines of `text` from the one that starts with "  N  " (step N) to the next step.
std::string step_block(const std::string& text, int n) {
  const std::string key = fmt::format("\n  {:>4}  ", n), next = fmt::format("\n  {:>4}  ", n + 1);
  auto from = text.find(key);
  if (from == std::string::npos) return "";
  auto to = text.find(next, from + 1);
  return text.substr(from + 1, to == std::string::npos ? std::string::npos : to - from);
}
}  // namespace

TEST_CASE("replay --steps: semaphore counts after each step (the handoff)", "[steps]") {
  std::string steps = steps_of("demo/handoff");
  INFO(steps);
  CHECK(has(steps, "state before step 1:\n          ready: count 0\n"));
  CHECK(has(step_block(steps, 1), "producer  signal(ready)"));
  CHECK(has(step_block(steps, 1), "          ready: count 0 -> 1\n"));
  CHECK(has(step_block(steps, 2), "consumer  wait(ready)"));
  CHECK(has(step_block(steps, 2), "          ready: count 1 -> 0\n"));
  check_golden("steps_handoff", steps);
}

TEST_CASE("replay --steps: copies in flight and their phases (the CUTLASS epilogue)", "[steps]") {
  std::string steps = steps_of("cutlass/grouped_gemm_epilogue");
  INFO(steps);
  // A TMA store is issued (new, in flight at its first phase), moves on
  // phase by phase, and its bulk-group state says what was waited.
  // The store's own state ("reading") is part of its copy line, not an
  // object of its own the user never declared.
  CHECK(has(steps, ": in flight, next: read_desc (1 of 3); reading (new)\n"));
  CHECK(has(steps, ": in flight, next: read_desc (1 of 3); reading -> next: read_smem (2 of 3)"));
  CHECK_FALSE(has(steps, "\n          tma_store "));
  check_golden("steps_cutlass_epilogue", steps);
}

TEST_CASE("replay --steps: TPU semaphore values and DMAs (the ring collective)", "[steps]") {
  std::string steps = steps_of("pallas_tpu/ring_reuse_recv_sem");
  INFO(steps);
  CHECK(has(steps, "recv_sem: value 0\n"));
  CHECK(has(steps, "recv_sem: value 0 -> 4\n"));
  CHECK(has(steps, "copy "));
  CHECK(has(steps, "-> done\n"));
  CHECK_FALSE(has(steps, "proxy"));
  check_golden("steps_tpu_ring", steps);
}

TEST_CASE("replay --steps: a change keeps each field's name", "[steps]") {
  auto change = [](const std::string& was, const std::string& now) {
    return state_changes({{"x", was}}, {{"x", now}}, "");
  };
  CHECK(change("count 0", "count 1") == "x: count 0 -> 1\n");
  CHECK(change("phase 0, idle", "phase 1, 0 of 2 arrived") ==
        "x: phase 0, idle -> phase 1, 0 of 2 arrived\n");
  CHECK(change("phase 0 (parity 0), 1 of 1 arrivals pending", "phase 0 (parity 0), 0 of 1 arrivals pending") ==
        "x: phase 0 (parity 0), 1 of 1 arrivals pending -> 0 of 1 arrivals pending\n");
}

TEST_CASE("replay --steps prints the schedule once, step by step", "[steps]") {
  const std::string dir = test::temp_dir();
  REQUIRE(test::cli("run demo/handoff --quiet --out " + dir + "/cex.json").code == 1);
  auto replay = test::cli("replay " + dir + "/cex.json --steps");
  INFO(replay.out);
  CHECK(has(replay.out, "steps, each with what it changed:\n"));
  CHECK_FALSE(has(replay.out, "schedule ("));
  CHECK(has(replay.out, "\nschedule: the 2 steps above; access 1 in step 1, access 2 in step 2\n"));
  // Without --steps, the schedule is printed as a table.
  CHECK(has(test::cli("replay " + dir + "/cex.json").out, "schedule (2 steps):\n"));
  std::filesystem::remove_all(dir);
}
