// The streams into the normalise unit: the input path, the lanes (with the
// FIFO between them) and the re-read stream (with the lanes' announcements
// of a fused row's z), on the testbench's DRAM port -- their request lanes
// in the units' slot order: input path, lanes, re-read stream -- and an
// SRAM port for the row buffers' writes. The unit under test of
// tests/test_rtl_welford_lanes.cpp, whose surroundings -- the normalise
// unit taking rows and re-read transactions and handing buffers back --
// the test drives edge by edge, as it drives the SystemC units'; and the
// streams of the whole forward unit (tb_forward.v), whose normalise unit
// asks both ports first (the head lanes: the first slot of the cycle).
//
// The SRAM port counts time in 1/(rate_num x sram_rate) cycle, a unit the
// DRAM port's times (1/rate_num) scale into by sram_rate: one unit for the
// normalise unit, which weighs the two memories' grants against each other.
// Banks of one port serve the reads and the writes on one port; banks of
// two (sram_dual) the writes on a second port of their own, as the
// model's SramModel does.
module tb_streams #(
  parameter integer ISSUE = 16,
  parameter integer TAKE = 16,
  parameter integer FIFO_LOG2 = 5,  // the FIFO to the lanes: room for 32 transactions at most
  parameter integer REREAD = 24,    // re-read transactions an edge at most
  parameter integer SUMS_LOG2 = 3,  // the lanes' announcements FIFO: 8 rows
  parameter integer HEAD_DRAM = 1,  // request lanes ahead of the streams': the normalise unit's
  parameter integer HEAD_SRAM = 1,
  parameter integer BYTES_W = 24,
  parameter integer RATE_W = 24,
  parameter integer LAT_W = 16
) (
  input  wire               clk,
  input  wire               rst,
  input  wire [RATE_W-1:0]  rate_num,
  input  wire [RATE_W-1:0]  rate_den,
  input  wire [LAT_W-1:0]   latency,
  input  wire [RATE_W-1:0]  sram_rate,        // bytes a cycle (banks x access bytes)
  input  wire [LAT_W-1:0]   sram_latency,
  input  wire               sram_dual,        // two ports a bank: the writes on a port of their own
  input  wire [31:0]        rows,
  input  wire [15:0]        chunks,
  input  wire [31:0]        chunk_elems,
  input  wire [31:0]        last_elems,
  input  wire [31:0]        stored_elems,
  input  wire [7:0]         elem_bytes,
  input  wire [15:0]        lanes,
  input  wire [15:0]        lanes_latency,    // the lanes' pipeline (cycles)
  input  wire [15:0]        merge_latency,    // the merge tree, a row's lane states to its root
  input  wire [15:0]        merge_occupancy,  // ... and until it takes the next row
  input  wire [15:0]        finish_latency,   // the RSQRT unit
  input  wire [BYTES_W-1:0] param_bytes,
  input  wire [31:0]        window_bytes,
  input  wire [7:0]         row_buffers,
  input  wire [7:0]         lanes_fifo,       // the FIFO to the lanes' depth (netlist.cpp: input_to_lanes), <= 2^FIFO_LOG2
  input  wire               input_start,      // the input path may start (a separate adder's z is in DRAM)
  input  wire [7:0]         buffers_returned,
  input  wire [7:0]         stats_free,
  input  wire [7:0]         residual_bytes,   // r's bytes an element (0: not fused)
  input  wire               sum_all,          // fused: all of z is written
  input  wire [7:0]         reread_free,      // room in the re-read FIFO
  output wire [7:0]         issued,
  output wire [7:0]         tokens,
  output wire [7:0]         buffers_taken,
  output wire [7:0]         taken,            // transactions the lanes took
  output reg  [7:0]         sram_writes,
  output wire [7:0]         rows_out,
  output wire [TAKE*64-1:0] rows_ready,
  output wire               overflow,
  output wire               port_full,
  output reg  [7:0]         port_done,
  output reg  [7:0]         sram_done,
  output reg  [7:0]         sum_writes,       // the lanes' z writes
  output wire [7:0]         sums_out,         // rows whose z the lanes announce
  output wire [7:0]         reread_issued,
  output reg  [7:0]         params_reads,     // gamma/beta's read (the input path's first request)
  output reg  [7:0]         residual_reads,   // r's reads beside x's (fused)
  // Bytes asked for at the edge before (registered), by kind: gamma/beta,
  // x, r, z written, x re-read, the row buffers' writes (32 bits each, in
  // that order).
  output reg  [6*32-1:0]    stream_bytes,
  output wire [7:0]         reread_tokens,    // re-read transactions into their FIFO
  output wire [(REREAD+1)*64-1:0] reread_end, // ... each one's end (units)
  output wire [(REREAD+1)*64-1:0] reread_first_out,
  // The head requesters (the normalise unit's reads and writes) and their grants.
  input  wire [HEAD_DRAM-1:0]          head_dram_valid,
  input  wire [HEAD_DRAM*BYTES_W-1:0]  head_dram_bytes,
  output wire [HEAD_DRAM*64-1:0]       head_dram_end,
  input  wire [HEAD_SRAM-1:0]          head_sram_valid,
  input  wire [HEAD_SRAM*BYTES_W-1:0]  head_sram_bytes,
  input  wire [HEAD_SRAM*64-1:0]       head_sram_not_before,
  output wire [HEAD_SRAM*64-1:0]       head_sram_first,
  output wire [HEAD_SRAM*64-1:0]       head_sram_end,
  // The lanes' row-buffer writes: where each goes and when it ends (SRAM units).
  output wire [TAKE-1:0]               written_valid,
  output wire [TAKE*32-1:0]            written_row,
  output wire [TAKE*16-1:0]            written_chunk,
  output wire [TAKE*64-1:0]            written_end,
  output wire                          params_valid,    // gamma/beta asked for at this edge
  output wire [63:0]                   params_end       // ... their end (DRAM units)
);
  localparam integer INPUT_REQS = 2 * ISSUE + 1;
  localparam integer H = HEAD_DRAM;                          // where the input path's lanes start
  localparam integer REQS = H + INPUT_REQS + TAKE + REREAD;  // in slot order: head, input path, lanes, re-read stream
  localparam integer SREQS = HEAD_SRAM + TAKE;
  localparam integer SUMS = 1 << SUMS_LOG2;
  wire fused = residual_bytes != 0;
  wire [31:0] row_elems = ({16'd0, chunks} - 32'd1) * chunk_elems + last_elems;
  wire rereads = stored_elems < row_elems;
  localparam integer CNT_W = 9;  // the ports keep 256 requests in flight
  localparam integer FIFO = 1 << FIFO_LOG2;
  wire [BYTES_W-1:0] x_bytes = chunk_elems[BYTES_W-1:0] * {{(BYTES_W-8){1'b0}}, elem_bytes};
  wire [BYTES_W-1:0] x_last_bytes = last_elems[BYTES_W-1:0] * {{(BYTES_W-8){1'b0}}, elem_bytes};

  // The DRAM port and the input path.
  wire [REQS-1:0]         req_valid;
  wire [REQS*BYTES_W-1:0] req_bytes;
  wire                    req_ready;
  wire [REQS*CNT_W-1:0]   done_count;
  /* verilator lint_off UNUSEDSIGNAL */
  wire [REQS*64-1:0]      grant_first;  // the lanes' z writes need only their ends
  /* verilator lint_on UNUSEDSIGNAL */
  wire [REQS*64-1:0]      grant_end;
  wire [(ISSUE+1)*64-1:0] token_first, token_end;
  wire                    input_overflow, lanes_overflow, reread_overflow;
  wire [INPUT_REQS-1:0]   input_valid;
  wire [INPUT_REQS*BYTES_W-1:0] input_bytes;
  // The lanes take this edge's transactions with the port's grants to them
  // and ask the same port for their z writes: a loop only as Verilator sees
  // the port (one block over every request), not in fact -- the port
  // answers a request from those ahead of it in priority alone.
  /* verilator lint_off UNOPTFLAT */
  wire [TAKE-1:0]         sum_valid;
  wire [TAKE*BYTES_W-1:0] sum_bytes;
  /* verilator lint_on UNOPTFLAT */
  wire [REREAD-1:0]       reread_valid;
  wire [REREAD*BYTES_W-1:0] reread_bytes;
  assign req_valid = {reread_valid, sum_valid, input_valid, head_dram_valid};
  assign req_bytes = {reread_bytes, sum_bytes, input_bytes, head_dram_bytes};
  assign head_dram_end = grant_end[H*64-1:0];
  assign params_valid = input_valid[0];
  assign params_end = grant_end[H*64 +: 64];
  wire [BYTES_W-1:0] r_bytes = chunk_elems[BYTES_W-1:0] * {{(BYTES_W-8){1'b0}}, residual_bytes};
  wire [BYTES_W-1:0] r_last_bytes = last_elems[BYTES_W-1:0] * {{(BYTES_W-8){1'b0}}, residual_bytes};
  reg  [FIFO_LOG2:0]      fifo_count;
  reg  [FIFO_LOG2-1:0]    fifo_head;
  reg  [63:0]             fifo_first [0:FIFO-1];
  reg  [63:0]             fifo_last [0:FIFO-1];
  wire [7:0]              fifo_free = lanes_fifo - {{(7-FIFO_LOG2){1'b0}}, fifo_count};

  input_path #(.ISSUE(ISSUE), .BYTES_W(BYTES_W)) input_unit (
    .clk(clk), .rst(rst), .rows(rows), .chunks(chunks), .x_bytes(x_bytes), .x_last_bytes(x_last_bytes),
    .r_bytes(r_bytes), .r_last_bytes(r_last_bytes), .param_bytes(param_bytes), .window_bytes(window_bytes),
    .row_buffers(row_buffers), .start(input_start), .buffers_returned(buffers_returned), .fifo_free(fifo_free), .port_done(input_done),
    .grant_first(grant_first[H*64 +: INPUT_REQS*64]), .grant_end(grant_end[H*64 +: INPUT_REQS*64]), .req_valid(input_valid),
    .req_bytes(input_bytes), .issued(issued),
    .tokens(tokens), .token_first(token_first), .token_end(token_end), .buffers_taken(buffers_taken),
    .overflow(input_overflow));

  dram_port #(.REQS(REQS), .BYTES_W(BYTES_W), .RATE_W(RATE_W), .LAT_W(LAT_W), .DEPTH_LOG2(CNT_W - 1)) dram (
    .clk(clk), .rst(rst), .rate_num(rate_num), .rate_den(rate_den), .latency(latency),
    .req_valid(req_valid & {REQS{req_ready}}), .req_bytes(req_bytes), .req_not_before({REQS{64'd0}}),
    .req_ready(req_ready), .done_count(done_count), .grant_first(grant_first), .grant_end(grant_end));

  // The FIFO to the lanes: the lanes (a later slot) see this edge's transactions too.
  reg [TAKE*64-1:0] view_first, view_end;
  integer v, w;
  always @* begin
    view_first = 0;
    view_end = 0;
    for (v = 0; v < TAKE; v = v + 1) begin
      w = v - {{(31-FIFO_LOG2){1'b0}}, fifo_count};
      if (v < {{(31-FIFO_LOG2){1'b0}}, fifo_count}) begin
        view_first[v*64 +: 64] = fifo_first[fifo_head + v[FIFO_LOG2-1:0]];
        view_end[v*64 +: 64] = fifo_last[fifo_head + v[FIFO_LOG2-1:0]];
      end else if (w < {24'd0, tokens}) begin
        view_first[v*64 +: 64] = token_first[w*64 +: 64];
        view_end[v*64 +: 64] = token_end[w*64 +: 64];
      end
    end
  end

  // The lanes and the SRAM port their row-buffer writes go to.
  wire [TAKE-1:0]         sram_valid;
  wire [TAKE*BYTES_W-1:0] sram_bytes;
  wire                    sram_ready;
  wire [SREQS*CNT_W-1:0]  sram_count;
  /* verilator lint_off UNUSEDSIGNAL */
  wire [SREQS*64-1:0]     sram_first;  // the writes' first bytes: no one waits for them
  /* verilator lint_on UNUSEDSIGNAL */
  wire [SREQS*64-1:0]     sram_end;
  welford_lanes #(.TAKE(TAKE), .BYTES_W(BYTES_W)) lanes_unit (
    .clk(clk), .rst(rst), .rate_num({{(64-RATE_W){1'b0}}, rate_num}), .chunks(chunks), .chunk_elems(chunk_elems),
    .last_elems(last_elems), .stored_elems(stored_elems), .elem_bytes(elem_bytes), .lanes(lanes),
    .lanes_latency(lanes_latency), .merge_latency(merge_latency),
    .merge_occupancy(merge_occupancy), .finish_latency(finish_latency), .fused(fused), .sum_all(sum_all), .announce_sums(fused && rereads),
    .tok_avail({{(7-FIFO_LOG2){1'b0}}, fifo_count} + tokens), .tok_first(view_first),
    .tok_end(view_end), .tok_taken(taken), .stats_free(stats_free), .sram_valid(sram_valid), .sram_bytes(sram_bytes),
    .sram_row(written_row), .sram_chunk(written_chunk),
    .rows_out(rows_out), .rows_ready(rows_ready), .dram_valid(sum_valid), .dram_bytes(sum_bytes),
    .dram_grant_end(grant_end[(H+INPUT_REQS)*64 +: TAKE*64]), .sums_out(sums_out), .sums_done(sums_done),
    .overflow(lanes_overflow));

  // The lanes' announcements of a row's z, to the re-read stream. The
  // model's stream (a later slot) sees one at the edge it is made, but a
  // write issued at an edge ends after it, so the stream could not read z
  // before the next edge anyway: registered here, with the same edges.
  wire [TAKE*64-1:0]  sums_done;
  reg  [63:0]         sum_fifo [0:SUMS-1];
  reg  [SUMS_LOG2:0]  sum_count;
  reg  [SUMS_LOG2-1:0] sum_head;
  /* verilator lint_off UNUSEDSIGNAL */
  wire [7:0]          sums_taken;  // at most SUMS an edge: its low bits
  /* verilator lint_on UNUSEDSIGNAL */
  reg  [SUMS*64-1:0]  sums_view;
  integer sv;
  always @* begin
    sums_view = 0;
    for (sv = 0; sv < SUMS; sv = sv + 1)
      if (sv < {{(31-SUMS_LOG2){1'b0}}, sum_count}) sums_view[sv*64 +: 64] = sum_fifo[sum_head + sv[SUMS_LOG2-1:0]];
  end
  integer sj;
  always @(posedge clk) begin
    if (rst) begin
      sum_count <= 0;
      sum_head <= 0;
    end else begin
      for (sj = 0; sj < TAKE; sj = sj + 1)
        if (sj < {24'd0, sums_out}) sum_fifo[sum_head + sum_count[SUMS_LOG2-1:0] + sj[SUMS_LOG2-1:0]] <= sums_done[sj*64 +: 64];
      sum_head <= sum_head + sums_taken[SUMS_LOG2-1:0];
      sum_count <= sum_count + sums_out[SUMS_LOG2:0] - sums_taken[SUMS_LOG2:0];
    end
  end

  // The re-read stream, last on the port.
  wire [(REREAD+1)*64-1:0] reread_first;
  assign reread_first_out = reread_first;
  reread_stream #(.ISSUE(REREAD), .SUMS(SUMS), .BYTES_W(BYTES_W)) reread_unit (
    .clk(clk), .rst(rst), .rows(rows), .chunks(chunks), .chunk_elems(chunk_elems), .last_elems(last_elems),
    .stored_elems(stored_elems), .elem_bytes(elem_bytes), .fifo_free(reread_free),
    .rate_num({{(64-RATE_W){1'b0}}, rate_num}), .wait_sums(fused && rereads),
    .sums_avail({{(7-SUMS_LOG2){1'b0}}, sum_count}), .sums_in(sums_view), .sums_taken(sums_taken),
    .grant_first(grant_first[(H+INPUT_REQS+TAKE)*64 +: REREAD*64]), .grant_end(grant_end[(H+INPUT_REQS+TAKE)*64 +: REREAD*64]),
    .req_valid(reread_valid), .req_bytes(reread_bytes), .issued(reread_issued), .tokens(reread_tokens),
    .token_first(reread_first), .token_end(reread_end), .overflow(reread_overflow));

  wire [SREQS-1:0] sreq_valid = {sram_valid & {TAKE{!sram_dual}}, head_sram_valid};
  dram_port #(.REQS(SREQS), .BYTES_W(BYTES_W), .RATE_W(2 * RATE_W), .LAT_W(LAT_W), .DEPTH_LOG2(CNT_W - 1)) sram (
    .clk(clk), .rst(rst), .rate_num({{RATE_W{1'b0}}, rate_num} * {{RATE_W{1'b0}}, sram_rate}),
    .rate_den({{RATE_W{1'b0}}, rate_num}), .latency(sram_latency), .req_valid(sreq_valid & {SREQS{sram_ready}}),
    .req_bytes({sram_bytes, head_sram_bytes}), .req_not_before({{TAKE{64'd0}}, head_sram_not_before}),
    .req_ready(sram_ready), .done_count(sram_count), .grant_first(sram_first), .grant_end(sram_end));
  // The write port of two-ported banks (idle with one port a bank).
  wire [TAKE-1:0]        wreq_valid = sram_valid & {TAKE{sram_dual}};
  wire                   wport_ready;
  wire [TAKE*CNT_W-1:0]  wport_count;
  /* verilator lint_off UNUSEDSIGNAL */
  wire [TAKE*64-1:0]     wport_first;  // as the shared port's: no one waits for a write's first byte
  /* verilator lint_on UNUSEDSIGNAL */
  wire [TAKE*64-1:0]     wport_end;
  dram_port #(.REQS(TAKE), .BYTES_W(BYTES_W), .RATE_W(2 * RATE_W), .LAT_W(LAT_W), .DEPTH_LOG2(CNT_W - 1)) sram_write (
    .clk(clk), .rst(rst), .rate_num({{RATE_W{1'b0}}, rate_num} * {{RATE_W{1'b0}}, sram_rate}),
    .rate_den({{RATE_W{1'b0}}, rate_num}), .latency(sram_latency), .req_valid(wreq_valid & {TAKE{wport_ready}}),
    .req_bytes(sram_bytes), .req_not_before({TAKE{64'd0}}), .req_ready(wport_ready), .done_count(wport_count),
    .grant_first(wport_first), .grant_end(wport_end));
  assign head_sram_first = sram_first[HEAD_SRAM*64-1:0];
  assign head_sram_end = sram_end[HEAD_SRAM*64-1:0];
  assign written_valid = sram_valid;
  assign written_end = sram_dual ? wport_end : sram_end[HEAD_SRAM*64 +: TAKE*64];

  assign overflow = input_overflow || lanes_overflow || reread_overflow;
  assign port_full = (|req_valid && !req_ready) || (|sreq_valid && !sram_ready) || (|wreq_valid && !wport_ready);

  integer r, j;
  reg [7:0] input_done;  // the input path's requests the port finished by this edge
  always @* begin
    port_done = 0;
    input_done = 0;
    for (r = 0; r < REQS; r = r + 1) port_done = port_done + done_count[r*CNT_W +: 8];
    for (r = H; r < H + INPUT_REQS; r = r + 1) input_done = input_done + done_count[r*CNT_W +: 8];
    sum_writes = 0;
    for (r = 0; r < TAKE; r = r + 1) sum_writes = sum_writes + {7'd0, sum_valid[r]};
    sram_done = 0;
    sram_writes = 0;
    for (r = 0; r < SREQS; r = r + 1) sram_done = sram_done + sram_count[r*CNT_W +: 8];
    for (r = 0; r < TAKE; r = r + 1) sram_done = sram_done + wport_count[r*CNT_W +: 8];
    for (r = 0; r < TAKE; r = r + 1) sram_writes = sram_writes + {7'd0, sram_valid[r]};
  end

  // What each kind of request moves (the model's traffic kinds): the input
  // path's request lanes are gamma/beta's, then each transaction's x and r.
  // The counts at this edge; the bytes registered, an edge later (summed
  // once an edge, not at every settling of the lanes).
  integer k;
  always @* begin
    params_reads = {7'd0, input_valid[0]};
    residual_reads = 0;
    for (k = 0; k < ISSUE; k = k + 1) residual_reads = residual_reads + {7'd0, input_valid[2 + 2*k]};
  end
  // The bytes of `count` lanes from `first`, `stride` apart, that ask (of 64 at most).
  function automatic [31:0] lanes_bytes(input [63:0] valid, input [64*BYTES_W-1:0] bytes, input integer first,
                                        input integer count, input integer stride);
    integer i;
    begin
      lanes_bytes = 0;
      for (i = 0; i < count; i = i + 1)
        if (valid[first + i*stride]) lanes_bytes = lanes_bytes + {{(32-BYTES_W){1'b0}}, bytes[(first + i*stride)*BYTES_W +: BYTES_W]};
    end
  endfunction
  always @(posedge clk)
    if (rst) stream_bytes <= 0;
    else begin
      stream_bytes[0 +: 32] <= lanes_bytes({{(64-INPUT_REQS){1'b0}}, input_valid}, {{((64-INPUT_REQS)*BYTES_W){1'b0}}, input_bytes}, 0, 1, 1);
      stream_bytes[32 +: 32] <= lanes_bytes({{(64-INPUT_REQS){1'b0}}, input_valid}, {{((64-INPUT_REQS)*BYTES_W){1'b0}}, input_bytes}, 1, ISSUE, 2);
      stream_bytes[64 +: 32] <= lanes_bytes({{(64-INPUT_REQS){1'b0}}, input_valid}, {{((64-INPUT_REQS)*BYTES_W){1'b0}}, input_bytes}, 2, ISSUE, 2);
      stream_bytes[96 +: 32] <= lanes_bytes({{(64-TAKE){1'b0}}, sum_valid}, {{((64-TAKE)*BYTES_W){1'b0}}, sum_bytes}, 0, TAKE, 1);
      stream_bytes[128 +: 32] <= lanes_bytes({{(64-REREAD){1'b0}}, reread_valid}, {{((64-REREAD)*BYTES_W){1'b0}}, reread_bytes}, 0, REREAD, 1);
      stream_bytes[160 +: 32] <= lanes_bytes({{(64-TAKE){1'b0}}, sram_valid}, {{((64-TAKE)*BYTES_W){1'b0}}, sram_bytes}, 0, TAKE, 1);
    end

  // The FIFO's registers: this edge's transactions in, the lanes' out.
  always @(posedge clk) begin
    if (rst) begin
      fifo_count <= 0;
      fifo_head <= 0;
    end else begin
      for (j = 0; j <= ISSUE; j = j + 1)
        if (j < {24'd0, tokens}) begin
          fifo_first[fifo_head + fifo_count[FIFO_LOG2-1:0] + j[FIFO_LOG2-1:0]] <= token_first[j*64 +: 64];
          fifo_last[fifo_head + fifo_count[FIFO_LOG2-1:0] + j[FIFO_LOG2-1:0]] <= token_end[j*64 +: 64];
        end
      fifo_head <= fifo_head + taken[FIFO_LOG2-1:0];
      fifo_count <= fifo_count + tokens[FIFO_LOG2:0] - taken[FIFO_LOG2:0];
    end
  end
endmodule
