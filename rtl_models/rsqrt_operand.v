/* verilator lint_off WIDTH */  // operands widen by Verilog's context rules, on purpose
// An RSQRT unit's first stage, combinational: leading-zero normalise v = m 2^k
// (k even, m in [1, 4)) and the seed table's index (m >= 2, then the TB-1
// bits below the leading one). sim/core rsqrt_operand(), bit for bit.
module rsqrt_operand #(
  parameter integer IW = 40, IF = 28, IS = 0,  // rsqrt_in
  parameter integer TB = 8,                    // table index bits
  parameter integer PW = 8                     // bit positions and exponents
) (
  input  wire [IW-1:0]        in,
  output wire                 positive,
  output wire [IW-1:0]        mant,    // leading one at bit IW-1
  output wire [IW:0]          m,       // mant 2^parity at IW-1 fraction bits, in [1, 4)
  output wire signed [PW:0]   half_k,  // k / 2
  output wire [TB-1:0]        index
);
  localparam integer MB = TB - 1;  // mantissa bits of the table index
  assign positive = IS != 0 ? (~in[IW-1] && in != 0) : in != 0;
  reg [PW-1:0] lead;  // position of the leading one
  integer i;
  always @* begin
    lead = 0;
    for (i = 0; i < IW; i = i + 1) if (in[i]) lead = i;
  end
  assign mant = in << (IW - 1 - lead);
  wire signed [PW:0] e = $signed({1'b0, lead}) - IF;  // v in [2^e, 2^(e+1))
  wire parity = e[0];                                 // k = e rounded down to even
  assign half_k = e >>> 1;
  assign m = {1'b0, mant} << parity;
  generate
    if (MB > 0) begin : g_index
      assign index = {parity, mant[IW-2 -: MB]};
    end else begin : g_index_parity
      assign index = parity;
    end
  endgenerate
endmodule
