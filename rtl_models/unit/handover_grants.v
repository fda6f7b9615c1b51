// The grants a unit hands over with its transactions (the input path's to
// the lanes, the re-read stream's to the normalise unit): a transaction
// issued at this edge carries the port's answer to its request lanes, one
// still waiting from an earlier edge the grant kept for it. The model's
// token carries the same Grant (first byte, end; in the port's units).
//
// Transaction j of the edge asked on lanes BASE + STRIDE j (its first
// byte) and BASE + STRIDE j + end_lane (its end: a fused input path's r,
// read after x).
module handover_grants #(
  parameter integer ISSUE = 16,   // transactions a unit may issue at one edge
  parameter integer LANES = 16,   // the port's request lanes the unit drives
  parameter integer BASE = 0,
  parameter integer STRIDE = 1
) (
  input  wire                      clk,
  input  wire                      rst,
  input  wire [7:0]                tokens,          // transactions handed over at this edge
  input  wire [(ISSUE+1)*8-1:0]    sources,         // each one: 0 the one kept from an earlier edge, 1 + j this edge's j-th
  input  wire [7:0]                pending_source,  // the transaction left waiting after this edge (0: none issued now)
  input  wire                      pending,         // one is left waiting
  input  wire [31:0]               end_lane,        // the lane, after its first, of a transaction's last request
  input  wire [LANES*64-1:0]       grant_first,
  input  wire [LANES*64-1:0]       grant_end,
  output reg  [(ISSUE+1)*64-1:0]   token_first,
  output reg  [(ISSUE+1)*64-1:0]   token_end
);
  reg [63:0] kept_first, kept_end;  // the grant of the transaction waiting for room
  integer m, lane;
  always @* begin
    token_first = 0;
    token_end = 0;
    lane = 0;
    for (m = 0; m <= ISSUE; m = m + 1)
      if (m < {24'd0, tokens}) begin
        if (sources[m*8 +: 8] == 0) begin
          token_first[m*64 +: 64] = kept_first;
          token_end[m*64 +: 64] = kept_end;
        end else begin
          lane = BASE + STRIDE * ({24'd0, sources[m*8 +: 8]} - 1);
          token_first[m*64 +: 64] = grant_first[lane*64 +: 64];
          token_end[m*64 +: 64] = grant_end[(lane + end_lane)*64 +: 64];
        end
      end
  end

  wire [31:0] pending_lane = BASE + STRIDE * ({24'd0, pending_source} - 32'd1);
  always @(posedge clk) begin
    if (rst) begin
      kept_first <= 0;
      kept_end <= 0;
    end else if (pending && pending_source != 0) begin  // issued at this edge, still waiting: keep its grant
      kept_first <= grant_first[pending_lane*64 +: 64];
      kept_end <= grant_end[(pending_lane + end_lane)*64 +: 64];
    end
  end
endmodule
