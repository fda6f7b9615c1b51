// The RSQRT unit the design builds (arch rsqrt.unit, sim/core RsqrtUnitKind):
//   UNIT 0  newton: a seed and ITER Newton steps (rsqrt_newton.v), ITER + 2 + SEED stages
//   UNIT 1  lut_step: 2^TB narrow seeds and one step in error form (rsqrt_lut_step.v), 4 stages
// Either reads the arch's rsqrt_seed_rom and answers one operand a cycle.
module rsqrt #(
  parameter integer IW = 40, IF = 28, IS = 0,                 // rsqrt_in
  parameter integer OW = 32, OF = 22, OS = 0, OR = 1, OO = 0, // rsqrt_out
  parameter integer TB = 8, ITER = 2, NR = 28, SEED = 0,      // the table, newton's steps and seed
  parameter integer UNIT = 0
) (
  input  wire          clk,
  input  wire          in_valid,
  input  wire [IW-1:0] in,
  output wire          out_valid,
  output wire [OW-1:0] out,
  output wire          overflow
);
  generate
    if (UNIT == 1) begin : g_lut_step
      rsqrt_lut_step #(.IW(IW), .IF(IF), .IS(IS), .OW(OW), .OF(OF), .OS(OS), .OR(OR), .OO(OO), .TB(TB), .NR(NR))
        u (.clk(clk), .in_valid(in_valid), .in(in), .out_valid(out_valid), .out(out), .overflow(overflow));
    end else begin : g_newton
      rsqrt_newton #(.IW(IW), .IF(IF), .IS(IS), .OW(OW), .OF(OF), .OS(OS), .OR(OR), .OO(OO), .TB(TB), .ITER(ITER),
                     .NR(NR), .SEED(SEED))
        u (.clk(clk), .in_valid(in_valid), .in(in), .out_valid(out_valid), .out(out), .overflow(overflow));
    end
  endgenerate
endmodule
