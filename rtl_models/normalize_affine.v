/* verilator lint_off WIDTH */  // operands widen by Verilog's context rules, on purpose
// The normalise / affine unit: x_hat = q_xhat((x - mu) rstd);
// y = q_out(x_hat gamma + beta). RMSNorm drives mu = 0 (and beta = 0 without
// a bias). sim/core normalize_affine(), bit for bit.
module normalize_affine #(
  parameter integer XW = 24, XF = 14, XS = 1,                    // input x
  parameter integer MW = 32, MF = 24, MS = 1,                    // mean
  parameter integer SW = 32, SF = 22, SS = 0,                    // rstd (rsqrt_out)
  parameter integer HW = 24, HF = 18, HS = 1, HR = 1, HO = 0,    // x_hat
  parameter integer GW = 16, GF = 13, GS = 1,                    // gamma
  parameter integer BW = 16, BF = 13, BS = 1,                    // beta
  parameter integer YW = 16, YF = 11, YS = 1, YR = 1, YO = 0     // output
) (
  input  wire [XW-1:0] x,
  input  wire [MW-1:0] mean,
  input  wire [SW-1:0] rstd,
  input  wire [GW-1:0] gamma,
  input  wire [BW-1:0] beta,
  output wire [HW-1:0] xhat,
  output wire [YW-1:0] y,
  output wire          xhat_overflow,
  output wire          y_overflow
);
  wire signed [XW:0] xs = {XS != 0 ? x[XW-1] : 1'b0, x};
  wire signed [MW:0] ms = {MS != 0 ? mean[MW-1] : 1'b0, mean};
  wire signed [SW:0] ss = {SS != 0 ? rstd[SW-1] : 1'b0, rstd};
  wire signed [GW:0] gs = {GS != 0 ? gamma[GW-1] : 1'b0, gamma};
  wire signed [BW:0] bs = {BS != 0 ? beta[BW-1] : 1'b0, beta};

  // (x - mu) rstd at DF + SF fraction bits.
  localparam integer DF = XF > MF ? XF : MF;
  localparam integer DW = (XW + 1 + DF - XF > MW + 1 + DF - MF ? XW + 1 + DF - XF : MW + 1 + DF - MF) + 1;
  wire signed [DW-1:0] d = (xs <<< (DF - XF)) - (ms <<< (DF - MF));
  wire signed [DW+SW:0] p1 = d * ss;
  fx_requant #(.IN_W(DW + SW + 1), .SHIFT(DF + SF - HF), .OUT_W(HW), .OUT_S(HS), .ROUND(HR), .OVF(HO))
    q_xhat (.in(p1), .out(xhat), .overflow(xhat_overflow));

  // x_hat gamma + beta at YF2 = max(HF + GF, BF) fraction bits.
  wire signed [HW:0] hs = {HS != 0 ? xhat[HW-1] : 1'b0, xhat};
  localparam integer YF2 = HF + GF > BF ? HF + GF : BF;
  localparam integer AW = (HW + GW + 2 + YF2 - HF - GF > BW + 1 + YF2 - BF ? HW + GW + 2 + YF2 - HF - GF
                                                                        : BW + 1 + YF2 - BF) + 1;
  wire signed [AW-1:0] prod = hs * gs;
  wire signed [AW-1:0] acc = (prod <<< (YF2 - HF - GF)) + (bs <<< (YF2 - BF));
  fx_requant #(.IN_W(AW), .SHIFT(YF2 - YF), .OUT_W(YW), .OUT_S(YS), .ROUND(YR), .OVF(YO))
    q_y (.in(acc), .out(y), .overflow(y_overflow));
endmodule
