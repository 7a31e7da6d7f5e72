// The Pallas TPU model: include this one header in a kernel model.
// Names follow jax.experimental.pallas.tpu (pltpu): make_async_copy,
// make_async_remote_copy, semaphore_signal, semaphore_wait, ...
#pragma once
#include "models/tpu/dma.hpp"
#include "models/tpu/memory.hpp"
#include "models/tpu/mesh.hpp"
#include "models/tpu/semaphore.hpp"
