// The input path (sim/asic/input_path_unit.cpp) in clocked logic: gamma/beta
// read once, then each row's transactions -- x, and r beside it when a
// residual is fused -- into a free row buffer, with at most `window_bytes`
// of its reads in flight, each transaction handed to the lanes through
// their FIFO before the next is issued.
//
// The model's unit acts at whole cycles in a slot of its own (asic.timing:
// cycle; docs/ASIC.md, "Whole cycles"). So does this one: at an edge it
// sees the row buffers the normalise unit handed back at that edge (an
// earlier slot: a bypass) and the FIFO room the lanes left at the edge
// before (a later slot: registered), and it issues as the model's loop
// does, as many transactions as the window, the FIFO and the buffers allow
// -- up to ISSUE an edge, the port's request lanes it drives. Its reads
// complete in issue order (the port is a FIFO server), so a transaction is
// done when the port has finished its last request.
//
// With a separate adder (the unfused baseline of a residual) it starts at
// the edge the adder's last z write has ended (`start`), as the model's
// unit waits for the adder's announcement.
//
// Request lanes, in the port's priority order: 0 the parameters (once),
// then transaction t's x on 1 + 2t and its r on 2 + 2t. A transaction
// handed to the lanes carries its grant -- x's first byte, the end of its
// last request -- in the port's units, as the model's token does.
module input_path #(
  parameter integer ISSUE = 16,     // transactions it may issue at one edge
  parameter integer BYTES_W = 24,   // a request's bytes
  parameter integer QUEUE_LOG2 = 6  // transactions in flight it keeps (>= what the window holds)
) (
  input  wire                             clk,
  input  wire                             rst,
  // The run's geometry, held.
  input  wire [31:0]                      rows,
  input  wire [15:0]                      chunks,             // transactions a row
  input  wire [BYTES_W-1:0]               x_bytes,            // x of a whole transaction
  input  wire [BYTES_W-1:0]               x_last_bytes,       // ... of a row's last
  input  wire [BYTES_W-1:0]               r_bytes,            // r of a whole transaction (0: not fused)
  input  wire [BYTES_W-1:0]               r_last_bytes,
  input  wire [BYTES_W-1:0]               param_bytes,        // gamma/beta
  input  wire [31:0]                      window_bytes,       // reads in flight at most (a read larger still goes alone)
  input  wire [7:0]                       row_buffers,        // the free pool at reset
  input  wire                             start,              // it may start: a separate adder's z is in DRAM (or none is made)
  // This edge's surroundings.
  input  wire [7:0]                       buffers_returned,   // handed back by the normalise unit at this edge
  input  wire [7:0]                       fifo_free,          // room in the FIFO to the lanes
  input  wire [7:0]                       port_done,          // this unit's requests the port finished by this edge
  input  wire [(2*ISSUE+1)*64-1:0]        grant_first,        // the port's answer to each request lane at this edge
  input  wire [(2*ISSUE+1)*64-1:0]        grant_end,
  // What it does at this edge.
  output reg  [2*ISSUE:0]                 req_valid,
  output reg  [(2*ISSUE+1)*BYTES_W-1:0]   req_bytes,
  output reg  [7:0]                       issued,             // transactions
  output reg  [7:0]                       tokens,             // transactions handed to the lanes
  output wire [(ISSUE+1)*64-1:0]          token_first,        // ... each one's grant, in FIFO order
  output wire [(ISSUE+1)*64-1:0]          token_end,
  output reg  [7:0]                       buffers_taken,
  output reg                              overflow            // the model would issue more than ISSUE: not comparable
);
  localparam integer QUEUE = 1 << QUEUE_LOG2;
  reg        params_issued;
  reg [31:0] row;
  reg [15:0] chunk;
  reg        has_buffer, pending;
  reg [7:0]  pool;
  reg [63:0] requests_done;                 // the port's completions of this unit's requests, all so far
  reg [63:0] retired, issued_total;         // transactions
  reg [63:0] in_flight_bytes;
  reg [BYTES_W:0] queue_bytes [0:QUEUE-1];  // each transaction in flight: its bytes

  wire        fused = r_bytes != 0;
  wire [63:0] per_transaction = fused ? 64'd2 : 64'd1;

  // The edge's work, as the model's loop: blocking temporaries, then registered.
  reg        n_params, n_pending, n_has_buffer, stop;
  reg [31:0] n_row;
  reg [15:0] n_chunk;
  reg [7:0]  n_pool, n_room;
  reg [63:0] done_now, n_retired, n_flight;
  reg [BYTES_W:0] bytes, xb, rb;
  reg [BYTES_W:0] issue_bytes [0:ISSUE-1];
  // Which transaction each token of this edge is: 0 the one pending from an
  // earlier edge, 1 + j this edge's j-th (its grant comes from the port).
  reg [7:0]  token_source [0:ISSUE];
  reg [7:0]  pending_source;
  integer t, k;
  always @* begin
    n_params = params_issued;
    n_pending = pending;
    n_has_buffer = has_buffer;
    n_row = row;
    n_chunk = chunk;
    n_pool = pool + buffers_returned;
    n_room = fifo_free;
    req_valid = 0;
    req_bytes = 0;
    issued = 0;
    tokens = 0;
    buffers_taken = 0;
    overflow = 1'b0;
    stop = 1'b0;
    bytes = 0;
    xb = 0;
    rb = 0;
    for (k = 0; k < ISSUE; k = k + 1) issue_bytes[k] = 0;
    for (k = 0; k <= ISSUE; k = k + 1) token_source[k] = 0;
    pending_source = 0;
    // Transactions whose last request the port has finished leave the window.
    done_now = requests_done + {56'd0, port_done};
    n_retired = retired;
    n_flight = in_flight_bytes;
    for (k = 0; k < QUEUE; k = k + 1)
      if (n_retired < issued_total && done_now >= 64'd1 + per_transaction * (n_retired + 64'd1)) begin
        n_flight = n_flight - {{(63-BYTES_W){1'b0}}, queue_bytes[n_retired[QUEUE_LOG2-1:0]]};
        n_retired = n_retired + 64'd1;
      end
    if (!rst && start && !n_params) begin  // gamma/beta first
      req_valid[0] = 1'b1;
      req_bytes[0 +: BYTES_W] = param_bytes;
      n_params = 1'b1;
    end
    for (t = 0; t <= ISSUE; t = t + 1) begin
      if (!rst && !stop && n_pending) begin  // the last transaction waits for room in the FIFO
        if (n_room == 0) begin
          stop = 1'b1;
        end else begin
          n_room = n_room - 8'd1;
          token_source[tokens[$clog2(ISSUE+1)-1:0]] = pending_source;
          tokens = tokens + 8'd1;
          n_pending = 1'b0;
          n_chunk = n_chunk + 16'd1;
          if (n_chunk == chunks) begin
            n_chunk = 0;
            n_row = n_row + 32'd1;
            n_has_buffer = 1'b0;
          end
        end
      end
      if (rst || !start || stop || n_row == rows) stop = 1'b1;
      if (!stop && !n_has_buffer) begin  // a row starts in a free buffer
        if (n_pool == 0) begin
          stop = 1'b1;
        end else begin
          n_pool = n_pool - 8'd1;
          buffers_taken = buffers_taken + 8'd1;
          n_has_buffer = 1'b1;
        end
      end
      if (!stop) begin
        xb = {1'b0, n_chunk + 16'd1 == chunks ? x_last_bytes : x_bytes};
        rb = {1'b0, n_chunk + 16'd1 == chunks ? r_last_bytes : r_bytes};
        bytes = xb + rb;
        // Within the window, unless nothing is in flight.
`ifdef NORMSIM_MUTATE_WINDOW
        // The mutated build: the window counts what is in flight, not the new transaction too.
        if (issued_total + {56'd0, issued} != n_retired && n_flight > {32'd0, window_bytes}) begin
`else
        if (issued_total + {56'd0, issued} != n_retired &&
            n_flight + {{(63-BYTES_W){1'b0}}, bytes} > {32'd0, window_bytes}) begin
`endif
          stop = 1'b1;
        end else if (issued == ISSUE[7:0]) begin
          overflow = 1'b1;
          stop = 1'b1;
        end else begin
          req_valid[1 + 2*issued] = 1'b1;
          req_bytes[(1 + 2*issued)*BYTES_W +: BYTES_W] = xb[BYTES_W-1:0];
          if (fused) begin
            req_valid[2 + 2*issued] = 1'b1;
            req_bytes[(2 + 2*issued)*BYTES_W +: BYTES_W] = rb[BYTES_W-1:0];
          end
          issue_bytes[issued[$clog2(ISSUE)-1:0]] = bytes;
          n_flight = n_flight + {{(63-BYTES_W){1'b0}}, bytes};
          issued = issued + 8'd1;
          n_pending = 1'b1;
          pending_source = issued;  // 1 + its index
        end
      end
    end
  end

  // The transactions' grants, as the model's tokens carry them.
  reg [(ISSUE+1)*8-1:0] sources;
  integer m;
  always @* for (m = 0; m <= ISSUE; m = m + 1) sources[m*8 +: 8] = token_source[m];
  handover_grants #(.ISSUE(ISSUE), .LANES(2*ISSUE+1), .BASE(1), .STRIDE(2)) grants (
    .clk(clk), .rst(rst), .tokens(tokens), .sources(sources), .pending_source(pending_source), .pending(n_pending),
    .end_lane(fused ? 32'd1 : 32'd0), .grant_first(grant_first), .grant_end(grant_end), .token_first(token_first),
    .token_end(token_end));

  integer q;
  always @(posedge clk) begin
    if (rst) begin
      params_issued <= 1'b0;
      row <= 0;
      chunk <= 0;
      has_buffer <= 1'b0;
      pending <= 1'b0;
      pool <= row_buffers;
      requests_done <= 0;
      retired <= 0;
      issued_total <= 0;
      in_flight_bytes <= 0;
    end else begin
      params_issued <= n_params;
      row <= n_row;
      chunk <= n_chunk;
      has_buffer <= n_has_buffer;
      pending <= n_pending;
      pool <= n_pool;
      requests_done <= done_now;
      retired <= n_retired;
      in_flight_bytes <= n_flight;
      for (q = 0; q < ISSUE; q = q + 1)
        if (q < {24'd0, issued}) queue_bytes[issued_total[QUEUE_LOG2-1:0] + q[QUEUE_LOG2-1:0]] <= issue_bytes[q];
      issued_total <= issued_total + {56'd0, issued};
    end
  end
endmodule
