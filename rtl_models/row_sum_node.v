// A node of the backward's adder tree: S1 and S2 of two lanes (or subtrees)
// added, each rounded into its format (KIND 1, RMSNorm: S2 only, S1 held at
// zero). sim/core backward_add(), bit for bit.
module row_sum_node #(
  parameter integer KIND = 0,
  parameter integer PW = 40, PS = 1, PR = 1, PO = 0,             // sum_g (S1)
  parameter integer QW = 40, QS = 1, QR = 1, QO = 0              // sum_gxhat (S2)
) (
  /* verilator lint_off UNUSEDSIGNAL */  // RMSNorm: no S1
  input  wire [PW-1:0] s1_a, s1_b,
  /* verilator lint_on UNUSEDSIGNAL */
  input  wire [QW-1:0] s2_a, s2_b,
  output wire [PW-1:0] s1,
  output wire [QW-1:0] s2,
  output wire          s1_overflow, s2_overflow
);
  generate
    if (KIND != 0) begin : g_rms
      assign s1 = {PW{1'b0}};
      assign s1_overflow = 1'b0;
    end else begin : g_ln
      fx_add #(.W(PW), .S(PS), .R(PR), .O(PO)) add1 (.a(s1_a), .b(s1_b), .sum(s1), .overflow(s1_overflow));
    end
  endgenerate
  fx_add #(.W(QW), .S(QS), .R(QR), .O(QO)) add2 (.a(s2_a), .b(s2_b), .sum(s2), .overflow(s2_overflow));
endmodule
