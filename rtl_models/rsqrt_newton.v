/* verilator lint_off WIDTH */  // operands widen by Verilog's context rules, on purpose
// The newton RSQRT unit, pipelined: 1/sqrt(v) for v in the rsqrt_in format.
//   stage 0      leading-zero normalise v = m 2^k (k even, m in [1, 4)), seed
//                y0 from the table indexed by (parity, the TB-1 bits below the
//                leading one)
//   (SEED 1)     the ROM holds a line an interval: y0 = c0 + c1 t, t the NR
//                mantissa bits below the index, rounded once (a stage of its own)
//   stages 1..N  one Newton-Raphson step each, y' = y (3 - m y^2) / 2, every
//                product rounded into the iterate format s(NR+3).NR half-even
//   stage N+1    y 2^(-k/2), rounded once into the rsqrt_out format
// v <= 0 gives the format's maximum with the overflow flag. Latency N + 2
// (+1 with SEED 1) cycles, one result per cycle. sim/core rsqrt_nr(), bit for bit.
module rsqrt_newton #(
  parameter integer IW = 40, IF = 28, IS = 0,                 // rsqrt_in
  parameter integer OW = 32, OF = 22, OS = 0, OR = 1, OO = 0, // rsqrt_out
  parameter integer TB = 8,                                   // seed table index bits
  parameter integer ITER = 2,                                 // Newton steps
  parameter integer NR = 28,                                  // iterate fraction bits
  parameter integer SEED = 0                                  // 0: a table value, 1: a line an interval
) (
  input  wire          clk,
  input  wire          in_valid,
  input  wire [IW-1:0] in,
  output wire          out_valid,
  output wire [OW-1:0] out,
  output wire          overflow
);
  localparam integer YW = NR + 3;       // iterate: sign, two integer bits, NR fraction bits
  localparam integer PW = 8;            // bit positions and exponents
  localparam integer MB = TB - 1;       // mantissa bits of the table index

  // --- stage 0: normalise and seed ------------------------------------------------
  wire positive;
  /* verilator lint_off UNUSEDSIGNAL */  // the linear seed's t only
  wire [IW-1:0] mant;
  /* verilator lint_on UNUSEDSIGNAL */
  wire [IW:0] m_in;
  wire signed [PW:0] half_k;
  wire [TB-1:0] index;
  rsqrt_operand #(.IW(IW), .IF(IF), .IS(IS), .TB(TB), .PW(PW))
    operand (.in(in), .positive(positive), .mant(mant), .m(m_in), .half_k(half_k), .index(index));
  reg [YW-1:0] y_q [0:ITER];
  reg [IW:0] m_q [0:ITER];          // m = mant 2^parity at IW-1 fraction bits, in [1, 4)
  reg signed [PW:0] hk_q [0:ITER];
  reg pos_q [0:ITER];
  reg valid_q [0:ITER+1];
  generate
    if (SEED == 0) begin : g_table_seed
      wire [YW-1:0] seed;
      rsqrt_seed_rom rom (.index(index), .value(seed));
      always @(posedge clk) begin
        y_q[0] <= seed;
        m_q[0] <= m_in;
        hk_q[0] <= half_k;
        pos_q[0] <= positive;
        valid_q[0] <= in_valid;
      end
    end else begin : g_linear_seed
      // t: the NR bits below the index (lower bits dropped, or zeros appended).
      localparam integer RB = IW - 1 - MB;  // mantissa bits below the index
      wire [NR-1:0] t;
      if (RB >= NR) begin : g_t_cut
        assign t = mant[RB-1 -: NR];
      end else if (RB > 0) begin : g_t_pad
        assign t = {mant[RB-1:0], {(NR-RB){1'b0}}};
      end else begin : g_t_none
        assign t = {NR{1'b0}};
      end
      wire [2*YW-1:0] line;  // {c0, c1}
      rsqrt_seed_rom rom (.index(index), .value(line));
      reg signed [YW-1:0] c0_q, c1_q;
      reg [NR-1:0] t_q;
      reg [IW:0] m_s;
      reg signed [PW:0] hk_s;
      reg pos_s, valid_s;
      always @(posedge clk) begin
        c0_q <= line[2*YW-1:YW];
        c1_q <= line[YW-1:0];
        t_q <= t;
        m_s <= m_in;
        hk_s <= half_k;
        pos_s <= positive;
        valid_s <= in_valid;
      end
      // y0 = c0 + c1 t at 2 NR fraction bits, rounded half-even into the iterate.
      wire signed [YW+NR:0] c1t = c1_q * $signed({1'b0, t_q});
      wire signed [YW+NR+1:0] y0_exact = ($signed({c0_q, {NR{1'b0}}})) + c1t;
      wire [YW-1:0] y0;
      wire unused_y0_ovf;
      fx_requant #(.IN_W(YW + NR + 2), .SHIFT(NR), .OUT_W(YW), .OUT_S(1), .ROUND(1), .OVF(0))
        q_y0 (.in(y0_exact), .out(y0), .overflow(unused_y0_ovf));
      always @(posedge clk) begin
        y_q[0] <= y0;
        m_q[0] <= m_s;
        hk_q[0] <= hk_s;
        pos_q[0] <= pos_s;
        valid_q[0] <= valid_s;
      end
    end
  endgenerate

  // --- stages 1..ITER: Newton-Raphson -------------------------------------------
  genvar s;
  generate
    for (s = 0; s < ITER; s = s + 1) begin : g_nr
      wire signed [YW-1:0] y = y_q[s];
      wire signed [2*YW-1:0] yy = y * y;                          // 2 NR fraction bits
      wire [YW-1:0] y2;
      wire unused_y2_ovf, unused_my2_ovf, unused_yn_ovf;
      fx_requant #(.IN_W(2 * YW), .SHIFT(NR), .OUT_W(YW), .OUT_S(1), .ROUND(1), .OVF(0))
        q_y2 (.in(yy), .out(y2), .overflow(unused_y2_ovf));
      wire signed [IW+1:0] m = {1'b0, m_q[s]};
      wire signed [IW+YW+1:0] my = m * $signed(y2);               // IW-1+NR fraction bits
      wire [YW-1:0] my2;
      fx_requant #(.IN_W(IW + YW + 2), .SHIFT(IW - 1), .OUT_W(YW), .OUT_S(1), .ROUND(1), .OVF(0))
        q_my2 (.in(my), .out(my2), .overflow(unused_my2_ovf));
      wire signed [YW+1:0] three_minus = ($signed({3'b011, {NR{1'b0}}})) - $signed(my2);
      wire signed [2*YW+2:0] yt = y * three_minus;                // 2 NR + 1 fraction bits with the /2
      wire [YW-1:0] y_next;
      fx_requant #(.IN_W(2 * YW + 3), .SHIFT(NR + 1), .OUT_W(YW), .OUT_S(1), .ROUND(1), .OVF(0))
        q_yn (.in(yt), .out(y_next), .overflow(unused_yn_ovf));
      always @(posedge clk) begin
        y_q[s+1] <= y_next;
        m_q[s+1] <= m_q[s];
        hk_q[s+1] <= hk_q[s];
        pos_q[s+1] <= pos_q[s];
        valid_q[s+1] <= valid_q[s];
      end
    end
  endgenerate

  // --- stage ITER+1: y 2^(-k/2) into the output format --------------------------
  wire [OW-1:0] q_out;
  wire q_ovf;
  rsqrt_scale #(.IW(IW), .IF(IF), .OW(OW), .OF(OF), .OS(OS), .OR(OR), .OO(OO), .NR(NR), .PW(PW))
    scale (.y(y_q[ITER]), .half_k(hk_q[ITER]), .positive(pos_q[ITER]), .out(q_out), .overflow(q_ovf));
  reg [OW-1:0] out_r;
  reg ovf_r;
  always @(posedge clk) begin
    out_r <= q_out;
    ovf_r <= q_ovf;
    valid_q[ITER+1] <= valid_q[ITER];
  end
  assign out = out_r;
  assign overflow = ovf_r;
  assign out_valid = valid_q[ITER+1];
endmodule
