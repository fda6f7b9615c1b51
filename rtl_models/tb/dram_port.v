// The memory port of the testbench: the SystemC model's BandwidthServer
// (sim/asic/bandwidth_server.hpp) in clocked logic. A request of B bytes
// issued at edge c sees its first byte at max(c + latency, the port's free
// time) and then streams at rate_num / rate_den bytes a cycle; requests are
// served in issue order, reads and writes alike.
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
// A testbench model, not a unit to synthesise: the rate and latency are
// inputs (one build serves every arch) and the products are the simulator's.
// One request an edge; latency >= 1 (the model's DRAM and SRAM latencies
// are at least a cycle), so a request is never done at the edge it is issued.
module dram_port #(
  parameter integer BYTES_W = 24,  // request size
  parameter integer RATE_W = 24,   // rate_num, rate_den
  parameter integer LAT_W = 16,    // latency in cycles
  parameter integer DEPTH_LOG2 = 4 // requests in flight: 2^DEPTH_LOG2
) (
  input  wire               clk,
  input  wire               rst,
  input  wire [RATE_W-1:0]  rate_num,   // bytes a cycle = rate_num / rate_den
  input  wire [RATE_W-1:0]  rate_den,
  input  wire [LAT_W-1:0]   latency,    // cycles from a request to its first byte
  input  wire               req_valid,  // a request at this edge
  input  wire [BYTES_W-1:0] req_bytes,
  output wire               req_ready,  // room for one
  output reg  [DEPTH_LOG2:0] done_count // requests whose last byte moved by this edge, in issue order
);
  localparam integer DEPTH = 1 << DEPTH_LOG2;
  localparam [DEPTH_LOG2:0] FULL = DEPTH[DEPTH_LOG2:0];
  reg [63:0] now_units;                // this edge, in 1/rate_num cycles
  reg [63:0] free_units;               // the end of the last request issued
  reg [63:0] end_units [0:DEPTH-1];    // each request in flight: its end
  reg [DEPTH_LOG2:0] head, tail;       // one bit more than the index: full vs empty

  wire [DEPTH_LOG2:0] in_flight = tail - head;
  assign req_ready = in_flight != FULL;

  // The new request: it starts at the later of its latency and the port's free time.
`ifdef NORMSIM_MUTATE_PORT
  // The mutated build: the first byte one cycle early (the test must see it).
  wire [63:0] after_latency = now_units + {{(64-LAT_W){1'b0}}, latency} * {{(64-RATE_W){1'b0}}, rate_num} - {{(64-RATE_W){1'b0}}, rate_num};
`else
  wire [63:0] after_latency = now_units + {{(64-LAT_W){1'b0}}, latency} * {{(64-RATE_W){1'b0}}, rate_num};
`endif
  wire [63:0] first_units = after_latency > free_units ? after_latency : free_units;
  wire [63:0] new_end = first_units + {{(64-BYTES_W){1'b0}}, req_bytes} * {{(64-RATE_W){1'b0}}, rate_den};
  wire        issue = req_valid && req_ready;

  // The requests done by the next edge: the first ones in flight whose end it reaches.
  wire [63:0] next_units = now_units + {{(64-RATE_W){1'b0}}, rate_num};
  reg  [DEPTH_LOG2:0] finishing;
  reg                 stop;
  integer k;
  always @* begin
    finishing = 0;
    stop = 1'b0;
    for (k = 0; k < DEPTH; k = k + 1) begin
      if (!stop && k[DEPTH_LOG2:0] < in_flight && end_units[head[DEPTH_LOG2-1:0] + k[DEPTH_LOG2-1:0]] <= next_units)
        finishing = finishing + 1'b1;
      else
        stop = 1'b1;
    end
  end

  always @(posedge clk) begin
    if (rst) begin
      now_units <= 64'd0;
      free_units <= 64'd0;
      head <= 0;
      tail <= 0;
      done_count <= 0;
    end else begin
      now_units <= next_units;
      done_count <= finishing;
      head <= head + finishing;
      if (issue) begin
        end_units[tail[DEPTH_LOG2-1:0]] <= new_end;
        free_units <= new_end;
        tail <= tail + 1;
      end
    end
  end
endmodule
