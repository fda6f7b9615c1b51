// N register stages (N = 0: a wire): pipeline depth added so a unit's
// latency equals the one the timing model assumes (arch `latency:` keys).
module delay_line #(
  parameter integer W = 1, N = 1
) (
  input  wire         clk,
  input  wire [W-1:0] in,
  output wire [W-1:0] out
);
  generate
    if (N == 0) begin : g_wire
      assign out = in;
    end else begin : g_regs
      reg [W-1:0] r [0:N-1];
      integer i;
      always @(posedge clk) begin
        r[0] <= in;
        for (i = 1; i < N; i = i + 1) r[i] <= r[i-1];
      end
      assign out = r[N-1];
    end
  endgenerate
endmodule
