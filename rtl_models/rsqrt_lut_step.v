/* verilator lint_off WIDTH */  // operands widen by Verilog's context rules, on purpose
// The lut_step RSQRT unit, pipelined: 1/sqrt(v) for v in the rsqrt_in format
// from a table of narrow seeds and one Newton-Raphson step in error form
// (the table, squarer and multiply-accumulate of Schulte & Wires,
// "High-Speed Inverse Square Roots", ARITH 1999):
//   stage 0  leading-zero normalise v = m 2^k (k even, m in [1, 4)), the seed
//            y0 (u1.(TB+2)) from the table indexed by (parity, the TB-1 bits
//            below the leading one)
//   stage 1  e = 1 - m y0^2: a TB+3-bit squarer and m times it, exact, then
//            rounded half-even into s(NR-TB+4).NR (|e| < 2^(2-TB))
//   stage 2  y1 = y0 + y0 e / 2: a narrow TB+3 x (NR-TB+4) product, rounded
//            half-even into the iterate s(NR+3).NR
//   stage 3  y1 2^(-k/2), rounded once into the rsqrt_out format
// v <= 0 gives the format's maximum with the overflow flag. Latency 4
// cycles, one result per cycle. sim/core rsqrt_lut_step(), bit for bit.
module rsqrt_lut_step #(
  parameter integer IW = 40, IF = 28, IS = 0,                 // rsqrt_in
  parameter integer OW = 32, OF = 22, OS = 0, OR = 1, OO = 0, // rsqrt_out
  parameter integer TB = 10,                                  // table index bits
  parameter integer NR = 26                                   // fraction bits of e and y1
) (
  input  wire          clk,
  input  wire          in_valid,
  input  wire [IW-1:0] in,
  output wire          out_valid,
  output wire [OW-1:0] out,
  output wire          overflow
);
  localparam integer PW = 8;            // bit positions and exponents
  localparam integer SF = TB + 2;       // seed fraction bits
  localparam integer SW = SF + 1;       // seed word: u1.SF
  localparam integer EW = NR - TB + 4;  // e: s(EW).NR
  localparam integer YW = NR + 3;       // y1: s2.NR
  localparam integer PF = IW - 1 + 2 * SF;  // fraction bits of m y0^2

  // --- stage 0: normalise and seed ------------------------------------------------
  wire positive;
  wire [IW-1:0] unused_mant;  // the newton unit's linear seed reads it
  wire [IW:0] m_in;
  wire signed [PW:0] half_k;
  wire [TB-1:0] index;
  rsqrt_operand #(.IW(IW), .IF(IF), .IS(IS), .TB(TB), .PW(PW))
    operand (.in(in), .positive(positive), .mant(unused_mant), .m(m_in), .half_k(half_k), .index(index));
  wire [SW-1:0] seed;
  rsqrt_seed_rom rom (.index(index), .value(seed));
  reg [SW-1:0] y0_q;
  reg [IW:0] m_q;                    // m = mant 2^parity at IW-1 fraction bits, in [1, 4)
  reg signed [PW:0] hk_q [0:2];      // k / 2, down the pipeline
  reg pos_q [0:2];
  reg valid_q [0:3];
  always @(posedge clk) begin
    y0_q <= seed;
    m_q <= m_in;
    hk_q[0] <= half_k;
    pos_q[0] <= positive;
    valid_q[0] <= in_valid;
  end

  // --- stage 1: e = 1 - m y0^2 ----------------------------------------------------
  wire [2*SW-1:0] sq = y0_q * y0_q;                         // 2 SF fraction bits, exact
  wire [IW+2*SW:0] p = m_q * sq;                            // PF fraction bits, exact
  localparam [IW+2*SW:0] ONE = {{(IW+2*SW){1'b0}}, 1'b1} << PF;
  wire signed [IW+2*SW+1:0] e_exact = $signed({1'b0, ONE}) - $signed({1'b0, p});
  wire [EW-1:0] e_next;
  wire unused_e_ovf;
  fx_requant #(.IN_W(IW + 2 * SW + 2), .SHIFT(PF - NR), .OUT_W(EW), .OUT_S(1), .ROUND(1), .OVF(0))
    q_e (.in(e_exact), .out(e_next), .overflow(unused_e_ovf));
  reg [SW-1:0] y0_q1;
  reg signed [EW-1:0] e_q;
  always @(posedge clk) begin
    e_q <= e_next;
    y0_q1 <= y0_q;
    hk_q[1] <= hk_q[0];
    pos_q[1] <= pos_q[0];
    valid_q[1] <= valid_q[0];
  end

  // --- stage 2: y1 = y0 + y0 e / 2 ------------------------------------------------
  localparam integer XW = SW + NR + 4;                       // holds y0 2^(NR+1) and y0 e
  wire signed [SW+EW:0] ye = $signed({1'b0, y0_q1}) * e_q;   // SF + NR fraction bits
  wire signed [XW-1:0] y1_exact = ($signed({1'b0, y0_q1}) <<< (NR + 1)) + ye;  // SF + NR + 1
  wire [YW-1:0] y1_next;
  wire unused_y1_ovf;
  fx_requant #(.IN_W(XW), .SHIFT(SF + 1), .OUT_W(YW), .OUT_S(1), .ROUND(1), .OVF(0))
    q_y1 (.in(y1_exact), .out(y1_next), .overflow(unused_y1_ovf));
  reg [YW-1:0] y1_q;
  always @(posedge clk) begin
    y1_q <= y1_next;
    hk_q[2] <= hk_q[1];
    pos_q[2] <= pos_q[1];
    valid_q[2] <= valid_q[1];
  end

  // --- stage 3: y1 2^(-k/2) into the output format --------------------------------
  wire [OW-1:0] q_out;
  wire q_ovf;
  rsqrt_scale #(.IW(IW), .IF(IF), .OW(OW), .OF(OF), .OS(OS), .OR(OR), .OO(OO), .NR(NR), .PW(PW))
    scale (.y(y1_q), .half_k(hk_q[2]), .positive(pos_q[2]), .out(q_out), .overflow(q_ovf));
  reg [OW-1:0] out_r;
  reg ovf_r;
  always @(posedge clk) begin
    out_r <= q_out;
    ovf_r <= q_ovf;
    valid_q[3] <= valid_q[2];
  end
  assign out = out_r;
  assign overflow = ovf_r;
  assign out_valid = valid_q[3];
endmodule
