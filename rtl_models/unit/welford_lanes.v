// The lane array's timing (sim/asic/welford_lane_array.cpp) in clocked
// logic, forward pass: each transaction the input path hands over is worked
// from its first byte, L elements a cycle, and done no sooner than its last
// byte; the part of the row the replay path keeps goes into the row buffer
// (an SRAM write at the edge the lanes start on it); a row's statistics
// leave for the normalise unit through their FIFO after the lanes'
// pipeline, the merge tree and the RSQRT unit. A dedicated tree takes a row
// a cycle; shared merge units (sim/asic/chan_merge_tree.cpp) take the next
// row only `merge_occupancy` cycles after the last, and until then the
// lanes hold the finished row and take no new element.
//
// Times are kept as the model's are, in the DRAM port's units (1/rate_num
// cycle): a transaction's grant from the input path, the lanes' free time.
// Clocked as the model's unit (asic.timing: cycle), it acts after the input
// path in a cycle (it sees the transactions handed over at this edge) and
// after the normalise unit (it sees the room that unit left at this edge).
// As the model's unit it takes a transaction as soon as it is there,
// computing when it will have worked it, and waits only for the edge of a
// row-buffer write and for room in the FIFO to the normalise unit.
//
// A fused residual's sum z goes to DRAM as it is made (the part the
// re-read brings back, or all of it), at the same edge as the row-buffer
// write; with a re-read, each row's last z write's end is announced to the
// re-read stream, which reads z back no sooner.
module welford_lanes #(
  parameter integer TAKE = 16,     // transactions it may take at one edge
  parameter integer BYTES_W = 24
) (
  input  wire                    clk,
  input  wire                    rst,
  input  wire [63:0]             rate_num,        // port units a cycle
  input  wire [15:0]             chunks,          // transactions a row
  input  wire [31:0]             chunk_elems,     // elements of a whole transaction
  input  wire [31:0]             last_elems,      // ... of a row's last
  input  wire [31:0]             stored_elems,    // elements of a row the replay path keeps
  input  wire [7:0]              elem_bytes,      // bytes an element the row buffer keeps
  input  wire [15:0]             lanes,           // elements a cycle
  input  wire [15:0]             lanes_latency,   // cycles from a row's last element to its lane states
  input  wire [15:0]             merge_latency,   // ... from the merge units taking them to the row's root
  input  wire [15:0]             merge_occupancy, // ... from the merge units taking a row to taking the next
  input  wire [15:0]             finish_latency,  // ... from the root to the statistics (the RSQRT unit)
  input  wire                    fused,           // a residual's sum z is written to DRAM
  input  wire                    sum_all,         // ... all of it (else only what the re-read brings back)
  input  wire                    announce_sums,   // ... and each row's end announced (fused with a re-read)
  // The transactions handed over, oldest first (this edge's too).
  input  wire [7:0]              tok_avail,
  input  wire [TAKE*64-1:0]      tok_first,
  input  wire [TAKE*64-1:0]      tok_end,
  output reg  [7:0]              tok_taken,
  // Room in the FIFO to the normalise unit.
  input  wire [7:0]              stats_free,
  // What it does at this edge.
  output reg  [TAKE-1:0]         sram_valid,      // row-buffer writes, in order
  output reg  [TAKE*BYTES_W-1:0] sram_bytes,
  output reg  [TAKE*32-1:0]      sram_row,        // ... each one's row
  output reg  [TAKE*16-1:0]      sram_chunk,      // ... and transaction
  output reg  [7:0]              rows_out,        // rows handed to the normalise unit
  output reg  [TAKE*64-1:0]      rows_ready,      // ... each one's statistics ready (units)
  output reg  [TAKE-1:0]         dram_valid,      // z writes, in order
  output reg  [TAKE*BYTES_W-1:0] dram_bytes,
  input  wire [TAKE*64-1:0]      dram_grant_end,  // the DRAM port's answer to each
  output reg  [7:0]              sums_out,        // rows whose z is announced at this edge
  output reg  [TAKE*64-1:0]      sums_done,       // ... each one's last z write's end (units)
  output reg                     overflow         // more than TAKE at an edge: not comparable
);
  localparam [1:0] WAIT_TAKE = 2'd0, WAIT_EDGE = 2'd1, WAIT_ROOM = 2'd2;
  reg [1:0]  phase;
  reg [63:0] free_at, start_at, ready_at;  // units
  reg [63:0] merge_free;                   // when the merge units can take a row (units)
  reg [15:0] chunk;                        // the transaction in (or next into) the lanes
  reg [31:0] row;                          // ... of this row
  reg [31:0] chunk_begin;                  // its first element in the row
  reg [BYTES_W-1:0] store_bytes;           // its row-buffer write, waiting for its edge
  reg [63:0] now_units;                    // this edge
  reg [63:0] row_sum;                      // the row's z writes issued at earlier edges: the last one's end
  reg [BYTES_W-1:0] sum_bytes;             // the waiting transaction's z write

  // The edge's work, as the model's loop.
  reg [1:0]  n_phase;
  reg [63:0] n_free, n_start, n_ready, first, last_byte, work, after, n_merge, merge_start;
  reg [15:0] n_chunk;
  reg [31:0] n_row;
  reg [31:0] n_begin, size, kept;
  reg [BYTES_W-1:0] n_store, n_sum;
  reg [31:0] summed;
  reg [7:0]  room, writes, dwrites;
  reg [7:0]  write_row [0:TAKE-1];  // each z write: the rows of this edge finished before it (its row's place)
  reg        stop, finish_row, done_with;
  integer it;
  always @* begin
    n_phase = phase;
    n_free = free_at;
    n_start = start_at;
    n_ready = ready_at;
    n_merge = merge_free;
    merge_start = 0;
    n_chunk = chunk;
    n_row = row;
    n_begin = chunk_begin;
    sram_row = 0;
    sram_chunk = 0;
    n_store = store_bytes;
    n_sum = sum_bytes;
    summed = 0;
    dwrites = 0;
    dram_valid = 0;
    dram_bytes = 0;
    sums_out = 0;
    for (it = 0; it < TAKE; it = it + 1) write_row[it] = 0;
    room = stats_free;
    tok_taken = 0;
    sram_valid = 0;
    sram_bytes = 0;
    rows_out = 0;
    rows_ready = 0;
    overflow = 1'b0;
    writes = 0;
    stop = rst;
    first = 0;
    last_byte = 0;
    work = 0;
    after = 0;
    size = 0;
    kept = 0;
    finish_row = 1'b0;
    done_with = 1'b0;
    for (it = 0; it <= TAKE; it = it + 1) begin
      finish_row = 1'b0;
      done_with = 1'b0;
      if (!stop && n_phase == WAIT_ROOM) begin  // a finished row waits for room
        if (room == 0) begin
          stop = 1'b1;
        end else begin
          room = room - 8'd1;
          rows_ready[rows_out*64 +: 64] = n_ready;
          rows_out = rows_out + 8'd1;
          n_phase = WAIT_TAKE;
        end
      end
      if (!stop && n_phase == WAIT_EDGE) begin  // the row-buffer write, at the edge the lanes start
        if (n_start > now_units) begin
          stop = 1'b1;
        end else begin
          n_phase = WAIT_TAKE;
          done_with = 1'b1;
        end
      end else if (!stop && n_phase == WAIT_TAKE) begin
        if (tok_taken == tok_avail) begin
          stop = 1'b1;
        end else if (tok_taken == TAKE[7:0]) begin
          overflow = 1'b1;
          stop = 1'b1;
        end else begin
          // Worked from its first byte, done no sooner than its last.
          first = tok_first[tok_taken*64 +: 64];
          last_byte = tok_end[tok_taken*64 +: 64];
          tok_taken = tok_taken + 8'd1;
          size = n_chunk + 16'd1 == chunks ? last_elems : chunk_elems;
          work = {32'd0, (size + {16'd0, lanes} - 32'd1) / {16'd0, lanes}} * rate_num;
