/* verilator lint_off WIDTH */  // operands widen by Verilog's context rules, on purpose
// The backward's per-element operands, shared by the row-sum lane and the dx
// unit (which recomputes them from the replayed x and dy rather than keeping
// a row of them): x_hat = q_xhat((x - mu) rstd) (KIND 1, RMSNorm: x rstd;
// STORED 1: x is x_hat as the forward wrote it, in the xhat format, and
// passes through) and g = q_g(dy gamma). sim/core backward_operands(), bit
// for bit.
module backward_operands #(
  parameter integer KIND = 0, STORED = 0,
  parameter integer XW = 24, XF = 14, XS = 1,                    // x (the input format; STORED: the xhat format)
  parameter integer MW = 32, MF = 24, MS = 1,                    // mean
  parameter integer SW = 32, SF = 22, SS = 0,                    // rstd (rsqrt_out)
  parameter integer DW = 24, DF = 14, DS = 1,                    // dy
  parameter integer AW = 16, AF = 13, AS = 1,                    // gamma
  parameter integer HW = 24, HF = 18, HS = 1, HR = 1, HO = 0,    // x_hat
  parameter integer GW = 24, GF = 14, GS = 1, GR = 1, GO = 0     // g
) (
  /* verilator lint_off UNUSEDSIGNAL */  // STORED: mean and rstd are not needed; RMSNorm: mean
  input  wire [XW-1:0] x,
  input  wire [MW-1:0] mean,
  input  wire [SW-1:0] rstd,
  /* verilator lint_on UNUSEDSIGNAL */
  input  wire [DW-1:0] dy,
  input  wire [AW-1:0] gamma,
  output wire [HW-1:0] xhat,
  output wire [GW-1:0] g,
  output wire          xhat_overflow,
  output wire          g_overflow
);
  generate
    if (STORED != 0) begin : g_stored
      assign xhat = x;
      assign xhat_overflow = 1'b0;
    end else begin : g_recompute
      wire signed [XW:0] xs = {XS != 0 ? x[XW-1] : 1'b0, x};
      wire signed [MW:0] ms = KIND != 0 ? {(MW + 1){1'b0}} : {MS != 0 ? mean[MW-1] : 1'b0, mean};
      wire signed [SW:0] ss = {SS != 0 ? rstd[SW-1] : 1'b0, rstd};
      // (x - mu) rstd at CF + SF fraction bits.
      localparam integer CF = XF > MF ? XF : MF;
      localparam integer CW = (XW + 1 + CF - XF > MW + 1 + CF - MF ? XW + 1 + CF - XF : MW + 1 + CF - MF) + 1;
      wire signed [CW-1:0] centred = (xs <<< (CF - XF)) - (ms <<< (CF - MF));
      wire signed [CW+SW:0] p = centred * ss;
      fx_requant #(.IN_W(CW + SW + 1), .SHIFT(CF + SF - HF), .OUT_W(HW), .OUT_S(HS), .ROUND(HR), .OVF(HO))
        q_xhat (.in(p), .out(xhat), .overflow(xhat_overflow));
    end
  endgenerate
  wire signed [DW:0] ds = {DS != 0 ? dy[DW-1] : 1'b0, dy};
  wire signed [AW:0] as = {AS != 0 ? gamma[AW-1] : 1'b0, gamma};
  wire signed [DW+AW+1:0] dg = ds * as;
  fx_requant #(.IN_W(DW + AW + 2), .SHIFT(DF + AF - GF), .OUT_W(GW), .OUT_S(GS), .ROUND(GR), .OVF(GO))
    q_g (.in(dg), .out(g), .overflow(g_overflow));
endmodule
