/* verilator lint_off WIDTH */  // operands widen by Verilog's context rules, on purpose
// An RSQRT unit's last stage, combinational: the iterate y (s2.NR) times
// 2^(-k/2), rounded once into the rsqrt_out format; a non-positive input
// gives the format's maximum with the overflow flag. k/2 lies in
// [KMIN, KMAX] for an input of the rsqrt_in format, so y << (KMAX - k/2)
// holds the product exactly at FR fraction bits.
module rsqrt_scale #(
  parameter integer IW = 40, IF = 28,                         // rsqrt_in
  parameter integer OW = 32, OF = 22, OS = 0, OR = 1, OO = 0, // rsqrt_out
  parameter integer NR = 28,                                  // iterate fraction bits
  parameter integer PW = 8
) (
  input  wire [NR+2:0]       y,
  input  wire signed [PW:0]  half_k,
  input  wire                positive,
  output wire [OW-1:0]       out,
  output wire                overflow
);
  localparam integer YW = NR + 3;
  localparam integer EMIN = -IF, EMAX = IW - 1 - IF;
  localparam integer KMAX = EMAX >= 0 ? EMAX / 2 : -((-EMAX + 1) / 2);
  localparam integer KMIN = EMIN >= 0 ? EMIN / 2 : -((-EMIN + 1) / 2);
  localparam integer FR = NR + KMAX > OF ? NR + KMAX : OF;
  localparam integer VW = YW + FR - NR - KMIN + 1;
  wire signed [VW-1:0] v = $signed(y) <<< (FR - NR - half_k);
  wire [OW-1:0] q_out;
  wire q_ovf;
  fx_requant #(.IN_W(VW), .SHIFT(FR - OF), .OUT_W(OW), .OUT_S(OS), .ROUND(OR), .OVF(OO))
    q_out_u (.in(v), .out(q_out), .overflow(q_ovf));
  localparam [OW-1:0] OUT_MAX = OS != 0 ? {1'b0, {(OW-1){1'b1}}} : {OW{1'b1}};
  assign out = positive ? q_out : OUT_MAX;
  assign overflow = positive ? q_ovf : 1'b1;
endmodule
