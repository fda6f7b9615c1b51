/* verilator lint_off WIDTH */  // operands widen by Verilog's context rules, on purpose
// The row-mean unit: the tree's two row sums as row means, m1 = q_row_mean(S1 / C)
// and m2 = q_row_mean(S2 / C) (KIND 1, RMSNorm: m2 only, m1 held at zero).
// Where C is a power of two (POW2 1) the division is wiring, LOG2C more
// fraction bits; else a multiply by the table's 1/C. sim/core row_mean(),
// bit for bit.
module row_mean #(
  parameter integer KIND = 0,
  parameter integer PW = 40, PF = 14, PS = 1,                    // S1 (sum_g)
  parameter integer QW = 40, QF = 18, QS = 1,                    // S2 (sum_gxhat)
  parameter integer CW = 32, CF = 31, CS = 0,                    // 1/C (the forward's recip format)
  parameter integer POW2 = 0, LOG2C = 0,
  parameter integer RW = 32, RF = 24, RS = 1, RR = 1, RO = 0     // row_mean
) (
  /* verilator lint_off UNUSEDSIGNAL */  // RMSNorm: no S1; POW2: no 1/C
  input  wire [PW-1:0] s1,
  input  wire [CW-1:0] recip,
  /* verilator lint_on UNUSEDSIGNAL */
  input  wire [QW-1:0] s2,
  output wire [RW-1:0] m1, m2,
  output wire          m1_overflow, m2_overflow
);
  generate
    if (KIND != 0) begin : g_rms
      assign m1 = {RW{1'b0}};
      assign m1_overflow = 1'b0;
    end else begin : g_m1
      row_mean_scale #(.NW(PW), .NF(PF), .NS(PS), .CW(CW), .CF(CF), .CS(CS), .POW2(POW2), .LOG2C(LOG2C),
                       .RW(RW), .RF(RF), .RS(RS), .RR(RR), .RO(RO))
        scale1 (.sum(s1), .recip(recip), .mean(m1), .overflow(m1_overflow));
    end
  endgenerate
  row_mean_scale #(.NW(QW), .NF(QF), .NS(QS), .CW(CW), .CF(CF), .CS(CS), .POW2(POW2), .LOG2C(LOG2C),
                   .RW(RW), .RF(RF), .RS(RS), .RR(RR), .RO(RO))
    scale2 (.sum(s2), .recip(recip), .mean(m2), .overflow(m2_overflow));
endmodule

// One sum: S / C rounded into the row_mean format.
/* verilator lint_off DECLFILENAME */
module row_mean_scale #(
  parameter integer NW = 40, NF = 14, NS = 1,
  parameter integer CW = 32, CF = 31, CS = 0,
  parameter integer POW2 = 0, LOG2C = 0,
  parameter integer RW = 32, RF = 24, RS = 1, RR = 1, RO = 0
) (
  input  wire [NW-1:0] sum,
  /* verilator lint_off UNUSEDSIGNAL */
  input  wire [CW-1:0] recip,
  /* verilator lint_on UNUSEDSIGNAL */
  output wire [RW-1:0] mean,
  output wire          overflow
);
/* verilator lint_on DECLFILENAME */
  wire signed [NW:0] ns = {NS != 0 ? sum[NW-1] : 1'b0, sum};
  generate
    if (POW2 != 0) begin : g_shift
      fx_requant #(.IN_W(NW + 1), .SHIFT(NF + LOG2C - RF), .OUT_W(RW), .OUT_S(RS), .ROUND(RR), .OVF(RO))
        q (.in(ns), .out(mean), .overflow(overflow));
    end else begin : g_mul
      wire signed [CW:0] cs = {CS != 0 ? recip[CW-1] : 1'b0, recip};
      wire signed [NW+CW+1:0] p = ns * cs;
      fx_requant #(.IN_W(NW + CW + 2), .SHIFT(NF + CF - RF), .OUT_W(RW), .OUT_S(RS), .ROUND(RR), .OVF(RO))
        q (.in(p), .out(mean), .overflow(overflow));
    end
  endgenerate
endmodule
