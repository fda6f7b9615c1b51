// Requantise an exact two's-complement value into a fixed-point register:
// drop SHIFT fraction bits with the configured rounding, then range-limit.
// The rules are sim/core's quantize() (and SystemC sc_fix's):
//   ROUND 0 truncate  : floor (an arithmetic shift)
//   ROUND 1 half-even : nearest, ties to the even result
//   ROUND 2 half-away : nearest, ties away from zero
//   OVF   0 saturate  : clamp to the format's range;  1 wrap: keep the low OUT_W bits
// `overflow` is high when the rounded value is outside the format's range.
module fx_requant #(
  parameter integer IN_W = 32,
  parameter integer SHIFT = 8,      // fraction bits dropped (< 0: appended)
  parameter integer OUT_W = 16,
  parameter integer OUT_S = 1,      // 1: signed format
  parameter integer ROUND = 1,
  parameter integer OVF = 0
) (
  input  wire signed [IN_W-1:0]  in,
  output wire        [OUT_W-1:0] out,
  output wire                    overflow
);
  // Rounded value: one bit wider than the input (the round-up carry).
  localparam integer RW = IN_W - SHIFT + 1;
  wire signed [RW-1:0] rounded;
  generate
    if (SHIFT <= 0) begin : g_exact
      // Only zeros are appended: exact.
      assign rounded = {{(1 - SHIFT){in[IN_W-1]}}, in} <<< (-SHIFT);
    end else begin : g_round
      wire signed [IN_W-SHIFT-1:0] floor_v = in[IN_W-1:SHIFT];
      wire [SHIFT-1:0] rem = in[SHIFT-1:0];
      wire [SHIFT-1:0] half = {1'b1, {(SHIFT-1){1'b0}}};
      wire tie = rem == half;
      /* verilator lint_off CMPCONST */  // SHIFT 1: nothing lies above one half
      wire above = rem > half;
      /* verilator lint_on CMPCONST */
      wire up = ROUND == 0 ? 1'b0
              : ROUND == 1 ? (above | (tie & floor_v[0]))
              :              (above | (tie & ~in[IN_W-1]));
`ifdef NORMSIM_MUTATE_ROUNDING
      // Test-only: a one-bit change that the co-simulation must catch.
      wire up_m = ROUND == 1 ? (above | tie) : up;
      assign rounded = {floor_v[IN_W-SHIFT-1], floor_v} + {{(RW-1){1'b0}}, up_m};
`else
      assign rounded = {floor_v[IN_W-SHIFT-1], floor_v} + {{(RW-1){1'b0}}, up};
`endif
    end
  endgenerate

  // Range check in a width that holds both the value and the format's limits.
  localparam integer CW = (RW > OUT_W ? RW : OUT_W) + 2;
  wire signed [CW-1:0] v = {{(CW-RW){rounded[RW-1]}}, rounded};
  wire signed [CW-1:0] hi = OUT_S != 0 ? ((({{(CW-1){1'b0}}, 1'b1}) <<< (OUT_W-1)) - 1)
                                  : ((({{(CW-1){1'b0}}, 1'b1}) <<< OUT_W) - 1);
  wire signed [CW-1:0] lo = OUT_S != 0 ? -(({{(CW-1){1'b0}}, 1'b1}) <<< (OUT_W-1)) : {CW{1'b0}};
  wire fits = (v <= hi) && (v >= lo);
  assign overflow = ~fits;
  // saturated at the working width; its low OUT_W bits are the output
  /* verilator lint_off UNUSEDSIGNAL */
  wire [CW-1:0] clamped = fits ? v : (v < 0 ? lo : hi);
  /* verilator lint_on UNUSEDSIGNAL */
  assign out = OVF == 0 ? clamped[OUT_W-1:0] : v[OUT_W-1:0];
endmodule
