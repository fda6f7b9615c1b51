#include "sim/asic/run_geometry.hpp"

#include "sim/asic/replay_path.hpp"
#include "sim/asic/traffic_identity.hpp"

namespace normsim::asic {

RunGeometry make_run_geometry(const config::Workload& w, const config::Arch& a, const AsicConfig& c) {
  RunGeometry g;
  g.rows = w.rows;
  g.hidden = w.hidden;
  g.chunk_elems = transaction_elems(w, c);
  g.chunks = static_cast<int>((w.hidden + g.chunk_elems - 1) / g.chunk_elems);
  g.lanes = a.lanes * c.datapaths;  // timing: every datapath's lanes (the arithmetic stays per row)
  g.in_bytes = core::elem_bytes(w.input.dtype);
  g.out_bytes = core::elem_bytes(w.output.dtype);
  g.stats_bytes_per_row = stats_bytes_per_row(w);
  g.stored_elems = replay_stored_elems(c, w.hidden);
  g.param_bytes = param_bytes(w, a);
  g.reread_fifo_transactions = reread_fifo_transactions(w, c);
  g.fusion = fusion_of(w, a);
  if (w.is_backward()) {
    g.backward = true;
    g.grad_bytes = core::elem_bytes(w.backward.dy.dtype);
    g.saved_stats_bytes = saved_stats_bytes_per_row(w, c);
    if (w.writes_branch_grad())
      (a.fuse.mode == config::FuseMode::none ? g.branch_pass_bytes : g.branch_grad_bytes) = core::elem_bytes(w.output.dtype);
  }
  if (w.residual) {
    g.residual_bytes = core::elem_bytes(w.residual->tensor.dtype);
    g.sum_written_all = w.residual->sum_written();
  }
  return g;
}

}  // namespace normsim::asic
