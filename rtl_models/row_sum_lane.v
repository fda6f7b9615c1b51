/* verilator lint_off WIDTH */  // operands widen by Verilog's context rules, on purpose
// A backward row-sum lane: one element a cycle, its x_hat and g from
// backward_operands, then s1' = q_sum_g(s1 + g) (LayerNorm only) and
// s2' = q_sum_gxhat(s2 + g x_hat), the product exact before the one rounding;
// `start` clears both. x_hat and g leave for the parameter-gradient
// accumulator. sim/core backward_operands() and row_sum_update(), bit for bit.
module row_sum_lane #(
  parameter integer KIND = 0, STORED = 0,
  parameter integer XW = 24, XF = 14, XS = 1,
  parameter integer MW = 32, MF = 24, MS = 1,
  parameter integer SW = 32, SF = 22, SS = 0,
  parameter integer DW = 24, DF = 14, DS = 1,
  parameter integer AW = 16, AF = 13, AS = 1,
  parameter integer HW = 24, HF = 18, HS = 1, HR = 1, HO = 0,
  parameter integer GW = 24, GF = 14, GS = 1, GR = 1, GO = 0,
  parameter integer PW = 40, PF = 14, PS = 1, PR = 1, PO = 0,    // sum_g (S1)
  parameter integer QW = 40, QF = 18, QS = 1, QR = 1, QO = 0     // sum_gxhat (S2)
) (
  input  wire          clk,
  input  wire          start,
  input  wire          in_valid,
  input  wire [XW-1:0] x,
  input  wire [MW-1:0] mean,
  input  wire [SW-1:0] rstd,
  input  wire [DW-1:0] dy,
  input  wire [AW-1:0] gamma,
  output wire [HW-1:0] xhat,
  output wire [GW-1:0] g,
  output wire          xhat_overflow, g_overflow,
  output reg  [PW-1:0] s1,
  output reg  [QW-1:0] s2,
  output reg           s1_overflow, s2_overflow
);
  backward_operands #(.KIND(KIND), .STORED(STORED), .XW(XW), .XF(XF), .XS(XS), .MW(MW), .MF(MF), .MS(MS),
                      .SW(SW), .SF(SF), .SS(SS), .DW(DW), .DF(DF), .DS(DS), .AW(AW), .AF(AF), .AS(AS),
                      .HW(HW), .HF(HF), .HS(HS), .HR(HR), .HO(HO), .GW(GW), .GF(GF), .GS(GS), .GR(GR), .GO(GO))
    ops (.x(x), .mean(mean), .rstd(rstd), .dy(dy), .gamma(gamma), .xhat(xhat), .g(g),
         .xhat_overflow(xhat_overflow), .g_overflow(g_overflow));
  wire signed [GW:0] gs = {GS != 0 ? g[GW-1] : 1'b0, g};
  wire signed [HW:0] hs = {HS != 0 ? xhat[HW-1] : 1'b0, xhat};

  // S1 + g at F1 fraction bits.
  localparam integer F1 = PF > GF ? PF : GF;
  localparam integer W1 = (PW + 1 + F1 - PF > GW + 1 + F1 - GF ? PW + 1 + F1 - PF : GW + 1 + F1 - GF) + 1;
  wire signed [PW:0] s1s = {PS != 0 ? s1[PW-1] : 1'b0, s1};
  wire signed [W1-1:0] sum1 = (s1s <<< (F1 - PF)) + (gs <<< (F1 - GF));
  wire [PW-1:0] s1_next;
  wire ovf1;
  fx_requant #(.IN_W(W1), .SHIFT(F1 - PF), .OUT_W(PW), .OUT_S(PS), .ROUND(PR), .OVF(PO))
    q_s1 (.in(sum1), .out(s1_next), .overflow(ovf1));

  // S2 + g x_hat at F2 fraction bits.
  localparam integer F2 = QF > GF + HF ? QF : GF + HF;
  localparam integer W2 = (QW + 1 + F2 - QF > GW + HW + 2 + F2 - GF - HF ? QW + 1 + F2 - QF : GW + HW + 2 + F2 - GF - HF) + 1;
  wire signed [QW:0] s2s = {QS != 0 ? s2[QW-1] : 1'b0, s2};
  wire signed [GW+HW+1:0] gx = gs * hs;
  wire signed [W2-1:0] sum2 = (s2s <<< (F2 - QF)) + (gx <<< (F2 - GF - HF));
  wire [QW-1:0] s2_next;
  wire ovf2;
  fx_requant #(.IN_W(W2), .SHIFT(F2 - QF), .OUT_W(QW), .OUT_S(QS), .ROUND(QR), .OVF(QO))
    q_s2 (.in(sum2), .out(s2_next), .overflow(ovf2));

  always @(posedge clk) begin
    if (start) begin
      s1 <= 0;
      s2 <= 0;
      s1_overflow <= 1'b0;
      s2_overflow <= 1'b0;
    end else if (in_valid) begin
      s1 <= KIND != 0 ? {PW{1'b0}} : s1_next;  // RMSNorm has no S1
      s2 <= s2_next;
      s1_overflow <= KIND != 0 ? 1'b0 : ovf1;
      s2_overflow <= ovf2;
    end
  end
endmodule
