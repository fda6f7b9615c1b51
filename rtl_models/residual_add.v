/* verilator lint_off WIDTH */  // operands widen by Verilog's context rules, on purpose
// The residual adder in front of a fused unit's lanes, one lane:
// z = q((keep ? x s : 0) + r) with x (the branch), r (the residual) and s
// (the dropout scale 1/(1-p)) in the adder's format, the product and the sum
// exact before the one rounding; DROPOUT 0 (no mask): z = q(x + r), no
// multiplier. sim/core residual_add_fixed(), bit for bit.
module residual_add #(
  parameter integer W = 24, F = 14, S = 1, R = 1, O = 0,  // the adder's format
  parameter integer DROPOUT = 1
) (
  input  wire [W-1:0] x, r,
  // the dropout operands; unread when DROPOUT = 0 (one port list for both)
  /* verilator lint_off UNUSEDSIGNAL */
  input  wire [W-1:0] scale,
  input  wire         keep,
  /* verilator lint_on UNUSEDSIGNAL */
  output wire [W-1:0] z,
  output wire         overflow
);
  wire signed [W:0] xs = {S != 0 ? x[W-1] : 1'b0, x};
  wire signed [W:0] rs = {S != 0 ? r[W-1] : 1'b0, r};
  /* verilator lint_off UNUSEDSIGNAL */
  wire signed [W:0] ss = {S != 0 ? scale[W-1] : 1'b0, scale};
  /* verilator lint_on UNUSEDSIGNAL */
  generate
    if (DROPOUT != 0) begin : g_dropout
      // x s at 2F fraction bits (a signed product of its own: inside the
      // select, the zero's unsigned width would make it unsigned); r aligned to it.
      wire signed [2*W+1:0] prod = xs * ss;
      wire signed [2*W+1:0] p = keep ? prod : {(2 * W + 2){1'b0}};
      wire signed [2*W+2:0] sum = p + (rs <<< F);
      fx_requant #(.IN_W(2 * W + 3), .SHIFT(F), .OUT_W(W), .OUT_S(S), .ROUND(R), .OVF(O))
        q (.in(sum), .out(z), .overflow(overflow));
    end else begin : g_plain
      wire signed [W+1:0] sum = xs + rs;
      fx_requant #(.IN_W(W + 2), .SHIFT(0), .OUT_W(W), .OUT_S(S), .ROUND(R), .OVF(O))
        q (.in(sum), .out(z), .overflow(overflow));
    end
  endgenerate
endmodule
