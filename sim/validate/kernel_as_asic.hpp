// A gpu_ref kernel as the ASIC datapath it is (the kernel registry's
// AsicDatapath): the mapped arch (workloads/arch/gpu-warp.yaml or
// gpu-block.yaml, embedded), the datapath config at a golden case's shape,
// and the inputs that datapath normalises. Shared by the output, traffic,
// time and fixed-point checks.
#pragma once

#include <optional>

#include "sim/config/arch.hpp"
#include "sim/core/norm_datapath.hpp"
#include "sim/simt/emulate.hpp"
#include "sim/simt/kernels/kernel_registry.hpp"
#include "sim/validate/golden.hpp"

namespace normsim::validate {

/// The kernel's datapath at the case's shape (`kernel`: as asked, or `ran`
/// for what the GPU actually ran); nullopt where it has no ASIC mapping.
std::optional<simt::AsicDatapath> asic_datapath(simt::KernelId kernel, const GoldenCase& g);

/// gpu-block.yaml for block datapaths, else gpu-warp.yaml (the embedded copies).
const config::Arch& mapped_arch(bool block);
/// Its file name, for reports.
const char* mapped_arch_path(bool block);

/// The arch's datapath for a golden case's row length and norm (the run's
/// own config::datapath_config), before a mapping's changes.
core::DatapathConfig case_datapath(const GoldenCase& g, const config::Arch& arch, bool rms,
                                   std::optional<core::VarianceAlgorithm> algorithm);

/// The backward datapath a backward kernel is at a golden case's shape: the
/// mapped arch's arithmetic and merge order, the kernel's lanes and vectors,
/// its parameter-gradient order with one partial per block of the case's grid.
core::BackwardConfig case_backward_config(const GoldenCase& g, const config::Arch& arch, const simt::AsicDatapath& m);

/// What the datapath normalises, for the first `rows` rows: x -- for a
/// residual-sum kernel the stored z = dropout(x) + r as the ASIC model's
/// residual adder makes it (sim/core/residual_add.hpp, fp32) -- and
/// gamma/beta as the kernel reads them (in bf16 where it reads them in the
/// input's type).
simt::KernelInputs datapath_inputs(const GoldenCase& g, int64_t rows, const simt::AsicDatapath* m);

}  // namespace normsim::validate
