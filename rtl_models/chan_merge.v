/* verilator lint_off WIDTH */  // operands widen by Verilog's context rules, on purpose
// Chan's merge of two Welford states (Chan, Golub and LeVeque 1979):
//   d = mu_b - mu_a,  mu = mu_a + d n_b/n,  M2 = M2_a + M2_b + d^2 n_a n_b/n.
// Equal counts (every level of a tree over equal lanes) need no coefficient:
//   mu = (mu_a + mu_b)/2,  M2 = M2_a + M2_b + d^2 n_a/2  -- shifts only.
// Otherwise n_b/n comes in the recip format from the constant table (counts
// are static for a row length). An empty side passes the other through.
// sim/core chan_merge(), bit for bit.
module chan_merge #(
  parameter integer NW = 24,                                    // count width
  parameter integer MW = 32, MF = 24, MS = 1, MR = 1, MO = 0,   // mean
  parameter integer QW = 48, QF = 24, QS = 1, QR = 1, QO = 0,   // M2
  parameter integer RW = 32, RF = 31, RS = 0                    // n_b/n coefficient
) (
  input  wire [NW-1:0] n_a, n_b,
  input  wire [MW-1:0] mean_a, mean_b,
  input  wire [QW-1:0] m2_a, m2_b,
  input  wire [RW-1:0] coef,
  output wire [NW-1:0] n,
  output wire [MW-1:0] mean,
  output wire [QW-1:0] m2,
  output wire          mean_overflow,
  output wire          m2_overflow
);
  wire signed [MW:0] ma = {MS != 0 ? mean_a[MW-1] : 1'b0, mean_a};
  wire signed [MW:0] mb = {MS != 0 ? mean_b[MW-1] : 1'b0, mean_b};
  wire signed [QW:0] qa = {QS != 0 ? m2_a[QW-1] : 1'b0, m2_a};
  wire signed [QW:0] qb = {QS != 0 ? m2_b[QW-1] : 1'b0, m2_b};
  wire signed [RW:0] c = {RS != 0 ? coef[RW-1] : 1'b0, coef};
  wire signed [NW:0] na = {1'b0, n_a};
  wire signed [MW+1:0] delta = mb - ma;                       // frac MF
  wire signed [2*MW+3:0] d2 = delta * delta;                  // frac 2 MF

  // Equal counts: (mu_a + mu_b) at MF+1 fraction bits; d^2 n_a at 2 MF + 1.
  wire signed [MW+1:0] mean_sum = ma + mb;
  wire [MW-1:0] mean_eq;
  wire mean_eq_ovf;
  fx_requant #(.IN_W(MW + 2), .SHIFT(1), .OUT_W(MW), .OUT_S(MS), .ROUND(MR), .OVF(MO))
    q_mean_eq (.in(mean_sum), .out(mean_eq), .overflow(mean_eq_ovf));
  localparam integer EF = 2 * MF + 1 > QF ? 2 * MF + 1 : QF;  // M2 sum fraction bits
  localparam integer EW = (2 * MW + 4 + NW + 1 + EF - 2 * MF - 1 > QW + 1 + EF - QF
                           ? 2 * MW + 4 + NW + 1 + EF - 2 * MF - 1 : QW + 1 + EF - QF) + 2;
  wire signed [EW-1:0] cross_eq = d2 * na;                    // frac 2 MF + 1 (the /2)
  wire signed [EW-1:0] m2_sum_eq = ((qa + qb) <<< (EF - QF)) + (cross_eq <<< (EF - 2 * MF - 1));
  wire [QW-1:0] m2_eq;
  wire m2_eq_ovf;
  fx_requant #(.IN_W(EW), .SHIFT(EF - QF), .OUT_W(QW), .OUT_S(QS), .ROUND(QR), .OVF(QO))
    q_m2_eq (.in(m2_sum_eq), .out(m2_eq), .overflow(m2_eq_ovf));

  // General counts: mu_a + d c at MF + RF; d^2 n_a c at 2 MF + RF.
  localparam integer GMW = (MW + 2 + RW + 1 > MW + 1 + RF ? MW + 2 + RW + 1 : MW + 1 + RF) + 1;
  wire signed [GMW-1:0] mean_sum_g = (ma <<< RF) + delta * c;
  wire [MW-1:0] mean_g;
  wire mean_g_ovf;
  fx_requant #(.IN_W(GMW), .SHIFT(RF), .OUT_W(MW), .OUT_S(MS), .ROUND(MR), .OVF(MO))
    q_mean_g (.in(mean_sum_g), .out(mean_g), .overflow(mean_g_ovf));
  localparam integer GF = 2 * MF + RF > QF ? 2 * MF + RF : QF;
  localparam integer GW = (2 * MW + 4 + NW + 1 + RW + 1 + GF - 2 * MF - RF > QW + 1 + GF - QF
                           ? 2 * MW + 4 + NW + 1 + RW + 1 + GF - 2 * MF - RF : QW + 1 + GF - QF) + 2;
  wire signed [GW-1:0] cross_g = d2 * na * c;
  wire signed [GW-1:0] m2_sum_g = ((qa + qb) <<< (GF - QF)) + (cross_g <<< (GF - 2 * MF - RF));
  wire [QW-1:0] m2_g;
  wire m2_g_ovf;
  fx_requant #(.IN_W(GW), .SHIFT(GF - QF), .OUT_W(QW), .OUT_S(QS), .ROUND(QR), .OVF(QO))
    q_m2_g (.in(m2_sum_g), .out(m2_g), .overflow(m2_g_ovf));

  wire a_empty = n_a == 0, b_empty = n_b == 0, equal = n_a == n_b;
  assign n = n_a + n_b;
  assign mean = a_empty ? mean_b : b_empty ? mean_a : equal ? mean_eq : mean_g;
  assign m2 = a_empty ? m2_b : b_empty ? m2_a : equal ? m2_eq : m2_g;
  assign mean_overflow = a_empty | b_empty ? 1'b0 : equal ? mean_eq_ovf : mean_g_ovf;
  assign m2_overflow = a_empty | b_empty ? 1'b0 : equal ? m2_eq_ovf : m2_g_ovf;
endmodule
