/* verilator lint_off WIDTH */  // operands widen by Verilog's context rules, on purpose
// One Welford step with the reciprocal 1/(n+1) from the count-indexed table
// (Welford 1962):  d = x - mu;  mu' = q_mean(mu + d r);
// M2' = q_m2(M2 + d (x - mu')).  Every sum and product is exact (widths
// derived below from the formats) and rounded once, in the output register's
// format -- sim/core welford_update(), bit for bit.
module welford_update #(
  parameter integer XW = 24, XF = 14, XS = 1,                        // input
  parameter integer MW = 32, MF = 24, MS = 1, MR = 1, MO = 0,        // mean
  parameter integer QW = 48, QF = 24, QS = 1, QR = 1, QO = 0,        // M2
  parameter integer RW = 32, RF = 31, RS = 0                         // 1/n table
) (
  input  wire [XW-1:0] x,
  input  wire [MW-1:0] mean,
  input  wire [QW-1:0] m2,
  input  wire [RW-1:0] recip,
  output wire [MW-1:0] mean_next,
  output wire [QW-1:0] m2_next,
  output wire          mean_overflow,
  output wire          m2_overflow
);
  // x - mu at DF fraction bits.
  localparam integer DF = XF > MF ? XF : MF;
  localparam integer XAW = XW + 1 + DF - XF, MAW = MW + 1 + DF - MF;
  localparam integer DW = (XAW > MAW ? XAW : MAW) + 1;
  wire signed [XW:0] xs = {XS != 0 ? x[XW-1] : 1'b0, x};
  wire signed [MW:0] ms = {MS != 0 ? mean[MW-1] : 1'b0, mean};
  wire signed [QW:0] qs = {QS != 0 ? m2[QW-1] : 1'b0, m2};
  wire signed [RW:0] rs = {RS != 0 ? recip[RW-1] : 1'b0, recip};
  wire signed [DW-1:0] x_al = xs <<< (DF - XF);
  wire signed [DW-1:0] delta = x_al - (ms <<< (DF - MF));

  // mu + d r at PF = DF + RF fraction bits.
  localparam integer PF = DF + RF;
  localparam integer PW = DW + RW + 1, MPW = MW + 1 + PF - MF;
  localparam integer S1W = (PW > MPW ? PW : MPW) + 1;
  wire signed [S1W-1:0] sum1 = (ms <<< (PF - MF)) + delta * rs;
  fx_requant #(.IN_W(S1W), .SHIFT(PF - MF), .OUT_W(MW), .OUT_S(MS), .ROUND(MR), .OVF(MO))
    q_mean (.in(sum1), .out(mean_next), .overflow(mean_overflow));

  // M2 + d (x - mu') at QF2 = max(2 DF, QF) fraction bits.
  wire signed [MW:0] ms_next = {MS != 0 ? mean_next[MW-1] : 1'b0, mean_next};
  wire signed [DW-1:0] delta2 = x_al - (ms_next <<< (DF - MF));
  localparam integer QF2 = 2 * DF > QF ? 2 * DF : QF;
  localparam integer P2W = 2 * DW + QF2 - 2 * DF, QAW = QW + 1 + QF2 - QF;
  localparam integer S2W = (P2W > QAW ? P2W : QAW) + 1;
  wire signed [S2W-1:0] prod2 = delta * delta2;
  wire signed [S2W-1:0] sum2 = (qs <<< (QF2 - QF)) + (prod2 <<< (QF2 - 2 * DF));
  fx_requant #(.IN_W(S2W), .SHIFT(QF2 - QF), .OUT_W(QW), .OUT_S(QS), .ROUND(QR), .OVF(QO))
    q_m2 (.in(sum2), .out(m2_next), .overflow(m2_overflow));
endmodule
