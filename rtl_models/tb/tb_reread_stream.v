// The re-read stream on the testbench's DRAM port: the unit under test of
// tests/test_rtl_reread_stream.cpp, whose surroundings -- the normalise
// unit taking transactions from the re-read FIFO -- the test drives edge by
// edge, as it drives the SystemC unit's.
module tb_reread_stream #(
  parameter integer ISSUE = 24,  // at least the deepest FIFO the test builds, and one
  parameter integer BYTES_W = 24,
  parameter integer RATE_W = 24,
  parameter integer LAT_W = 16
) (
  input  wire               clk,
  input  wire               rst,
  input  wire [RATE_W-1:0]  rate_num,
  input  wire [RATE_W-1:0]  rate_den,
  input  wire [LAT_W-1:0]   latency,
  input  wire [31:0]        rows,
  input  wire [15:0]        chunks,
  input  wire [31:0]        chunk_elems,
  input  wire [31:0]        last_elems,
  input  wire [31:0]        stored_elems,
  input  wire [7:0]         elem_bytes,
  input  wire [7:0]         fifo_free,
  output wire [7:0]         issued,
  output wire [7:0]         tokens,
  output wire [(ISSUE+1)*64-1:0] token_end,  // each transaction's end (units), in FIFO order
  output wire               overflow,
  output wire               port_full,
  output reg  [7:0]         port_done
);
  localparam integer CNT_W = 8;
  wire [ISSUE-1:0]         req_valid;
  wire [ISSUE*BYTES_W-1:0] req_bytes;
  wire                     req_ready;
  wire [ISSUE*CNT_W-1:0]   done_count;
  wire [ISSUE*64-1:0]      grant_first, grant_end;
  /* verilator lint_off UNUSEDSIGNAL */
  wire [(ISSUE+1)*64-1:0]  token_first;  // the first bytes (the normalise unit's, when it is built)
  wire [7:0]               sums_taken;   // no fused residual here: none
  /* verilator lint_on UNUSEDSIGNAL */

  reread_stream #(.ISSUE(ISSUE), .BYTES_W(BYTES_W)) unit (
    .clk(clk), .rst(rst), .rows(rows), .chunks(chunks), .chunk_elems(chunk_elems), .last_elems(last_elems),
    .stored_elems(stored_elems), .elem_bytes(elem_bytes), .fifo_free(fifo_free),
    .rate_num({{(64-RATE_W){1'b0}}, rate_num}), .wait_sums(1'b0), .sums_avail(8'd0), .sums_in({8{64'd0}}),
    .sums_taken(sums_taken), .grant_first(grant_first),
    .grant_end(grant_end), .req_valid(req_valid), .req_bytes(req_bytes), .issued(issued), .tokens(tokens),
    .token_first(token_first), .token_end(token_end), .overflow(overflow));

  dram_port #(.REQS(ISSUE), .BYTES_W(BYTES_W), .RATE_W(RATE_W), .LAT_W(LAT_W), .DEPTH_LOG2(CNT_W - 1)) port (
    .clk(clk), .rst(rst), .rate_num(rate_num), .rate_den(rate_den), .latency(latency),
    .req_valid(req_valid & {ISSUE{req_ready}}), .req_bytes(req_bytes), .req_not_before({ISSUE{64'd0}}),
    .req_ready(req_ready), .done_count(done_count), .grant_first(grant_first), .grant_end(grant_end));
  assign port_full = |req_valid && !req_ready;

  integer r;
  always @* begin
    port_done = 0;
    for (r = 0; r < ISSUE; r = r + 1) port_done = port_done + done_count[r*CNT_W +: CNT_W];
  end
endmodule
