// Everything a Hopper GPU kernel model needs: include this one header, then
// a vocabulary (models/gpu/cutlass.hpp, models/gpu/pallas.hpp) if wanted.
#pragma once
#include "models/gpu/barriers.hpp"
#include "models/gpu/bulk.hpp"
#include "models/gpu/cluster.hpp"
#include "models/gpu/cp_async.hpp"
#include "models/gpu/cta_sync.hpp"
#include "models/gpu/grid.hpp"
#include "models/gpu/memory.hpp"
#include "models/gpu/multicast.hpp"
#include "models/gpu/reduce.hpp"
#include "models/gpu/wgmma.hpp"
