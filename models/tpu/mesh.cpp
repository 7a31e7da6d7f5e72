#include "models/tpu/mesh.hpp"

#include <fmt/format.h>

#include "models/tpu/dma.hpp"
#include "models/tpu/semaphore.hpp"

namespace heddle::tpu {
namespace {
// The mesh of the execution being run on this OS thread. Executions run
// one at a time per OS thread, and the mesh lives exactly as long as its
// execution (it is owned by it through heddle::make).
thread_local Mesh* t_mesh = nullptr;

const char* restriction(DmaOrder o) {
  switch (o) {
    case DmaOrder::eager:
      return "exploration restricted by dma_order=eager: DMA completion orders are not explored "
             "(each DMA completes inside its start, as in JAX interpret mode's eager DMAs)";
    case DmaOrder::on_wait:
      return "exploration restricted by dma_order=on_wait: a DMA completes only when a wait "
             "needs it, newest first (JAX interpret mode's on_wait); other completion orders "
             "are not explored";
    case DmaOrder::any:
      break;
  }
  return "";
}
}  // namespace

DmaOrder parse_dma_order(const std::string& s) {
  if (s == "any") return DmaOrder::any;
  if (s == "eager") return DmaOrder::eager;
  if (s == "on_wait") return DmaOrder::on_wait;
  throw ModelError("dma_order must be any, eager or on_wait, not " + s);
}

std::vector<std::string> dma_order_names() { return {"any", "eager", "on_wait"}; }

Mesh::Mesh(MeshConfig config) : config_(std::move(config)) {
  if (config_.devices == 0 || config_.cores == 0)
    throw ModelError("a mesh needs at least one device and one core per device");
  if (!config_.shape.empty()) {
    std::uint32_t n = 1;
    for (auto s : config_.shape) n *= s;
    if (n != config_.devices)
      throw ModelError(fmt::format("mesh shape has {} devices, but devices = {}", n,
                                   config_.devices));
  }
  t_mesh = this;
  if (config_.dma_order != DmaOrder::any) heddle::restrict_exploration(restriction(config_.dma_order));
  barrier_ = &make_semaphore(*this, "barrier_sem", SemKind::barrier).family();
  // Made here, at setup, so that its ids do not depend on which core's
  // sync_copy runs first; scoped, so that idle it is listed nowhere.
  sync_copy_ = &make_semaphore(*this, "sync_copy_sem", SemKind::dma).family();
  for (auto* s : sync_copy_->instances) s->set_scoped();
  heddle::at_exit([this] { exit_checks(); });
}

Mesh::~Mesh() {
  if (t_mesh == this) t_mesh = nullptr;
}

Mesh& Mesh::current() {
  if (t_mesh == nullptr || !Execution::active())
    throw ModelError("no TPU mesh: create one in the kernel's setup with "
                     "heddle::make<tpu::Mesh>(MeshConfig{...})");
  return *t_mesh;
}

Sem Mesh::barrier() const { return Sem(*barrier_); }

Sem Mesh::sync_copy_semaphore() const { return Sem(*sync_copy_); }

void Mesh::launch(std::function<void()> body) {
  for (std::uint32_t d = 0; d < config_.devices; ++d)
    for (std::uint32_t c = 0; c < config_.cores; ++c) {
      AgentId id = heddle::spawn(core_name(d, c), body);
      threads_[index(id)] = CoreCoords{d, c};
    }
}

CoreCoords Mesh::here(std::source_location loc) const {
  Agent* a = Execution::current().self();
  auto it = a ? threads_.find(index(a->id)) : threads_.end();
  if (it == threads_.end())
    throw ModelError("device_id()/core_id() and unpinned refs work only inside the kernel body "
                     "run by Mesh::launch (pin a ref with at_device(d) elsewhere)",
                     loc);
  return it->second;
}

std::string Mesh::core_name(std::uint32_t device, std::uint32_t core) const {
  if (config_.cores == 1) return fmt::format("dev{}", device);
  return fmt::format("dev{}.core{}", device, core);
}

std::uint32_t Mesh::device_at(const std::vector<std::uint32_t>& coords) const {
  if (coords.size() != config_.shape.size())
    throw ModelError(fmt::format("{} mesh coordinates given for a mesh of rank {}", coords.size(),
                                 config_.shape.size()));
  std::uint32_t id = 0;
  for (std::size_t i = 0; i < coords.size(); ++i) {
    if (coords[i] >= config_.shape[i]) throw ModelError("mesh coordinate out of range");
    id = id * config_.shape[i] + coords[i];
  }
  return id;
}

std::vector<std::uint32_t> Mesh::coords_of(std::uint32_t device) const {
  std::vector<std::uint32_t> out(config_.shape.size());
  for (std::size_t i = config_.shape.size(); i-- > 0;) {
    out[i] = device % config_.shape[i];
    device /= config_.shape[i];
  }
  return out;
}

DmaRecord& Mesh::add_dma(std::unique_ptr<DmaRecord> d) {
  dmas_.push_back(std::move(d));
  return *dmas_.back();
}

std::uint32_t& Mesh::program_slot() {
  Agent* a = Execution::current().self();
  if (a == nullptr) throw ModelError("grid() runs only inside the kernel body");
  return programs_[index(a->id)];
}

std::uint32_t device_id(std::source_location loc) { return Mesh::current().here(loc).device; }

std::uint32_t core_id(std::source_location loc) { return Mesh::current().here(loc).core; }

std::uint32_t num_devices() { return Mesh::current().devices(); }

void grid(std::uint32_t n, const std::function<void(std::uint32_t)>& body) {
  for (std::uint32_t i = 0; i < n; ++i) {
    Mesh::current().program_slot() = i;
    body(i);
  }
}

std::uint32_t program_id() { return Mesh::current().program_slot(); }

}  // namespace heddle::tpu
