// Canonical agent and object ids (checker/explore/dpor/canonical.hpp): the same
// agent or object gets the same id in every interleaving, although the
// engine numbers them in creation order.
#include <catch2/catch.hpp>

#include <map>
#include <set>

#include "checker/explore/dpor/canonical.hpp"
#include "checker/heddle.hpp"
#include "test/support/harness.hpp"

using namespace heddle;

namespace {
// Each thread registers a flag after its first visible step and issues a
// copy that sets it: which flag and which copy the engine numbers first
// depends on which thread ran first.
const auto two_makers =
    kernel("test/two_makers", "two threads each make a flag and a copy after a step")
        .body([](const Params&) {
          auto& x = make<Atomic<int>>("x", 0);
          for (int t = 0; t < 2; ++t) {
            spawn("T" + std::to_string(t), [&x, t] {
              x.fetch_add(1);
              auto& f = make<Atomic<int>>("flag" + std::to_string(t), 0);
              issue("copy" + std::to_string(t),
                    {phase("land", {touches(f, true)}, [&f] { f.store(1); })});
              await([&f] { return f.peek() == 1; }, {&f});
            });
          }
        });
}  // namespace

TEST_CASE("canonical ids name agents and objects alike in every interleaving", "[dpor]") {
  dpor::CanonicalAgents agents;
  dpor::CanonicalObjects objects;
  std::map<std::string, std::set<std::uint32_t>> agent_ids, object_ids, engine_object_ids;
  RunConfig c;
  c.strategy = "dfs";
  const auto& k = find_kernel("test/two_makers");
  auto r = explore(k, k.resolve({}), c, [&](const ExecutionRecord& ex, Ending) {
    agents.reset();
    objects.reset();
    agents.sync(ex);
    objects.sync(ex, agents);
    for (const auto& a : ex.agents()) agent_ids[a->name].insert(index(agents.canon(a->id)));
    for (std::uint32_t i = 0; i < ex.object_count(); ++i) {
      Footprint fp{Access{ObjectId{i}}};
      objects.canon(fp);
      object_ids[ex.object_name(ObjectId{i})].insert(index(fp[0].object));
      engine_object_ids[ex.object_name(ObjectId{i})].insert(i);
    }
  });
  REQUIRE(r.exhaustive);
  // The engine's numbering does change with the interleaving...
  CHECK(engine_object_ids["flag0"].size() == 2);
  // ... the canonical one does not, and tells the objects apart.
  for (const auto& [name, ids] : agent_ids) CHECK(ids.size() == 1);
  for (const auto& [name, ids] : object_ids) CHECK(ids.size() == 1);
  CHECK(object_ids.size() == 3);
  CHECK(*object_ids["flag0"].begin() != *object_ids["flag1"].begin());
  CHECK(agent_ids.size() == 4);
  CHECK(*agent_ids["copy0"].begin() != *agent_ids["copy1"].begin());
}
