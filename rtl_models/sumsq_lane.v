/* verilator lint_off WIDTH */  // operands widen by Verilog's context rules, on purpose
// A square-sum lane (RMSNorm): acc' = q_sumsq(acc + x^2), one element per
// cycle; `start` clears it. sim/core's RMSNorm lane accumulation.
module sumsq_lane #(
  parameter integer XW = 24, XF = 14, XS = 1,
  parameter integer SW = 48, SF = 28, SS = 0, SR = 1, SO = 0
) (
  input  wire          clk,
  input  wire          start,
  input  wire          in_valid,
  input  wire [XW-1:0] x,
  output reg  [SW-1:0] acc,
  output reg           overflow
);
  wire signed [XW:0] xs = {XS != 0 ? x[XW-1] : 1'b0, x};
  localparam integer PF = 2 * XF > SF ? 2 * XF : SF;
  localparam integer AW = (2 * XW + 2 + PF - 2 * XF > SW + 1 + PF - SF ? 2 * XW + 2 + PF - 2 * XF : SW + 1 + PF - SF) + 1;
  wire signed [SW:0] as = {SS != 0 ? acc[SW-1] : 1'b0, acc};
  wire signed [AW-1:0] sq = xs * xs;
  wire signed [AW-1:0] s = (as <<< (PF - SF)) + (sq <<< (PF - 2 * XF));
  wire [SW-1:0] next;
  wire ovf;
  fx_requant #(.IN_W(AW), .SHIFT(PF - SF), .OUT_W(SW), .OUT_S(SS), .ROUND(SR), .OVF(SO)) q (.in(s), .out(next), .overflow(ovf));
  always @(posedge clk) begin
    if (start) begin
      acc <= 0;
      overflow <= 1'b0;
    end else if (in_valid) begin
      acc <= next;
      overflow <= ovf;
    end
  end
endmodule
