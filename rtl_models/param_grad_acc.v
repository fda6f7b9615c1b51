/* verilator lint_off WIDTH */  // operands widen by Verilog's context rules, on purpose
// The parameter-gradient accumulator's read-modify-write, one column:
// dgamma' = q_dgamma(dgamma + dy x_hat), dbeta' = q_dbeta(dbeta + dy)
// (KIND 1, RMSNorm: no dbeta, its output held at zero). The accumulators
// live in SRAM (or DRAM); this is the logic between the read and the write.
// sim/core param_grad_update(), bit for bit.
module param_grad_acc #(
  parameter integer KIND = 0,
  parameter integer DW = 24, DF = 14, DS = 1,                    // dy
  parameter integer HW = 24, HF = 18, HS = 1,                    // x_hat
  parameter integer GW = 48, GF = 18, GS = 1, GR = 1, GO = 0,    // dgamma
  parameter integer BW = 48, BF = 18, BS = 1, BR = 1, BO = 0     // dbeta
) (
  input  wire [DW-1:0] dy,
  input  wire [HW-1:0] xhat,
  input  wire [GW-1:0] dgamma,
  /* verilator lint_off UNUSEDSIGNAL */  // RMSNorm: no dbeta
  input  wire [BW-1:0] dbeta,
  /* verilator lint_on UNUSEDSIGNAL */
  output wire [GW-1:0] dgamma_next,
  output wire [BW-1:0] dbeta_next,
  output wire          dgamma_overflow,
  output wire          dbeta_overflow
);
  wire signed [DW:0] ds = {DS != 0 ? dy[DW-1] : 1'b0, dy};
  wire signed [HW:0] hs = {HS != 0 ? xhat[HW-1] : 1'b0, xhat};
  wire signed [GW:0] gs = {GS != 0 ? dgamma[GW-1] : 1'b0, dgamma};
  // dgamma + dy x_hat at FG fraction bits.
  localparam integer FG = GF > DF + HF ? GF : DF + HF;
  localparam integer WG = (GW + 1 + FG - GF > DW + HW + 2 + FG - DF - HF ? GW + 1 + FG - GF : DW + HW + 2 + FG - DF - HF) + 1;
  wire signed [DW+HW+1:0] dh = ds * hs;
  wire signed [WG-1:0] sg = (gs <<< (FG - GF)) + (dh <<< (FG - DF - HF));
  fx_requant #(.IN_W(WG), .SHIFT(FG - GF), .OUT_W(GW), .OUT_S(GS), .ROUND(GR), .OVF(GO))
    q_dgamma (.in(sg), .out(dgamma_next), .overflow(dgamma_overflow));
  generate
    if (KIND != 0) begin : g_rms
      assign dbeta_next = {BW{1'b0}};
      assign dbeta_overflow = 1'b0;
    end else begin : g_ln
      wire signed [BW:0] bs = {BS != 0 ? dbeta[BW-1] : 1'b0, dbeta};
      localparam integer FB = BF > DF ? BF : DF;
      localparam integer WB = (BW + 1 + FB - BF > DW + 1 + FB - DF ? BW + 1 + FB - BF : DW + 1 + FB - DF) + 1;
      wire signed [WB-1:0] sb = (bs <<< (FB - BF)) + (ds <<< (FB - DF));
      fx_requant #(.IN_W(WB), .SHIFT(FB - BF), .OUT_W(BW), .OUT_S(BS), .ROUND(BR), .OVF(BO))
        q_dbeta (.in(sb), .out(dbeta_next), .overflow(dbeta_overflow));
    end
  endgenerate
endmodule
