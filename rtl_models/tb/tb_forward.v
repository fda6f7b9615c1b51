// The whole forward unit's control on the testbench's memories: the
// streams (tb_streams.v: the input path, the lanes, the re-read stream)
// and the normalise unit, which asks both ports first (the first slot of
// the cycle), takes the rows and re-read transactions the streams handed
// over at earlier edges, and hands row buffers back to the input path at
// the same edge; and, for the unfused baseline of a residual, the separate
// adder's pass ahead of them all (the first slot), which the input path
// waits for. The unit under test of tests/test_rtl_forward.cpp and of
// `normsim run --rtl-full`.
module tb_forward #(
  parameter integer ISSUE = 16,
  parameter integer TAKE = 16,
  parameter integer FIFO_LOG2 = 5,  // the FIFO to the lanes: room for 32 transactions
  parameter integer REREAD = 24,
  parameter integer MAXCH = 16,     // transactions a row at most
  parameter integer NW = 18,        // the normalise unit's DRAM writes at one edge at most
  parameter integer AI = 16,        // the separate adder's transactions read at one edge at most
  parameter integer AW = 8,         // ... and its z writes
  parameter integer STATS_LOG2 = 3, // the rows waiting for the normalise unit: 8 at most
  parameter integer RR_LOG2 = 5,    // the re-read FIFO: 32 transactions at most
  parameter integer BUF_LOG2 = 3,   // row buffers: 8 at most
  parameter integer BYTES_W = 24,
  parameter integer RATE_W = 24,
  parameter integer LAT_W = 16
) (
  input  wire               clk,
  input  wire               rst,
  input  wire [RATE_W-1:0]  rate_num,
  input  wire [RATE_W-1:0]  rate_den,
  input  wire [LAT_W-1:0]   latency,
  input  wire [RATE_W-1:0]  sram_rate,
  input  wire [LAT_W-1:0]   sram_latency,
  input  wire               sram_dual,        // two ports a bank (tb_streams.v)
  input  wire [31:0]        rows,
  input  wire [15:0]        chunks,
  input  wire [31:0]        chunk_elems,
  input  wire [31:0]        last_elems,
  input  wire [31:0]        stored_elems,
  input  wire [7:0]         elem_bytes,
  input  wire [7:0]         out_bytes,
  input  wire [15:0]        lanes,
  input  wire [15:0]        lanes_latency,    // the lanes' pipeline (cycles)
  input  wire [15:0]        merge_latency,    // the merge tree, a row's lane states to its root
  input  wire [15:0]        merge_occupancy,  // ... and until it takes the next row
  input  wire [15:0]        finish_latency,   // the RSQRT unit
  input  wire [15:0]        stats_bytes,
  input  wire [BYTES_W-1:0] param_bytes,
  input  wire [31:0]        window_bytes,
  input  wire [7:0]         row_buffers,
  input  wire [7:0]         lanes_fifo,
  input  wire [7:0]         residual_bytes,
  input  wire [7:0]         adder_r_bytes,    // r's bytes an element for a separate adder's pass (0: none)
  input  wire               sum_all,
  input  wire [7:0]         reread_depth,
  output wire [7:0]         issued,
  output wire [7:0]         tokens,
  output wire [7:0]         buffers_taken,
  output wire [7:0]         taken,
  output wire [7:0]         sram_writes,
  output wire [7:0]         rows_out,
  output wire [7:0]         sum_writes,
  output wire [7:0]         sums_out,
  output wire [7:0]         reread_issued,
  output wire [7:0]         reread_tokens,
  output wire [7:0]         norm_rows,        // rows the normalise unit took
  output wire [7:0]         norm_rereads,     // re-read transactions it took
  output reg  [7:0]         sram_reads,       // its replay reads
  output wire [7:0]         outputs,          // its output writes
  output wire [7:0]         buffers_back,
  output wire [7:0]         adder_reads,      // the separate adder's x and r reads
  output wire [7:0]         adder_writes,     // ... its z writes
  output wire [7:0]         params_reads,     // gamma/beta's read
  output wire [7:0]         residual_reads,   // r's reads beside x's (fused)
  output wire [7:0]         stats_writes,     // rows' statistics written
  // Bytes asked for at the edge before (registered), by kind (32 bits
  // each): gamma/beta, x, r, z written by the lanes, x re-read, y, the
  // statistics, the adder's reads and writes, the SRAM's replay reads and
  // row-buffer writes.
  output reg  [11*32-1:0]   kind_bytes,
  output wire               overflow,
  output wire               port_full,
  output wire [7:0]         port_done,
  output wire [7:0]         sram_done
);
  localparam integer STATS = 1 << STATS_LOG2;
  localparam integer RR = 1 << RR_LOG2;
  localparam integer BUFS = 1 << BUF_LOG2;

  // The normalise unit's requests and the ports' answers. The port answers
  // a request from those ahead of it alone, and the normalise unit's are
  // first: the loop Verilator sees through the port is not one.
  /* verilator lint_off UNOPTFLAT */
  localparam integer AL = AW + 2 * AI;  // the adder's request lanes, ahead of the normalise unit's
  localparam integer HD = AL + NW;
  wire [NW-1:0]            head_dram_valid;
  wire [NW*BYTES_W-1:0]    head_dram_bytes;
  wire [AL-1:0]            adder_valid;
  wire [AL*BYTES_W-1:0]    adder_bytes;
  wire [MAXCH-1:0]         head_sram_valid;
  wire [MAXCH*BYTES_W-1:0] head_sram_bytes;
  wire [MAXCH*64-1:0]      head_sram_not_before;
  wire [7:0]               norm_back;
  wire [7:0]               stats_free, reread_free;
  wire [7:0]               norm_rows_taken, norm_rr_taken;
  /* verilator lint_on UNOPTFLAT */
  wire [NW*64-1:0]         head_dram_end;
  wire [HD*64-1:0]         all_head_end;
  assign head_dram_end = all_head_end[AL*64 +: NW*64];
  wire [MAXCH*64-1:0]      head_sram_first, head_sram_end;
  wire [TAKE*64-1:0]       rows_ready;
  wire [(REREAD+1)*64-1:0] reread_end, reread_first;
  wire [TAKE-1:0]          written_valid;
  wire [TAKE*32-1:0]       written_row;
  wire [TAKE*16-1:0]       written_chunk;
  wire [TAKE*64-1:0]       written_end;
  wire                     params_valid;
  wire [63:0]              params_end;
  wire                     streams_overflow, norm_overflow;
  wire [6*32-1:0]          stream_bytes;     // the streams' bytes by kind (tb_streams.v)
  assign buffers_back = norm_back;

  tb_streams #(.ISSUE(ISSUE), .TAKE(TAKE), .FIFO_LOG2(FIFO_LOG2), .REREAD(REREAD), .HEAD_DRAM(HD), .HEAD_SRAM(MAXCH), .BYTES_W(BYTES_W),
               .RATE_W(RATE_W), .LAT_W(LAT_W)) streams (
    .clk(clk), .rst(rst), .rate_num(rate_num), .rate_den(rate_den), .latency(latency), .sram_rate(sram_rate),
    .sram_latency(sram_latency), .sram_dual(sram_dual), .rows(rows), .chunks(chunks), .chunk_elems(chunk_elems), .last_elems(last_elems),
    .stored_elems(stored_elems), .elem_bytes(elem_bytes), .lanes(lanes), .lanes_latency(lanes_latency), .merge_latency(merge_latency),
    .merge_occupancy(merge_occupancy), .finish_latency(finish_latency),
    .param_bytes(param_bytes), .window_bytes(window_bytes), .row_buffers(row_buffers), .lanes_fifo(lanes_fifo), .input_start(input_start), .buffers_returned(norm_back),
    .stats_free(stats_free), .residual_bytes(residual_bytes), .sum_all(sum_all), .reread_free(reread_free),
    .issued(issued), .tokens(tokens), .buffers_taken(buffers_taken), .taken(taken), .sram_writes(sram_writes),
    .rows_out(rows_out), .rows_ready(rows_ready), .overflow(streams_overflow), .port_full(port_full),
    .port_done(port_done), .sram_done(sram_done), .sum_writes(sum_writes), .sums_out(sums_out),
    .reread_issued(reread_issued), .params_reads(params_reads), .residual_reads(residual_reads), .stream_bytes(stream_bytes),
    .reread_tokens(reread_tokens), .reread_end(reread_end),
    .reread_first_out(reread_first), .head_dram_valid({head_dram_valid, adder_valid}),
    .head_dram_bytes({head_dram_bytes, adder_bytes}), .head_dram_end(all_head_end), .head_sram_valid(head_sram_valid), .head_sram_bytes(head_sram_bytes),
    .head_sram_not_before(head_sram_not_before), .head_sram_first(head_sram_first), .head_sram_end(head_sram_end),
    .written_valid(written_valid), .written_row(written_row), .written_chunk(written_chunk),
    .written_end(written_end), .params_valid(params_valid), .params_end(params_end));

  // The separate adder's pass: first on the port; the input path starts at
  // the edge its last z write has ended (the model's input path, a later
  // slot, sees the announcement at the edge it is made and waits for that
  // end).
  wire        adder_on = adder_r_bytes != 0;
  wire        adder_done, adder_overflow;
  wire [63:0] adder_done_end;
  reg  [63:0] now_units;
  always @(posedge clk)
    if (rst) now_units <= 0;
    else now_units <= now_units + {{(64-RATE_W){1'b0}}, rate_num};
  // Registered: at the edge the adder announces, its last write (issued
  // then, a latency of at least a cycle) has not ended anyway.
  reg         adder_done_q;
  reg  [63:0] adder_end_q;
  always @(posedge clk)
    if (rst) adder_done_q <= 1'b0;
    else begin
      adder_done_q <= adder_done;
      adder_end_q <= adder_done_end;
    end
  wire        input_start = !adder_on || (adder_done_q && adder_end_q <= now_units);
  wire [BYTES_W-1:0] ax_bytes = chunk_elems[BYTES_W-1:0] * {{(BYTES_W-8){1'b0}}, elem_bytes};
  wire [BYTES_W-1:0] ax_last = last_elems[BYTES_W-1:0] * {{(BYTES_W-8){1'b0}}, elem_bytes};
  wire [BYTES_W-1:0] ar_bytes = chunk_elems[BYTES_W-1:0] * {{(BYTES_W-8){1'b0}}, adder_r_bytes};
  wire [BYTES_W-1:0] ar_last = last_elems[BYTES_W-1:0] * {{(BYTES_W-8){1'b0}}, adder_r_bytes};
  residual_adder_pass #(.ISSUE(AI), .WRITES(AW), .BYTES_W(BYTES_W)) adder (
    .clk(clk), .rst(rst), .enable(adder_on), .rate_num({{(64-RATE_W){1'b0}}, rate_num}), .rows(rows), .chunks(chunks),
    .x_bytes(ax_bytes), .x_last_bytes(ax_last), .r_bytes(ar_bytes), .r_last_bytes(ar_last), .window_bytes(window_bytes),
    .grant_end(all_head_end[AL*64-1:0]), .req_valid(adder_valid), .req_bytes(adder_bytes), .reads(adder_reads),
    .writes(adder_writes), .done(adder_done), .done_end(adder_done_end), .overflow(adder_overflow));

  // gamma/beta's end, from the input path's first request.
  reg [63:0] params_done;
  always @(posedge clk)
    if (rst) params_done <= 0;
    else if (params_valid) params_done <= params_end;

  // The rows waiting for the normalise unit (registered: the lanes' slot is later).
  reg [63:0]          stats_q [0:STATS-1];
  reg [STATS_LOG2:0]  stats_count;
  reg [STATS_LOG2-1:0] stats_head;
  assign norm_rows = norm_rows_taken;
  assign stats_free = row_buffers - ({{(7-STATS_LOG2){1'b0}}, stats_count} - norm_rows_taken);
  // The re-read FIFO (registered: the re-read stream's slot is later).
  reg [63:0]          rr_first [0:RR-1], rr_end [0:RR-1];
  reg [RR_LOG2:0]     rr_count;
  reg [RR_LOG2-1:0]   rr_head;
  assign norm_rereads = norm_rr_taken;
  assign reread_free = reread_depth - ({{(7-RR_LOG2){1'b0}}, rr_count} - norm_rr_taken);
  reg [MAXCH*64-1:0]  rr_view_first, rr_view_end;
  integer v;
  always @* begin
    rr_view_first = 0;
    rr_view_end = 0;
    for (v = 0; v < MAXCH; v = v + 1)
      if (v < {{(31-RR_LOG2){1'b0}}, rr_count}) begin
        rr_view_first[v*64 +: 64] = rr_first[rr_head + v[RR_LOG2-1:0]];
        rr_view_end[v*64 +: 64] = rr_end[rr_head + v[RR_LOG2-1:0]];
      end
  end
  // Where each row buffer's writes end: the generator's not-before times.
  reg [63:0]          written_q [0:BUFS*MAXCH-1];
  wire [31:0]         reading_row;
  reg [MAXCH*64-1:0]  written_view;
  // Rows take the row buffers in turn (taken and handed back in row order).
  function [BUF_LOG2-1:0] buffer_of(input [31:0] row);
    /* verilator lint_off WIDTH */
    buffer_of = row % {24'd0, row_buffers};  // under BUFS
    /* verilator lint_on WIDTH */
  endfunction
  wire [BUF_LOG2-1:0] reading_buffer = buffer_of(reading_row);
  integer wv;
  always @* begin
    written_view = 0;
    for (wv = 0; wv < MAXCH; wv = wv + 1)
      written_view[wv*64 +: 64] = written_q[{{(31-BUF_LOG2){1'b0}}, reading_buffer} * MAXCH + wv];
  end

  normalize #(.MAXCH(MAXCH), .NW(NW), .BYTES_W(BYTES_W)) norm (
    .clk(clk), .rst(rst), .unit_per_cycle({{(64-RATE_W){1'b0}}, rate_num} * {{(64-RATE_W){1'b0}}, sram_rate}),
    .dram_scale({{(64-RATE_W){1'b0}}, sram_rate}), .rows(rows), .chunks(chunks), .chunk_elems(chunk_elems),
    .last_elems(last_elems), .stored_elems(stored_elems), .elem_bytes(elem_bytes), .out_bytes(out_bytes),
    .lanes(lanes), .sram_latency(sram_latency), .write_buffer_bytes(window_bytes), .stats_bytes(stats_bytes),
    .params_done(params_done), .rows_avail({{(7-STATS_LOG2){1'b0}}, stats_count}), .row_ready(stats_q[stats_head]),
    .rows_taken(norm_rows_taken), .reread_avail({{(7-RR_LOG2){1'b0}}, rr_count}), .reread_first(rr_view_first),
    .reread_end(rr_view_end), .reread_taken(norm_rr_taken), .written(written_view), .reading_row(reading_row),
    .sram_valid(head_sram_valid), .sram_bytes(head_sram_bytes), .sram_not_before(head_sram_not_before),
    .sram_first(head_sram_first), .sram_end(head_sram_end), .dram_valid(head_dram_valid),
    .dram_bytes(head_dram_bytes), .dram_end(head_dram_end), .outputs(outputs), .stats_writes(stats_writes), .buffers_back(norm_back),
    .overflow(norm_overflow));

  assign overflow = streams_overflow || norm_overflow || adder_overflow;

  // Bytes by kind, registered (the bytes asked for at the edge before):
  // the streams' (gamma/beta, x, r, z, x re-read and the row-buffer writes),
  // the normalise unit's y and statistics (a row's statistics are
  // stats_bytes each), the adder's (its z writes first, then its x and r
  // reads) and the replay reads.
  // The bytes of `count` lanes from `first` that ask (of 64 at most).
  function automatic [31:0] lanes_bytes(input [63:0] valid, input [64*BYTES_W-1:0] bytes, input integer first, input integer count);
    integer i;
    begin
      lanes_bytes = 0;
      for (i = 0; i < count; i = i + 1)
        if (valid[first + i]) lanes_bytes = lanes_bytes + {{(32-BYTES_W){1'b0}}, bytes[(first + i)*BYTES_W +: BYTES_W]};
    end
  endfunction
  wire [31:0] stats_now = {24'd0, stats_writes} * {16'd0, stats_bytes};
  reg  [4*32-1:0] unit_bytes;  // y, the statistics, the adder's reads and writes
  reg  [31:0]     replay_bytes;
  always @(posedge clk)
    if (rst) begin
      unit_bytes <= 0;
      replay_bytes <= 0;
    end else begin
      unit_bytes[0 +: 32] <= lanes_bytes({{(64-NW){1'b0}}, head_dram_valid}, {{((64-NW)*BYTES_W){1'b0}}, head_dram_bytes}, 0, NW)
                             - stats_now;
      unit_bytes[32 +: 32] <= stats_now;
      unit_bytes[64 +: 32] <= lanes_bytes({{(64-AL){1'b0}}, adder_valid}, {{((64-AL)*BYTES_W){1'b0}}, adder_bytes}, AW, 2 * AI);
      unit_bytes[96 +: 32] <= lanes_bytes({{(64-AL){1'b0}}, adder_valid}, {{((64-AL)*BYTES_W){1'b0}}, adder_bytes}, 0, AW);
      replay_bytes <= lanes_bytes({{(64-MAXCH){1'b0}}, head_sram_valid}, {{((64-MAXCH)*BYTES_W){1'b0}}, head_sram_bytes}, 0, MAXCH);
    end
  always @* kind_bytes = {stream_bytes[5*32 +: 32], replay_bytes, unit_bytes, stream_bytes[0 +: 5*32]};
  integer s;
  always @* begin
    sram_reads = 0;
    for (s = 0; s < MAXCH; s = s + 1) sram_reads = sram_reads + {7'd0, head_sram_valid[s]};
  end

  integer j;
  always @(posedge clk) begin
    if (rst) begin
      stats_count <= 0;
      stats_head <= 0;
      rr_count <= 0;
      rr_head <= 0;
    end else begin
      for (j = 0; j < TAKE; j = j + 1)
        if (j < {24'd0, rows_out})
          stats_q[stats_head + stats_count[STATS_LOG2-1:0] + j[STATS_LOG2-1:0]] <= rows_ready[j*64 +: 64];
      stats_head <= stats_head + norm_rows_taken[STATS_LOG2-1:0];
      stats_count <= stats_count + rows_out[STATS_LOG2:0] - norm_rows_taken[STATS_LOG2:0];
      for (j = 0; j <= REREAD; j = j + 1)
        if (j < {24'd0, reread_tokens}) begin
          rr_first[rr_head + rr_count[RR_LOG2-1:0] + j[RR_LOG2-1:0]] <= reread_first[j*64 +: 64];
          rr_end[rr_head + rr_count[RR_LOG2-1:0] + j[RR_LOG2-1:0]] <= reread_end[j*64 +: 64];
        end
      rr_head <= rr_head + norm_rr_taken[RR_LOG2-1:0];
      rr_count <= rr_count + reread_tokens[RR_LOG2:0] - norm_rr_taken[RR_LOG2:0];
      for (j = 0; j < TAKE; j = j + 1)
        if (written_valid[j])
          written_q[{{(31-BUF_LOG2){1'b0}}, buffer_of(written_row[j*32 +: 32])} * MAXCH + {16'd0, written_chunk[j*16 +: 16]}]
              <= written_end[j*64 +: 64];
    end
  end
endmodule
