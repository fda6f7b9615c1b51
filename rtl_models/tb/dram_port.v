// The memory port of the testbench: the SystemC model's BandwidthServer
// (sim/asic/bandwidth_server.hpp) in clocked logic, shared by REQS
// requesters. A request of B bytes issued at edge c sees its first byte at
// max(c + latency, the port's free time, its not-before time) and then
// streams at rate_num / rate_den bytes a cycle; requests are served in
// issue order, reads and writes alike.
//
// The order within an edge: requester 0's request first, then 1's, and so
// on -- a fixed-priority arbiter. The clocked model makes its requests in
// that order too: each unit acts in a slot of the cycle of its own
// (sim/asic/unit_registry.cpp, cycle_slot), so the units wired to
// requesters 0, 1, ... in their slot order are served as the model serves
// them (docs/ASIC.md, "Whole cycles").
//
// The correspondence with the model, exactly (docs/RTL.md, "The memory
// port"): time is kept in units of 1/rate_num cycle, in which every start
// and every transfer is a whole number (B bytes take B * rate_den units),
// so the port's free time carries the fraction of a cycle a transfer ends
// in -- a byte-credit counter -- and the next request queued behind it
// starts there, as the model's does. A request is done at the first edge
// E with E * rate_num >= its end: the model's fluid `done` t is the edge
// ceil(t). Issued at whole cycles, both agree on every request.
//
// not_before (units; 0 for none) holds a request until data it needs
// exists: the model's replay read of a row buffer, held until the row's
// write into it has ended (SramIf::read's not_before), given as that
// write's end in the same units (an SRAM's read and write ports run at one
// rate).
//
// A testbench model, not a unit to synthesise: the rate and latency are
// inputs (one build serves every arch) and the products are the simulator's.
// Latency >= 1 (the model's DRAM and SRAM latencies are at least a cycle),
// so a request is never done at the edge it is issued.
module dram_port #(
  parameter integer REQS = 1,      // requesters, served at an edge in index order
  parameter integer BYTES_W = 24,  // request size
  parameter integer RATE_W = 24,   // rate_num, rate_den
  parameter integer LAT_W = 16,    // latency in cycles
  parameter integer DEPTH_LOG2 = 4 // requests in flight: 2^DEPTH_LOG2
) (
  input  wire                            clk,
  input  wire                            rst,
  input  wire [RATE_W-1:0]               rate_num,       // bytes a cycle = rate_num / rate_den
  input  wire [RATE_W-1:0]               rate_den,
  input  wire [LAT_W-1:0]                latency,        // cycles from a request to its first byte
  input  wire [REQS-1:0]                 req_valid,      // requester r asks at this edge
  input  wire [REQS*BYTES_W-1:0]         req_bytes,      // ... for these bytes
  input  wire [REQS*64-1:0]              req_not_before, // ... not starting before this time (units)
  output wire                            req_ready,      // room for a request of every requester
  output reg  [REQS*(DEPTH_LOG2+1)-1:0]  done_count,     // per requester: its requests done by this edge
  output reg  [REQS*64-1:0]              grant_first,    // per requester: this edge's request's first byte (units)
  output reg  [REQS*64-1:0]              grant_end       // ... and its end (units): the model's Grant
);
  localparam integer DEPTH = 1 << DEPTH_LOG2;
  localparam integer ID_W = REQS > 1 ? $clog2(REQS) : 1;
  localparam integer CNT_W = DEPTH_LOG2 + 1;
  reg [63:0] now_units;                // this edge, in 1/rate_num cycles
  reg [63:0] free_units;               // the end of the last request issued
  reg [63:0] end_units [0:DEPTH-1];    // each request in flight: its end
  reg [ID_W-1:0] owner [0:DEPTH-1];    // ... and its requester
  reg [CNT_W-1:0] head, tail;          // one bit more than the index: full vs empty

  wire [CNT_W-1:0] in_flight = tail - head;
  assign req_ready = {{(32-CNT_W){1'b0}}, in_flight} + REQS <= DEPTH;

  // The edge's requests, in requester order: each starts at the later of its
  // latency, the end of the one before it and its not-before time.
`ifdef NORMSIM_MUTATE_PORT
  // The mutated build: the first byte one cycle early (the test must see it).
  wire [63:0] after_latency = now_units + {{(64-LAT_W){1'b0}}, latency} * {{(64-RATE_W){1'b0}}, rate_num} - {{(64-RATE_W){1'b0}}, rate_num};
`else
  wire [63:0] after_latency = now_units + {{(64-LAT_W){1'b0}}, latency} * {{(64-RATE_W){1'b0}}, rate_num};
`endif
  reg [63:0] issue_end [0:REQS-1];     // each requester's request: its end
  reg [CNT_W-1:0] issue_pos [0:REQS-1];// ... and its place among the edge's requests
  reg [63:0] chain, first;
  reg [CNT_W-1:0] issued;
  wire issue_ok = !rst && req_ready;
  integer i, r;
  always @* begin
    chain = free_units;
    issued = 0;
    grant_first = 0;
    grant_end = 0;
    for (i = 0; i < REQS; i = i + 1) begin
`ifdef NORMSIM_MUTATE_PORT_ORDER
      r = REQS - 1 - i;  // the mutated build: the last requester first (the test must see it)
`else
      r = i;
`endif
      first = after_latency > chain ? after_latency : chain;
      if (req_not_before[r*64 +: 64] > first) first = req_not_before[r*64 +: 64];
      issue_end[r] = first + {{(64-BYTES_W){1'b0}}, req_bytes[r*BYTES_W +: BYTES_W]} * {{(64-RATE_W){1'b0}}, rate_den};
      grant_first[r*64 +: 64] = first;
      grant_end[r*64 +: 64] = issue_end[r];
      issue_pos[r] = issued;
      if (issue_ok && req_valid[r]) begin
        chain = issue_end[r];
        issued = issued + 1'b1;
      end
    end
  end

  // The requests done by the next edge: the first ones in flight whose end
  // it reaches, counted by requester.
  wire [63:0] next_units = now_units + {{(64-RATE_W){1'b0}}, rate_num};
  reg  [CNT_W-1:0] finishing;
  reg  [REQS*CNT_W-1:0] finishing_by;
  reg  [DEPTH_LOG2-1:0] at;
  reg stop;
  integer k, who;
  always @* begin
    finishing = 0;
    finishing_by = 0;
    stop = 1'b0;
    who = 0;
    for (k = 0; k < DEPTH; k = k + 1) begin
      at = head[DEPTH_LOG2-1:0] + k[DEPTH_LOG2-1:0];
      if (!stop && k[CNT_W-1:0] < in_flight && end_units[at] <= next_units) begin
        finishing = finishing + 1'b1;
        who = {{(32-ID_W){1'b0}}, owner[at]};
        finishing_by[who*CNT_W +: CNT_W] = finishing_by[who*CNT_W +: CNT_W] + 1'b1;
      end else begin
        stop = 1'b1;
      end
    end
  end

  integer q;
  always @(posedge clk) begin
    if (rst) begin
      now_units <= 64'd0;
      free_units <= 64'd0;
      head <= 0;
      tail <= 0;
      done_count <= 0;
    end else begin
      now_units <= next_units;
      done_count <= finishing_by;
      head <= head + finishing;
      free_units <= chain;
      for (q = 0; q < REQS; q = q + 1)
        if (issue_ok && req_valid[q]) begin
          end_units[tail[DEPTH_LOG2-1:0] + issue_pos[q][DEPTH_LOG2-1:0]] <= issue_end[q];
          owner[tail[DEPTH_LOG2-1:0] + issue_pos[q][DEPTH_LOG2-1:0]] <= q[ID_W-1:0];
        end
      tail <= tail + issued;
    end
  end
endmodule