`ifdef NORMSIM_MUTATE_LANES
          // The mutated build: a transaction started a cycle late (the test must see it).
          n_start = (n_free > first ? n_free : first) + rate_num;
`else
          n_start = n_free > first ? n_free : first;
`endif
          after = n_start + work;
          n_free = after > last_byte ? after : last_byte;
          kept = stored_elems > n_begin ? (stored_elems - n_begin < size ? stored_elems - n_begin : size) : 32'd0;
          summed = !fused ? 32'd0 : sum_all ? size : size - kept;
          n_store = kept[BYTES_W-1:0] * {{(BYTES_W-8){1'b0}}, elem_bytes};
          n_sum = summed[BYTES_W-1:0] * {{(BYTES_W-8){1'b0}}, elem_bytes};
          if ((kept != 0 || summed != 0) && n_start > now_units) begin
            n_phase = WAIT_EDGE;
            stop = 1'b1;
          end else begin
            done_with = 1'b1;
          end
        end
      end
      if (done_with) begin  // its writes go out at this edge, then the next transaction
        if (n_store != 0) begin
          sram_valid[writes[$clog2(TAKE)-1:0]] = 1'b1;
          sram_bytes[writes*BYTES_W +: BYTES_W] = n_store;
          sram_row[writes*32 +: 32] = n_row;
          sram_chunk[writes*16 +: 16] = n_chunk;
          writes = writes + 8'd1;
        end
        if (n_sum != 0) begin
          dram_valid[dwrites[$clog2(TAKE)-1:0]] = 1'b1;
          dram_bytes[dwrites*BYTES_W +: BYTES_W] = n_sum;
          write_row[dwrites[$clog2(TAKE)-1:0]] = sums_out;
          dwrites = dwrites + 8'd1;
        end
        finish_row = n_chunk + 16'd1 == chunks;
        n_chunk = finish_row ? 16'd0 : n_chunk + 16'd1;
        n_row = finish_row ? n_row + 32'd1 : n_row;
        n_begin = finish_row ? 32'd0 : n_begin + chunk_elems;
      end
      if (finish_row) begin  // the row's statistics, then to the normalise unit
        // Its lane states ready; the merge units take them once free (the
        // lanes held meanwhile), then the tree and the RSQRT unit.
        n_ready = n_free + {48'd0, lanes_latency} * rate_num;
        merge_start = n_ready > n_merge ? n_ready : n_merge;
        n_free = n_free + (merge_start - n_ready);
        n_merge = merge_start + {48'd0, merge_occupancy} * rate_num;
        n_ready = merge_start + ({48'd0, merge_latency} + {48'd0, finish_latency}) * rate_num;
        if (announce_sums) sums_out = sums_out + 8'd1;  // its z is in DRAM when its last write is
        if (room == 0) begin
          n_phase = WAIT_ROOM;
          stop = 1'b1;
        end else begin
          room = room - 8'd1;
          rows_ready[rows_out*64 +: 64] = n_ready;
          rows_out = rows_out + 8'd1;
        end
      end
    end
  end

  // The announced rows' z ends, from this edge's grants: the row of the
  // edge's first announcement carries the writes of earlier edges.
  reg [63:0] carried;
  integer a, w;
  always @* begin
    sums_done = 0;
    carried = row_sum;
    for (a = 0; a <= TAKE; a = a + 1) begin
      for (w = 0; w < TAKE; w = w + 1)
        if (w < {24'd0, dwrites} && {24'd0, write_row[w]} == a && dram_grant_end[w*64 +: 64] > carried)
          carried = dram_grant_end[w*64 +: 64];
      if (a < {24'd0, sums_out}) begin
        sums_done[a*64 +: 64] = carried;
        carried = 0;
      end
    end
  end
  // What the row still open after this edge has written: its z so far.
  reg [63:0] n_row_sum;
  integer u;
  always @* begin
    n_row_sum = sums_out == 0 ? row_sum : 64'd0;
    for (u = 0; u < TAKE; u = u + 1)
      if (u < {24'd0, dwrites} && write_row[u] == sums_out && dram_grant_end[u*64 +: 64] > n_row_sum)
        n_row_sum = dram_grant_end[u*64 +: 64];
  end

  always @(posedge clk) begin
    if (rst) begin
      phase <= WAIT_TAKE;
      free_at <= 0;
      start_at <= 0;
      ready_at <= 0;
      merge_free <= 0;
      chunk <= 0;
      row <= 0;
      chunk_begin <= 0;
      store_bytes <= 0;
      sum_bytes <= 0;
      row_sum <= 0;
      now_units <= 0;
    end else begin
      phase <= n_phase;
      free_at <= n_free;
      start_at <= n_start;
      ready_at <= n_ready;
      merge_free <= n_merge;
      chunk <= n_chunk;
      row <= n_row;
      chunk_begin <= n_begin;
      store_bytes <= n_store;
      sum_bytes <= n_sum;
      row_sum <= n_row_sum;
      now_units <= now_units + rate_num;
    end
  end
endmodule
