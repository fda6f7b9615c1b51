// The re-read stream (sim/asic/reread_stream.cpp) in clocked logic, forward
// pass: the part of each row not kept in SRAM, read again from DRAM in row
// order, each transaction's grant into the re-read FIFO the normalise unit
// drains. No window: the FIFO is the path's storage, and a full one holds
// the stream. With a fused residual what it reads is z, which the lanes
// write: it takes each row's announcement of its last z write's end from
// the lanes (an earlier slot: seen at the same edge) and reads no sooner.
//
// Clocked as the model's unit (asic.timing: cycle), it acts after the
// normalise unit in a cycle: the room that unit makes at an edge is seen
// at that edge. It issues as the model's loop does, a transaction and its
// hand-over at a time, as many an edge as the FIFO has room for, up to
// ISSUE (the port's request lanes it drives, in order).
module reread_stream #(
  parameter integer ISSUE = 24,   // the FIFO's depth and one, at least
  parameter integer PASS = 64,     // steps of the model's loop at one edge: hand-overs, issues, transactions passed over
  parameter integer SUMS = 8,      // announcements it may take at one edge
  parameter integer BYTES_W = 24
) (
  input  wire                      clk,
  input  wire                      rst,
  input  wire [31:0]               rows,
  input  wire [15:0]               chunks,        // transactions a row
  input  wire [31:0]               chunk_elems,   // elements of a whole transaction
  input  wire [31:0]               last_elems,    // ... of a row's last
  input  wire [31:0]               stored_elems,  // elements of a row kept in SRAM (not re-read)
  input  wire [7:0]                elem_bytes,
  input  wire [7:0]                fifo_free,     // room in the re-read FIFO at this edge
  input  wire [63:0]               rate_num,      // DRAM port units a cycle
  input  wire                      wait_sums,     // fused: a row's z is read once the lanes announce it is in DRAM
  input  wire [7:0]                sums_avail,    // announcements waiting (this edge's too), oldest first
  input  wire [SUMS*64-1:0]        sums_in,       // ... each row's last z write's end (units)
  output reg  [7:0]                sums_taken,
  input  wire [ISSUE*64-1:0]       grant_first,   // the port's answer to each request lane at this edge
  input  wire [ISSUE*64-1:0]       grant_end,
  output reg  [ISSUE-1:0]          req_valid,
  output reg  [ISSUE*BYTES_W-1:0]  req_bytes,
  output reg  [7:0]                issued,
  output reg  [7:0]                tokens,        // transactions into the FIFO at this edge
  output wire [(ISSUE+1)*64-1:0]   token_first,   // ... each one's grant, in FIFO order
  output wire [(ISSUE+1)*64-1:0]   token_end,
  output reg                       overflow       // more than ISSUE at an edge: not comparable
);
  wire [31:0] row_elems = ({16'd0, chunks} - 32'd1) * chunk_elems + last_elems;
  wire        rereads = stored_elems < row_elems;
  /* verilator lint_off UNUSEDSIGNAL */
  wire [31:0] first_reread_wide = stored_elems / chunk_elems;  // the first transaction not wholly kept (under chunks)
  /* verilator lint_on UNUSEDSIGNAL */
  wire [15:0] first_reread = first_reread_wide[15:0];
  reg [31:0] row, n_row;
  reg [31:0] sum_rows, n_sum_rows;  // rows whose announcement it took
  reg [63:0] sum_done, n_sum_done;  // ... the last one's z end
  reg [63:0] now_units;             // this edge
  reg [15:0] chunk, n_chunk;
  reg [31:0] chunk_begin, n_begin;
  reg        pending, n_pending;
  reg [7:0]  room;
  reg [7:0]  source [0:ISSUE];  // each token: 0 the one pending from an earlier edge, 1 + j this edge's j-th
  reg [7:0]  pending_source;
  reg [31:0] size, reread;
  reg        stop;
  integer it, k;
  always @* begin
    n_row = row;
    n_chunk = chunk;
    n_begin = chunk_begin;
    n_pending = pending;
    n_sum_rows = sum_rows;
    n_sum_done = sum_done;
    sums_taken = 0;
    room = fifo_free;
    req_valid = 0;
    req_bytes = 0;
    issued = 0;
    tokens = 0;
    overflow = 1'b0;
    stop = rst || !rereads;  // SRAM replay: nothing to re-read
    size = 0;
    reread = 0;
    pending_source = 0;
    for (k = 0; k <= ISSUE; k = k + 1) source[k] = 0;
    // A row's transactions with nothing to re-read are passed over, up to
    // PASS steps an edge (running out of them is an overflow too).
    for (it = 0; it < PASS; it = it + 1) begin
      if (!stop && n_pending) begin
        if (room == 0) begin
          stop = 1'b1;
        end else begin
          room = room - 8'd1;
          source[tokens[$clog2(ISSUE+1)-1:0]] = pending_source;
          tokens = tokens + 8'd1;
          n_pending = 1'b0;
          n_chunk = n_chunk + 16'd1;
          n_begin = n_begin + chunk_elems;
          if (n_chunk == chunks) begin
            n_chunk = 0;
            n_begin = 0;
            n_row = n_row + 32'd1;
          end
        end
      end
      if (!stop && n_row == rows) stop = 1'b1;
      if (!stop) begin
        size = n_chunk + 16'd1 == chunks ? last_elems : chunk_elems;
        reread = stored_elems >= n_begin + size ? 32'd0 : stored_elems > n_begin ? n_begin + size - stored_elems : size;
`ifdef NORMSIM_MUTATE_REREAD
        // The mutated build: the last kept element of a split transaction re-read too (the test must see it).
        if (reread != 0 && reread < size) reread = reread + 32'd1;
`endif
        if (reread == 0) begin  // kept in SRAM: nothing to re-read; the kept part is a row's first
          n_chunk = first_reread;
          n_begin = {16'd0, first_reread} * chunk_elems;
        end else begin
          // Fused: not before the row's z is in DRAM.
          for (k = 0; k < SUMS; k = k + 1)
            if (wait_sums && n_sum_rows <= n_row && sums_taken < sums_avail) begin
              n_sum_done = sums_in[sums_taken*64 +: 64];
              sums_taken = sums_taken + 8'd1;
              n_sum_rows = n_sum_rows + 32'd1;
            end
          if (wait_sums && (n_sum_rows <= n_row || n_sum_done > now_units)) stop = 1'b1;
        end
        if (stop || reread == 0) begin
          // waiting, or passed over
        end else if (issued == ISSUE[7:0]) begin
          overflow = 1'b1;
          stop = 1'b1;
        end else begin
          req_valid[issued[$clog2(ISSUE)-1:0]] = 1'b1;
          req_bytes[issued*BYTES_W +: BYTES_W] = reread[BYTES_W-1:0] * {{(BYTES_W-8){1'b0}}, elem_bytes};
          issued = issued + 8'd1;
          n_pending = 1'b1;
          pending_source = issued;  // 1 + its index
        end
      end
    end
    if (!stop) overflow = 1'b1;  // the loop would have gone on
  end

  // The transactions' grants, as the model's tokens carry them.
  reg [(ISSUE+1)*8-1:0] sources;
  integer m;
  always @* for (m = 0; m <= ISSUE; m = m + 1) sources[m*8 +: 8] = source[m];
  handover_grants #(.ISSUE(ISSUE), .LANES(ISSUE), .BASE(0), .STRIDE(1)) grants (
    .clk(clk), .rst(rst), .tokens(tokens), .sources(sources), .pending_source(pending_source), .pending(n_pending),
    .end_lane(32'd0), .grant_first(grant_first), .grant_end(grant_end), .token_first(token_first), .token_end(token_end));

  always @(posedge clk) begin
    if (rst) begin
      row <= 0;
      sum_rows <= 0;
      sum_done <= 0;
      now_units <= 0;
      chunk <= 0;
      chunk_begin <= 0;
      pending <= 1'b0;
    end else begin
      row <= n_row;
      sum_rows <= n_sum_rows;
      sum_done <= n_sum_done;
      now_units <= now_units + rate_num;
      chunk <= n_chunk;
      chunk_begin <= n_begin;
      pending <= n_pending;
    end
  end
endmodule
