// The input path on the testbench's memory port: the unit under test of
// tests/test_rtl_input_path.cpp, whose surroundings -- the row buffers the
// normalise unit hands back, the room the lanes leave in their FIFO -- the
// test drives edge by edge, as it drives the SystemC unit's.
module tb_input_path #(
  parameter integer ISSUE = 16,
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
  input  wire [BYTES_W-1:0] x_bytes,
  input  wire [BYTES_W-1:0] x_last_bytes,
  input  wire [BYTES_W-1:0] r_bytes,
  input  wire [BYTES_W-1:0] r_last_bytes,
  input  wire [BYTES_W-1:0] param_bytes,
  input  wire [31:0]        window_bytes,
  input  wire [7:0]         row_buffers,
  input  wire [7:0]         buffers_returned,
  input  wire [7:0]         fifo_free,
  output wire [7:0]         issued,
  output wire [7:0]         tokens,
  output wire [7:0]         buffers_taken,
  output wire               overflow,
  output wire               port_full,  // the port had no room for the edge's requests (the test fails)
  output reg  [7:0]         port_done   // the unit's requests the port finished by this edge
);
  localparam integer REQS = 2 * ISSUE + 1;
  localparam integer CNT_W = 8;  // the port's DEPTH_LOG2 + 1
  wire [REQS-1:0]         req_valid;
  wire [REQS*BYTES_W-1:0] req_bytes;
  wire                    req_ready;
  wire [REQS*CNT_W-1:0]   done_count;
  wire [REQS*64-1:0]      grant_first, grant_end;
  // The grants handed over with the transactions (the test's lanes need only their count).
  /* verilator lint_off UNUSEDSIGNAL */
  wire [(ISSUE+1)*64-1:0] token_first, token_end;
  /* verilator lint_on UNUSEDSIGNAL */

  input_path #(.ISSUE(ISSUE), .BYTES_W(BYTES_W)) unit (
    .clk(clk), .rst(rst), .rows(rows), .chunks(chunks), .x_bytes(x_bytes), .x_last_bytes(x_last_bytes),
    .r_bytes(r_bytes), .r_last_bytes(r_last_bytes), .param_bytes(param_bytes), .window_bytes(window_bytes),
    .row_buffers(row_buffers), .start(1'b1), .buffers_returned(buffers_returned), .fifo_free(fifo_free), .port_done(port_done),
    .grant_first(grant_first), .grant_end(grant_end), .req_valid(req_valid), .req_bytes(req_bytes), .issued(issued),
    .tokens(tokens), .token_first(token_first), .token_end(token_end), .buffers_taken(buffers_taken), .overflow(overflow));

  dram_port #(.REQS(REQS), .BYTES_W(BYTES_W), .RATE_W(RATE_W), .LAT_W(LAT_W), .DEPTH_LOG2(CNT_W - 1)) port (
    .clk(clk), .rst(rst), .rate_num(rate_num), .rate_den(rate_den), .latency(latency),
    .req_valid(req_valid & {REQS{req_ready}}), .req_bytes(req_bytes), .req_not_before({REQS{64'd0}}),
    .req_ready(req_ready), .done_count(done_count), .grant_first(grant_first), .grant_end(grant_end));
  assign port_full = |req_valid && !req_ready;

  integer r;
  always @* begin
    port_done = 0;
    for (r = 0; r < REQS; r = r + 1) port_done = port_done + done_count[r*CNT_W +: CNT_W];
  end
endmodule
