// Model code outside threads (setup, exit checks, async phases) on guarded
// fibers, and the reports of what escapes model code: exceptions, faults,
// runaway steps and exit().
#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <map>

#include "checker/engine/errors.hpp"
#include "checker/engine/execution.hpp"
#include "checker/engine/runaway.hpp"
#include "checker/engine/user_site.hpp"

namespace heddle {
namespace {
// Carries a host call into its fiber and the escaped exception out of it.
struct HostCall {
  const std::function<void()>* fn;
  std::exception_ptr error;
};

void host_main(void* arg) {
  auto& call = *static_cast<HostCall*>(arg);
  try {
    (*call.fn)();
  } catch (const FiberUnwind&) {
    throw;
  } catch (...) {
    call.error = std::current_exception();
  }
}
}  // namespace

bool Execution::run_setup(const std::function<void()>& setup, std::uint64_t model,
                          const std::string& where_words) {
  if (!run_host(setup, "kernel setup", where_words)) return false;
  check_setup_determinism(model);
  return !bug_;
}

bool Execution::run_host(const std::function<void()>& fn, const char* who,
                         const std::string& context) {
  // exit() in model code names the work by `who`, a literal: the caller's
  // strings may be gone by the time the exit handlers run.
  const char* outer = std::exchange(now_.host_work, who);
  const std::pair<const char*, const std::string*> words{who, &context};
  bool ok = run_host(fn, HostName{[](const void* p) {
                                    auto* w = static_cast<decltype(words)*>(p);
                                    return std::pair{std::string(w->first), *w->second};
                                  },
                                  &words});
  now_.host_work = outer;
  return ok;
}

bool Execution::run_host(const std::function<void()>& fn, HostName name) {
  HostCall call{&fn, nullptr};
  // (Host work inside host work, as an exit check's, takes another fiber.)
  std::unique_ptr<Fiber> fiber = host_fiber_ ? std::move(host_fiber_) : pool_.take_fiber();
  fiber->start(&host_main, &call);
  watchdog_enter_step();
  FiberFault why = fiber->resume();
  watchdog_leave_step();
  if (fiber->idle() && !host_fiber_)
    host_fiber_ = std::move(fiber);
  else
    pool_.give_back(std::move(fiber));  // a faulted fiber is abandoned, not parked
  if (why != FiberFault::none) {
    auto [who, context] = name.make(name.arg);
    fail_fault(why, who, context);
    return false;
  }
  if (!call.error) return true;
  auto [who, context] = name.make(name.arg);
  try {
    std::rethrow_exception(call.error);
  } catch (const UsageError&) {
    throw;  // a bad parameter, not a model error
  } catch (...) {
    fail_escape(std::current_exception(), who, context);
  }
  return false;
}

void Execution::fail_escape(std::exception_ptr error, const std::string& who,
                            const std::string& context) {
  const bool exit_check = who == "kernel exit";
  try {
    std::rethrow_exception(error);
  } catch (const AssertionFailure& e) {
    fail(Verdict::assertion,
         exit_check ? fmt::format("check failed at kernel exit: {}", e.what())
                    : fmt::format("check failed in {}: {}", who, e.what()),
         {fmt::format("at {}", where(e.where))});
  } catch (const ModelError& e) {
    // Detected inside heddle (a primitive without a call site of its own):
    // the nearest user line heddle knows stands in (user_site.hpp).
    std::string site = error_site(
        e.where, who == "kernel setup" ? context : fmt::format("in {} {}", who, context));
    std::vector<std::string> details;
    if (site.rfind("at ", 0) == 0 && !context.empty()) details.push_back(context);
    details.push_back(site);  // last: the user's line, or the nearest one heddle knows
    fail(Verdict::model_error, fmt::format("{} misused a primitive: {}", who, e.what()),
         std::move(details));
  } catch (const StepTimeout&) {
    fail(Verdict::model_error,
         fmt::format("{} ran for over {} s {}", who, limits_.step_timeout, kRunawayWords),
         {context, "an infinite loop over plain memory? spin on an atomic or use heddle::await"});
  } catch (const std::exception& e) {
    fail(Verdict::model_error, fmt::format("{} threw an exception: {}", who, e.what()), {context});
  } catch (...) {
    fail(Verdict::model_error, fmt::format("{} threw an unknown exception", who), {context});
  }
}

void Execution::fail_fault(FiberFault why, const std::string& who, const std::string& context) {
  switch (why) {
    case FiberFault::stack_overflow:
      fail(Verdict::model_error, fmt::format("stack overflow in {}", who),
           {context, fmt::format("each thread has a {} KiB stack: raise it with --stack-size or "
                                 "move large arrays into heddle buffers",
                                 pool_.stack_bytes() / 1024)});
      break;
    case FiberFault::timeout:
      fail(Verdict::model_error,
           fmt::format("{} ran for over {} s {}", who, limits_.step_timeout, kRunawayWords),
           {context, "an infinite loop? spin on an atomic or use heddle::await"});
      break;
    case FiberFault::abort:
      fail(Verdict::model_error,
           fmt::format("{} called abort() (a failed assert(), or an exception out of a "
                       "noexcept function?)",
                       who),
           {context, "use heddle::check(cond, \"message\") to get an assertion report"});
      break;
    case FiberFault::bad_access:
      fail(Verdict::model_error,
           fmt::format("{} made an invalid memory access at address {}", who,
                       fmt::ptr(last_fault_address())),
           {context, "a null or dangling pointer, or raw access out of bounds? heddle buffers "
                     "check their bounds (load, store)"});
      break;
    case FiberFault::arithmetic:
      fail(Verdict::model_error,
           fmt::format("{} raised an arithmetic fault (an integer division by zero?)", who),
           {context});
      break;
    case FiberFault::none:
      break;
  }
}

void Execution::on_model_exit(int status) {
  Execution* ex = detail::current_execution;
  std::string who = "model code", context;
  if (ex != nullptr && ex->now_.running != nullptr && ex->now_.running->kind == Agent::Kind::thread) {
    auto& t = static_cast<ThreadAgent&>(*ex->now_.running);
    who = t.name;
    context = ex->last_op_text(t);
  } else if (ex != nullptr && ex->now_.running != nullptr) {
    who = "async agent " + ex->now_.running->name;
  } else if (ex != nullptr && ex->now_.host_work != nullptr) {
    who = ex->now_.host_work;
  }
  std::string text = fmt::format(
      "model_error: {} called exit({}){}{}\n  a model must not end the process: use "
      "heddle::check(cond, \"message\") to report a failure\n",
      who, status, context.empty() ? "" : " ", context);
  std::fputs(text.c_str(), stderr);
  std::fflush(stderr);
  _exit(1);
}

}  // namespace heddle
