// The dropout mask generator of a fused residual unit: Philox4x32-10
// (Salmon, Moraes, Dror, Shaw, SC 2011), one round a pipeline stage, four
// 32-bit words a cycle for the four elements of counter (element index / 4),
// each kept when it is >= threshold -- the bits of
// sim/core/dropout_mask.hpp's dropout_words and dropout_keep.
//
// The counter is {c3, c2, c1, c0} = {0, stream, counter[63:32],
// counter[31:0]}, the key {k1, k0} = the seed; a round is
//   (c0, c1, c2, c3) <- (hi(M1 c2) ^ c1 ^ k0, lo(M1 c2), hi(M0 c0) ^ c3 ^ k1, lo(M0 c0))
// and the key advances by the Weyl constants after each. Latency ROUNDS
// cycles, one result a cycle.
module philox_mask #(
    parameter ROUNDS = 10
) (
    input wire clk,
    input wire in_valid,
    input wire [63:0] key,
    input wire [63:0] counter,
    input wire [31:0] stream,
    input wire [31:0] threshold,
    output wire out_valid,
    output wire [127:0] words,  // {word 3, word 2, word 1, word 0}
    output wire [3:0] keep      // keep[j]: word j >= threshold
);
  localparam [31:0] M0 = 32'hD2511F53, M1 = 32'hCD9E8D57;
  localparam [31:0] W0 = 32'h9E3779B9, W1 = 32'hBB67AE85;

  wire [127:0] state[0:ROUNDS];
  wire [63:0] round_key[0:ROUNDS];
  wire [31:0] limit[0:ROUNDS];
  wire valid[0:ROUNDS];
  assign state[0] = {32'd0, stream, counter};
  assign round_key[0] = key;
  assign limit[0] = threshold;
  assign valid[0] = in_valid;

  genvar i;
  generate
    for (i = 0; i < ROUNDS; i = i + 1) begin : round
      wire [31:0] c0 = state[i][31:0], c1 = state[i][63:32], c2 = state[i][95:64], c3 = state[i][127:96];
      wire [31:0] k0 = round_key[i][31:0], k1 = round_key[i][63:32];
      wire [63:0] p0 = {32'd0, M0} * {32'd0, c0};
      wire [63:0] p1 = {32'd0, M1} * {32'd0, c2};
      reg [127:0] state_q;
      reg [63:0] key_q;
      reg [31:0] limit_q;
      reg valid_q;
      always @(posedge clk) begin
        state_q <= {p0[31:0], p0[63:32] ^ c3 ^ k1, p1[31:0], p1[63:32] ^ c1 ^ k0};
        key_q <= {k1 + W1, k0 + W0};
        limit_q <= limit[i];
        valid_q <= valid[i];
      end
      assign state[i+1] = state_q;
      assign round_key[i+1] = key_q;
      assign limit[i+1] = limit_q;
      assign valid[i+1] = valid_q;
    end
  endgenerate

  assign words = state[ROUNDS];
  assign out_valid = valid[ROUNDS];
  assign keep = {words[127:96] >= limit[ROUNDS], words[95:64] >= limit[ROUNDS], words[63:32] >= limit[ROUNDS],
                 words[31:0] >= limit[ROUNDS]};
endmodule
