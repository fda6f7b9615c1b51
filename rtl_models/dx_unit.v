/* verilator lint_off WIDTH */  // operands widen by Verilog's context rules, on purpose
// The dx unit, one lane: x_hat and g recomputed from the replayed x and dy
// (backward_operands), then dx = q_dx(rstd (g - m1 - x_hat m2)) with
// m1 = S1/C and m2 = S2/C in the row_mean format; the bracket and the
// product exact before the one rounding (KIND 1, RMSNorm: no m1).
// sim/core backward_operands() and dx_value(), bit for bit.
module dx_unit #(
  parameter integer KIND = 0, STORED = 0,
  parameter integer XW = 24, XF = 14, XS = 1,
  parameter integer MW = 32, MF = 24, MS = 1,
  parameter integer SW = 32, SF = 22, SS = 0,
  parameter integer DW = 24, DF = 14, DS = 1,
  parameter integer AW = 16, AF = 13, AS = 1,
  parameter integer HW = 24, HF = 18, HS = 1, HR = 1, HO = 0,
  parameter integer GW = 24, GF = 14, GS = 1, GR = 1, GO = 0,
  parameter integer RW = 32, RF = 24, RS = 1,                    // row_mean (m1, m2)
  parameter integer OW = 24, OF = 14, OS = 1, OR = 1, OO = 0     // dx
) (
  input  wire [XW-1:0] x,
  input  wire [MW-1:0] mean,
  input  wire [SW-1:0] rstd,
  input  wire [DW-1:0] dy,
  input  wire [AW-1:0] gamma,
  /* verilator lint_off UNUSEDSIGNAL */  // RMSNorm: no m1
  input  wire [RW-1:0] m1,
  /* verilator lint_on UNUSEDSIGNAL */
  input  wire [RW-1:0] m2,
  output wire [OW-1:0] dx,
  output wire          dx_overflow
);
  wire [HW-1:0] xhat;
  wire [GW-1:0] g;
  /* verilator lint_off UNUSEDSIGNAL */  // the row-sum lane counted these roundings
  wire xhat_overflow, g_overflow;
  /* verilator lint_on UNUSEDSIGNAL */
  backward_operands #(.KIND(KIND), .STORED(STORED), .XW(XW), .XF(XF), .XS(XS), .MW(MW), .MF(MF), .MS(MS),
                      .SW(SW), .SF(SF), .SS(SS), .DW(DW), .DF(DF), .DS(DS), .AW(AW), .AF(AF), .AS(AS),
                      .HW(HW), .HF(HF), .HS(HS), .HR(HR), .HO(HO), .GW(GW), .GF(GF), .GS(GS), .GR(GR), .GO(GO))
    ops (.x(x), .mean(mean), .rstd(rstd), .dy(dy), .gamma(gamma), .xhat(xhat), .g(g),
         .xhat_overflow(xhat_overflow), .g_overflow(g_overflow));
  wire signed [GW:0] gs = {GS != 0 ? g[GW-1] : 1'b0, g};
  wire signed [HW:0] hs = {HS != 0 ? xhat[HW-1] : 1'b0, xhat};
  wire signed [RW:0] m1s = KIND != 0 ? {(RW + 1){1'b0}} : {RS != 0 ? m1[RW-1] : 1'b0, m1};
  wire signed [RW:0] m2s = {RS != 0 ? m2[RW-1] : 1'b0, m2};
  wire signed [SW:0] ss = {SS != 0 ? rstd[SW-1] : 1'b0, rstd};
  // g - m1 - x_hat m2 at FI fraction bits.
  localparam integer FI0 = GF > RF ? GF : RF;
  localparam integer FI = FI0 > HF + RF ? FI0 : HF + RF;
  localparam integer WA = GW + 1 + FI - GF, WB = RW + 1 + FI - RF, WC = HW + RW + 2 + FI - HF - RF;
  localparam integer WI = (WA > WB ? (WA > WC ? WA : WC) : (WB > WC ? WB : WC)) + 2;
  wire signed [HW+RW+1:0] hm = hs * m2s;
  wire signed [WI-1:0] inner = (gs <<< (FI - GF)) - (m1s <<< (FI - RF)) - (hm <<< (FI - HF - RF));
  wire signed [WI+SW:0] p = inner * ss;
  fx_requant #(.IN_W(WI + SW + 1), .SHIFT(FI + SF - OF), .OUT_W(OW), .OUT_S(OS), .ROUND(OR), .OVF(OO))
    q_dx (.in(p), .out(dx), .overflow(dx_overflow));
endmodule
