// The Pallas TPU model: include this one header in a kernel model.
// Names follow jax.experimental.pallas.tpu (pltpu): make_async_copy,
// make_async_remote_copy, sync_copy, semaphore_signal, semaphore_wait,
// pallas_call grids with BlockSpecs, emit_pipeline, ...
#pragma once
#include "models/tpu/blockspec.hpp"
#include "models/tpu/dma.hpp"
#include "models/tpu/memory.hpp"
#include "models/tpu/mesh.hpp"
#include "models/tpu/semaphore.hpp"
