/* verilator lint_off WIDTH */  // operands widen by Verilog's context rules, on purpose
// q(a + b) in one format: the adder-tree node of the sum / square-sum paths
// (sim/core: quantize_stage(add(a, b))).
module fx_add #(
  parameter integer W = 48, S = 0, R = 1, O = 0
) (
  input  wire [W-1:0] a, b,
  output wire [W-1:0] sum,
  output wire         overflow
);
  wire signed [W:0] as = {S != 0 ? a[W-1] : 1'b0, a};
  wire signed [W:0] bs = {S != 0 ? b[W-1] : 1'b0, b};
  wire signed [W+1:0] s = as + bs;
  fx_requant #(.IN_W(W + 2), .SHIFT(0), .OUT_W(W), .OUT_S(S), .ROUND(R), .OVF(O)) q (.in(s), .out(sum), .overflow(overflow));
endmodule
