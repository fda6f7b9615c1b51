// The separate adder's pass (sim/asic/separate_adder_pass.cpp) in clocked
// logic: the unfused baseline of a residual workload makes z = x + r over
// the whole tensor before the norm unit starts. Each transaction's x and r
// are read (at most `window_bytes` in flight; a transaction larger still
// goes alone) and its z written at the edge both have landed; once every z
// is written it announces the end of the last write, and the input path
// starts at that edge.
//
// It acts first in the cycle (the model's slot order: unit_registry.cpp):
// at an edge it retires the reads that have landed and writes their z, in
// transaction order, then issues as many transactions as the window
// allows, up to ISSUE. Its times are the DRAM port's (1/rate_num cycle):
// a read's end E has landed at the edge c with c x rate_num >= E, the
// model's reached(E) at whole cycles.
//
// Request lanes, in the port's priority order: the writes of this edge on
// 0 .. WRITES-1, then transaction t's x on WRITES + 2t and its r on
// WRITES + 2t + 1 (the model's loop writes before it reads).
module residual_adder_pass #(
  parameter integer ISSUE = 16,     // transactions it may read at one edge
  parameter integer WRITES = 16,    // z writes at one edge
  parameter integer BYTES_W = 24,
  parameter integer QUEUE_LOG2 = 6  // transactions in flight it keeps (>= what the window holds)
) (
  input  wire                             clk,
  input  wire                             rst,
  input  wire                             enable,           // a separate adder's run (else it does nothing)
  input  wire [63:0]                      rate_num,         // the port's units a cycle
  input  wire [31:0]                      rows,
  input  wire [15:0]                      chunks,
  input  wire [BYTES_W-1:0]               x_bytes,          // x (and z) of a whole transaction
  input  wire [BYTES_W-1:0]               x_last_bytes,     // ... of a row's last
  input  wire [BYTES_W-1:0]               r_bytes,
  input  wire [BYTES_W-1:0]               r_last_bytes,
  input  wire [31:0]                      window_bytes,
  input  wire [(WRITES+2*ISSUE)*64-1:0]   grant_end,        // the port's answer to each request lane at this edge
  output reg  [WRITES+2*ISSUE-1:0]        req_valid,
  output reg  [(WRITES+2*ISSUE)*BYTES_W-1:0] req_bytes,
  output reg  [7:0]                       reads,            // read requests (x and r) at this edge
  output reg  [7:0]                       writes,           // z writes at this edge
  output reg                              done,             // z is all written (announced at this edge or before)
  output reg  [63:0]                      done_end,         // ... the end of its last write (port units)
  output reg                              overflow          // more at one edge than the lanes: not comparable
);
  localparam integer QUEUE = 1 << QUEUE_LOG2;
  reg [63:0] now_units;                     // this edge, in port units
  reg [63:0] issued, written, in_flight_bytes, last_end;
  reg        announced;
  reg [63:0] landed [0:QUEUE-1];            // each transaction in flight: its r read's end
  reg [BYTES_W:0] flight_of [0:QUEUE-1];    // ... and its bytes in the window
  wire [63:0] total = {32'd0, rows} * {48'd0, chunks};

  reg [63:0] n_issued, n_written, n_flight, n_last, w_end;
  reg [15:0] k_of;
  reg        stop;
  reg [BYTES_W:0] xb, rb;
  integer issue_end_lane [0:ISSUE-1];       // which lane holds each new transaction's r
  reg [BYTES_W:0] issue_flight [0:ISSUE-1];
  integer t, j, nw, nr;                     // this edge's writes and read lanes
  always @* begin
    req_valid = 0;
    req_bytes = 0;
    nw = 0;
    nr = 0;
    reads = 0;
    writes = 0;
    k_of = 0;
    overflow = 1'b0;
    stop = 1'b0;
    xb = 0;
    rb = 0;
    n_issued = issued;
    n_written = written;
    n_flight = in_flight_bytes;
    n_last = last_end;
    w_end = 0;
    for (j = 0; j < ISSUE; j = j + 1) begin
      issue_end_lane[j] = 0;
      issue_flight[j] = 0;
    end
    done = announced;
    done_end = last_end;
    if (!rst && enable && !announced) begin
      // The reads that have landed leave the window; their z go out, in order.
      for (t = 0; t < QUEUE; t = t + 1)
        if (!stop && n_written < n_issued && landed[n_written[QUEUE_LOG2-1:0]] <= now_units) begin
          if (nw == WRITES) begin
            overflow = 1'b1;
            stop = 1'b1;
          end else begin
            k_of = n_written[15:0] % chunks;  // chunks <= 2^16: the transaction's place in its row
            req_valid[nw] = 1'b1;
            req_bytes[nw*BYTES_W +: BYTES_W] = k_of + 16'd1 == chunks ? x_last_bytes : x_bytes;
            w_end = grant_end[nw*64 +: 64];
            if (w_end > n_last) n_last = w_end;
            n_flight = n_flight - {{(63-BYTES_W){1'b0}}, flight_of[n_written[QUEUE_LOG2-1:0]]};
            n_written = n_written + 64'd1;
            nw = nw + 1;
          end
        end
      stop = 1'b0;
      if (n_issued == total && n_written == n_issued) begin
        done = 1'b1;
        done_end = n_last;
      end
      // Then as many transactions as the window allows.
      for (t = 0; t < ISSUE + 1; t = t + 1)
        if (!stop && n_issued < total) begin
          k_of = n_issued[15:0] % chunks;
          xb = {1'b0, k_of + 16'd1 == chunks ? x_last_bytes : x_bytes};
          rb = {1'b0, k_of + 16'd1 == chunks ? r_last_bytes : r_bytes};
          if (n_written != n_issued && n_flight + {{(63-BYTES_W){1'b0}}, xb + rb} > {32'd0, window_bytes}) begin
            stop = 1'b1;
          end else if (nr == 2 * ISSUE) begin
            overflow = 1'b1;
            stop = 1'b1;
          end else begin
            req_valid[WRITES + nr] = 1'b1;
            req_bytes[(WRITES + nr)*BYTES_W +: BYTES_W] = xb[BYTES_W-1:0];
            req_valid[WRITES + nr + 1] = 1'b1;
            req_bytes[(WRITES + nr + 1)*BYTES_W +: BYTES_W] = rb[BYTES_W-1:0];
            issue_end_lane[nr / 2] = WRITES + nr + 1;
            issue_flight[nr / 2] = xb + rb;
            n_flight = n_flight + {{(63-BYTES_W){1'b0}}, xb + rb};
            n_issued = n_issued + 64'd1;
            nr = nr + 2;
          end
        end
    end
    reads = nr[7:0];
    writes = nw[7:0];
  end

  integer q;
  always @(posedge clk) begin
    if (rst) begin
      now_units <= 0;
      issued <= 0;
      written <= 0;
      in_flight_bytes <= 0;
      last_end <= 0;
      announced <= 1'b0;
    end else begin
      now_units <= now_units + rate_num;
      for (q = 0; q < ISSUE; q = q + 1)
        if (2 * q < {24'd0, reads}) begin
          landed[issued[QUEUE_LOG2-1:0] + q[QUEUE_LOG2-1:0]] <= grant_end[issue_end_lane[q]*64 +: 64];
          flight_of[issued[QUEUE_LOG2-1:0] + q[QUEUE_LOG2-1:0]] <= issue_flight[q];
        end
      issued <= n_issued;
      written <= n_written;
      in_flight_bytes <= n_flight;
      last_end <= n_last;
      announced <= done;
    end
  end
endmodule
