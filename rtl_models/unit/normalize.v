// The normalise unit (sim/asic/normalize_unit.cpp) in clocked logic,
// forward pass: each row back from its row buffer (SRAM) and the re-read
// FIFO, L outputs a cycle, written to DRAM through a write buffer whose
// fullness holds it back; its statistics written after it (when the run
// keeps them); its row buffer handed back to the input path.
//
// Clocked as the model's unit (asic.timing: cycle), in the first slot of
// the cycle after the separate adder's: the rows and re-read transactions
// the lanes and the re-read stream handed over at earlier edges are what
// it sees, and a buffer it hands back is the input path's at the same
// edge. Its replay address generator is part of it, as in the model: a
// row's SRAM reads go out at the edge the SRAM's latency before the row
// starts, while the unit computes the row before -- a row ahead at most
// (it takes a row once the row before has its end known). At an edge the
// two act in turn until neither can, as the model's two processes do
// through their events.
//
// Times are kept in one unit for both memories, 1/unit_per_cycle cycle:
// the SRAM port's own (it runs at rate_num = unit_per_cycle), the DRAM
// port's times scaled by dram_scale.
module normalize #(
  parameter integer MAXCH = 16,    // transactions a row at most
  parameter integer WRITES = 32,   // output writes in flight at most (the write buffer's)
  parameter integer NW = 18,       // DRAM writes at one edge at most
  parameter integer BYTES_W = 24
) (
  input  wire                     clk,
  input  wire                     rst,
  input  wire [63:0]              unit_per_cycle,
  input  wire [63:0]              dram_scale,      // common units a DRAM port unit
  input  wire [31:0]              rows,
  input  wire [15:0]              chunks,
  input  wire [31:0]              chunk_elems,
  input  wire [31:0]              last_elems,
  input  wire [31:0]              stored_elems,
  input  wire [7:0]               elem_bytes,      // x's, kept and re-read
  input  wire [7:0]               out_bytes,       // y's
  input  wire [15:0]              lanes,
  input  wire [15:0]              sram_latency,
  input  wire [31:0]              write_buffer_bytes,
  input  wire [15:0]              stats_bytes,     // a row's statistics (0: not written)
  input  wire [63:0]              params_done,     // gamma/beta on chip (DRAM units)
  // The rows the lanes handed over at earlier edges: how many, the oldest's statistics ready (DRAM units).
  input  wire [7:0]               rows_avail,
  input  wire [63:0]              row_ready,
  output reg  [7:0]               rows_taken,
  // The re-read transactions, oldest first (DRAM units).
  input  wire [7:0]               reread_avail,
  input  wire [MAXCH*64-1:0]      reread_first,
  input  wire [MAXCH*64-1:0]      reread_end,
  output reg  [7:0]               reread_taken,
  // Where the writes of the row the generator reads ended in its buffer (common units).
  input  wire [MAXCH*64-1:0]      written,
  output wire [31:0]              reading_row,     // ... that row
  // The generator's SRAM reads and the port's answers.
  output reg  [MAXCH-1:0]         sram_valid,
  output reg  [MAXCH*BYTES_W-1:0] sram_bytes,
  output reg  [MAXCH*64-1:0]      sram_not_before,
  input  wire [MAXCH*64-1:0]      sram_first,
  input  wire [MAXCH*64-1:0]      sram_end,
  // The DRAM writes, in order: output transactions, a row's statistics after its last.
  output reg  [NW-1:0]            dram_valid,
  output reg  [NW*BYTES_W-1:0]    dram_bytes,
  input  wire [NW*64-1:0]         dram_end,        // DRAM units
  output reg  [7:0]               outputs,         // output transactions written at this edge
  output reg  [7:0]               stats_writes,    // rows' statistics written at this edge
  output reg  [7:0]               buffers_back,    // row buffers handed back at this edge
  output reg                      overflow
);
  localparam [1:0] TAKE = 2'd0, FETCH = 2'd1, WRITE = 2'd2;
  localparam integer QW = $clog2(WRITES);
  reg [63:0] now;  // this edge, in common units

  // The generator's registers.
  reg        gen_has;                 // a row taken, its reads not yet out
  reg [63:0] gen_ready;
  reg [31:0] generated, scheduled;    // rows whose reads went out; whose last transaction is scheduled
  reg [63:0] row_end;                 // the end of the last scheduled
  reg [63:0] replay_issued;           // the edge of the last replay read
  reg        replay_has;              // a row whose reads are out, for the unit to take
  reg [63:0] replay_ready;
  reg [63:0] replay_first [0:MAXCH-1], replay_end [0:MAXCH-1];
  // The unit's registers.
  reg [1:0]  phase;
  reg [63:0] ready, t, issue;
  reg [15:0] k;
  reg [63:0] fs_first [0:MAXCH-1], fs_end [0:MAXCH-1], fd_first [0:MAXCH-1], fd_end [0:MAXCH-1];
  reg [63:0] w_done [0:WRITES-1];     // the write buffer: each write in flight, its end and bytes
  reg [31:0] w_bytes [0:WRITES-1];
  reg [QW:0] w_head, w_count;
  reg [31:0] w_inflight;

  // The edge's work: blocking copies of the registers.
  reg        n_gen_has, n_replay_has, stop_main, stop_gen, progress;
  reg [63:0] n_gen_ready, n_row_end, n_replay_issued, n_replay_ready, n_ready, n_t, n_issue, target, lat_units;
  reg [31:0] n_generated, n_scheduled, n_inflight;
  reg [1:0]  n_phase;
  reg [15:0] n_k;
  reg [63:0] n_fs_first [0:MAXCH-1], n_fs_end [0:MAXCH-1], n_fd_first [0:MAXCH-1], n_fd_end [0:MAXCH-1];
  reg [63:0] n_rf [0:MAXCH-1], n_re [0:MAXCH-1];
  reg [QW:0] n_w_head, n_w_count;
  reg [7:0]  writes_now;              // DRAM writes at this edge so far
  reg [7:0]  lane_of [0:WRITES-1];    // a write of this edge in the buffer: its request lane
  reg [WRITES-1:0] fresh;             // ... and whether it is of this edge
  reg [31:0] size, kept, part, out;
  reg [63:0] start, finish, front;
  integer it, c, q;

  function [31:0] size_of(input [15:0] chunk);
    size_of = chunk + 16'd1 == chunks ? last_elems : chunk_elems;
  endfunction
  function [31:0] kept_of(input [15:0] chunk);
    reg [31:0] b;
    begin
      b = {16'd0, chunk} * chunk_elems;
      kept_of = stored_elems > b ? (stored_elems - b < size_of(chunk) ? stored_elems - b : size_of(chunk)) : 32'd0;
    end
  endfunction
  function [63:0] max64(input [63:0] a, input [63:0] b);
    max64 = a > b ? a : b;
  endfunction

  assign reading_row = generated;

  always @* begin
    n_gen_has = gen_has;
    n_gen_ready = gen_ready;
    n_generated = generated;
    n_scheduled = scheduled;
    n_row_end = row_end;
    n_replay_issued = replay_issued;
    n_replay_has = replay_has;
    n_replay_ready = replay_ready;
    n_phase = phase;
    n_ready = ready;
    n_t = t;
    n_issue = issue;
    n_k = k;
    n_w_head = w_head;
    n_w_count = w_count;
    n_inflight = w_inflight;
    for (c = 0; c < MAXCH; c = c + 1) begin
      n_fs_first[c] = fs_first[c];
      n_fs_end[c] = fs_end[c];
      n_fd_first[c] = fd_first[c];
      n_fd_end[c] = fd_end[c];
      n_rf[c] = replay_first[c];
      n_re[c] = replay_end[c];
    end
    for (q = 0; q < WRITES; q = q + 1) lane_of[q] = 0;
    fresh = 0;
    rows_taken = 0;
    reread_taken = 0;
    sram_valid = 0;
    sram_bytes = 0;
    sram_not_before = 0;
    dram_valid = 0;
    dram_bytes = 0;
    outputs = 0;
    stats_writes = 0;
    buffers_back = 0;
    overflow = 1'b0;
    writes_now = 0;
    size = 0;
    kept = 0;
    part = 0;
    out = 0;
    start = 0;
    finish = 0;
    front = 0;
    target = 0;
    lat_units = {48'd0, sram_latency} * unit_per_cycle;
    stop_main = rst;
    stop_gen = rst;
    progress = !rst;
    for (it = 0; it < 2 * MAXCH + 8; it = it + 1) begin
      if (progress) begin
        progress = 1'b0;
        // ---- The unit, until it must wait. ----
        if (!stop_main && n_phase == TAKE) begin
          if (!n_replay_has) begin
            stop_main = 1'b1;
          end else begin
            n_replay_has = 1'b0;
            n_ready = n_replay_ready;
            for (c = 0; c < MAXCH; c = c + 1) begin
              n_fs_first[c] = n_rf[c];
              n_fs_end[c] = n_re[c];
            end
            n_k = 0;
            n_phase = FETCH;
            progress = 1'b1;
            stop_gen = 1'b0;
          end
        end
        // From the row's start: the re-read part of each transaction from its FIFO, in order.
        if (!stop_main && n_phase == FETCH && n_ready > now) stop_main = 1'b1;
        for (c = 0; c < MAXCH; c = c + 1)
          if (!stop_main && n_phase == FETCH && n_k < chunks) begin
            size = size_of(n_k);
            part = size - kept_of(n_k);
            if (part == 0) begin
              n_fd_first[n_k[$clog2(MAXCH)-1:0]] = n_ready;
              n_fd_end[n_k[$clog2(MAXCH)-1:0]] = n_ready;
              n_k = n_k + 16'd1;
            end else if (reread_taken == reread_avail) begin
              stop_main = 1'b1;
            end else begin
              n_fd_first[n_k[$clog2(MAXCH)-1:0]] = reread_first[reread_taken*64 +: 64] * dram_scale;
              n_fd_end[n_k[$clog2(MAXCH)-1:0]] = reread_end[reread_taken*64 +: 64] * dram_scale;
              reread_taken = reread_taken + 8'd1;
              n_k = n_k + 16'd1;
            end
          end
        if (!stop_main && n_phase == FETCH && n_k == chunks) begin
          n_t = n_ready;
          n_k = 0;
          n_phase = WRITE;
          progress = 1'b1;
          schedule_chunk;
        end
        if (!stop_main && n_phase == WRITE) begin
          if (n_issue > now) begin
            stop_main = 1'b1;
          end else if (writes_now + 8'd2 > NW[7:0]) begin
            overflow = 1'b1;
            stop_main = 1'b1;
          end else begin
            // The transaction's outputs to DRAM, through the write buffer.
            out = size_of(n_k) * {24'd0, out_bytes};
            dram_valid[writes_now[$clog2(NW)-1:0]] = 1'b1;
            dram_bytes[writes_now*BYTES_W +: BYTES_W] = out[BYTES_W-1:0];
            lane_of[n_w_head[QW-1:0] + n_w_count[QW-1:0]] = writes_now;
            fresh[n_w_head[QW-1:0] + n_w_count[QW-1:0]] = 1'b1;
            writes_now = writes_now + 8'd1;
            outputs = outputs + 8'd1;
            n_w_count = n_w_count + 1'b1;
            n_inflight = n_inflight + out;
            n_t = n_issue;
            n_k = n_k + 16'd1;
            progress = 1'b1;
            if (n_k == chunks) begin  // the row is done: its statistics, its buffer back
              if (stats_bytes != 0) begin
                dram_valid[writes_now[$clog2(NW)-1:0]] = 1'b1;
                dram_bytes[writes_now*BYTES_W +: BYTES_W] = {{(BYTES_W-16){1'b0}}, stats_bytes};
                writes_now = writes_now + 8'd1;
                stats_writes = stats_writes + 8'd1;
              end
              buffers_back = buffers_back + 8'd1;
              n_phase = TAKE;
            end else begin
              schedule_chunk;
            end
          end
        end
        // ---- The generator, until it must wait. ----
        if (!stop_gen && !n_gen_has) begin
          if (n_scheduled < n_generated || n_generated == rows || rows_taken == rows_avail) begin
            stop_gen = 1'b1;
          end else begin
            // It starts once the unit is free, gamma/beta are on chip and its statistics are out.
`ifdef NORMSIM_MUTATE_NORMALIZE
            // The mutated build: a row started a cycle late (the test must see it).
            n_gen_ready = max64(max64(n_row_end, params_done * dram_scale), row_ready * dram_scale) + unit_per_cycle;
`else
            n_gen_ready = max64(max64(n_row_end, params_done * dram_scale), row_ready * dram_scale);
`endif
            rows_taken = rows_taken + 8'd1;
            n_gen_has = 1'b1;
            progress = 1'b1;
          end
        end
        if (!stop_gen && n_gen_has) begin
          target = n_gen_ready > lat_units ? max64(n_replay_issued, n_gen_ready - lat_units) : n_replay_issued;
          if (target > now || n_replay_has) begin
            stop_gen = 1'b1;
          end else begin
            for (c = 0; c < MAXCH; c = c + 1) begin
              kept = c < {16'd0, chunks} ? kept_of(c[15:0]) : 32'd0;
              n_rf[c] = n_gen_ready;
              n_re[c] = n_gen_ready;
              if (kept != 0) begin
                sram_valid[c] = 1'b1;
                sram_bytes[c*BYTES_W +: BYTES_W] = kept[BYTES_W-1:0] * {{(BYTES_W-8){1'b0}}, elem_bytes};
                sram_not_before[c*64 +: 64] = written[c*64 +: 64];
                n_rf[c] = sram_first[c*64 +: 64];
                n_re[c] = sram_end[c*64 +: 64];
                n_replay_issued = now;
              end
            end
            n_replay_has = 1'b1;
            n_replay_ready = n_gen_ready;
            n_gen_has = 1'b0;
            n_generated = n_generated + 32'd1;
            progress = 1'b1;
            stop_main = 1'b0;
          end
        end
      end
    end
    if (progress) overflow = 1'b1;  // the loop would have gone on
  end

  // A write of the buffer's end: one of this edge's from the port's answer.
  function [63:0] done_of(input [QW-1:0] idx);
    done_of = fresh[idx] ? dram_end[lane_of[idx]*64 +: 64] * dram_scale : w_done[idx];
  endfunction

  // Transaction n_k's compute and the cycle its outputs may be written
  // (n_issue): after its inputs and its work, and once the write buffer
  // has room -- the writes done by then retire, and the oldest are waited
  // for. Its row's end, at its last transaction.
  task schedule_chunk;
    begin
      size = size_of(n_k);
      start = max64(max64(n_t, n_fs_first[n_k[$clog2(MAXCH)-1:0]]), n_fd_first[n_k[$clog2(MAXCH)-1:0]]);
      finish = max64(max64(start + {32'd0, (size + {16'd0, lanes} - 32'd1) / {16'd0, lanes}} * unit_per_cycle,
                           n_fs_end[n_k[$clog2(MAXCH)-1:0]]), n_fd_end[n_k[$clog2(MAXCH)-1:0]]);
      out = size * {24'd0, out_bytes};
      n_issue = finish;
      for (q = 0; q < WRITES; q = q + 1)
        if (n_w_count != 0 && done_of(n_w_head[QW-1:0]) <= n_issue) begin
          n_inflight = n_inflight - w_bytes_of(n_w_head[QW-1:0]);
          n_w_head = n_w_head + 1'b1;
          n_w_count = n_w_count - 1'b1;
        end
      for (q = 0; q < WRITES; q = q + 1)
        if (n_w_count != 0 && n_inflight + out > write_buffer_bytes) begin
          front = done_of(n_w_head[QW-1:0]);
          if (front > n_issue) n_issue = front;
          n_inflight = n_inflight - w_bytes_of(n_w_head[QW-1:0]);
          n_w_head = n_w_head + 1'b1;
          n_w_count = n_w_count - 1'b1;
        end
      if (n_k + 16'd1 == chunks) begin  // the row's end is known: the generator may take the next
        n_row_end = n_issue;
        n_scheduled = n_scheduled + 32'd1;
        stop_gen = 1'b0;
      end
      if (n_issue > now) stop_main = 1'b1;
    end
  endtask
  function [31:0] w_bytes_of(input [QW-1:0] idx);
    w_bytes_of = fresh[idx] ? {{(32-BYTES_W){1'b0}}, dram_bytes[lane_of[idx]*BYTES_W +: BYTES_W]} : w_bytes[idx];
  endfunction

  integer r;
  always @(posedge clk) begin
    if (rst) begin
      now <= 0;
      gen_has <= 1'b0;
      gen_ready <= 0;
      generated <= 0;
      scheduled <= 0;
      row_end <= 0;
      replay_issued <= 0;
      replay_has <= 1'b0;
      replay_ready <= 0;
      phase <= TAKE;
      ready <= 0;
      t <= 0;
      issue <= 0;
      k <= 0;
      w_head <= 0;
      w_count <= 0;
      w_inflight <= 0;
    end else begin
      now <= now + unit_per_cycle;
      gen_has <= n_gen_has;
      gen_ready <= n_gen_ready;
      generated <= n_generated;
      scheduled <= n_scheduled;
      row_end <= n_row_end;
      replay_issued <= n_replay_issued;
      replay_has <= n_replay_has;
      replay_ready <= n_replay_ready;
      phase <= n_phase;
      ready <= n_ready;
      t <= n_t;
      issue <= n_issue;
      k <= n_k;
      w_head <= n_w_head;
      w_count <= n_w_count;
      w_inflight <= n_inflight;
      for (r = 0; r < MAXCH; r = r + 1) begin
        fs_first[r] <= n_fs_first[r];
        fs_end[r] <= n_fs_end[r];
        fd_first[r] <= n_fd_first[r];
        fd_end[r] <= n_fd_end[r];
        replay_first[r] <= n_rf[r];
        replay_end[r] <= n_re[r];
      end
      for (r = 0; r < WRITES; r = r + 1)
        if (fresh[r]) begin
          w_done[r] <= dram_end[lane_of[r]*64 +: 64] * dram_scale;
          w_bytes[r] <= {{(32-BYTES_W){1'b0}}, dram_bytes[lane_of[r]*BYTES_W +: BYTES_W]};
        end
    end
  end
endmodule
