// A Welford lane: one element per cycle into (count, mean, M2) registers,
// the reciprocal 1/(count+1) read from the count-indexed table
// (welford_recip_rom, generated from sim/core's make_recip_table for the
// row length, so no divider). `start`
// clears the lane for a new row; the overflow flags belong to the last update.
module welford_lane #(
  parameter integer NW = 16,                                    // count width
  parameter integer XW = 24, XF = 14, XS = 1,
  parameter integer MW = 32, MF = 24, MS = 1, MR = 1, MO = 0,
  parameter integer QW = 48, QF = 24, QS = 1, QR = 1, QO = 0,
  parameter integer RW = 32, RF = 31, RS = 0
) (
  input  wire          clk,
  input  wire          start,
  input  wire          in_valid,
  input  wire [XW-1:0] x,
  output reg  [NW-1:0] count,
  output reg  [MW-1:0] mean,
  output reg  [QW-1:0] m2,
  output reg           mean_overflow,
  output reg           m2_overflow
);
  wire [RW-1:0] recip;
  wire [NW-1:0] next_count = count + 1'b1;
  welford_recip_rom rom (.n(next_count), .value(recip));
  wire [MW-1:0] mean_next;
  wire [QW-1:0] m2_next;
  wire mo, qo;
  welford_update #(.XW(XW), .XF(XF), .XS(XS), .MW(MW), .MF(MF), .MS(MS), .MR(MR), .MO(MO),
                   .QW(QW), .QF(QF), .QS(QS), .QR(QR), .QO(QO), .RW(RW), .RF(RF), .RS(RS))
    update (.x(x), .mean(mean), .m2(m2), .recip(recip), .mean_next(mean_next), .m2_next(m2_next),
            .mean_overflow(mo), .m2_overflow(qo));
  always @(posedge clk) begin
    if (start) begin
      count <= 0;
      mean <= 0;
      m2 <= 0;
      mean_overflow <= 1'b0;
      m2_overflow <= 1'b0;
    end else if (in_valid) begin
      count <= next_count;
      mean <= mean_next;
      m2 <= m2_next;
      mean_overflow <= mo;
      m2_overflow <= qo;
    end
  end
endmodule
