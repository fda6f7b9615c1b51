/* verilator lint_off WIDTH */  // operands widen by Verilog's context rules, on purpose
// The merge tree on U time-shared merge units (U < L - 1): a sequencer that
// captures a row's L lane states and runs the tree's log2(L) levels on them.
// Level l merges entries (2j, 2j+1) into entry j, j = 0 .. L/2^(l+1) - 1,
// with node coefficient coef[L - L/2^l + j] -- the same pairs, order and
// coefficients as the dedicated tree of norm_row_pipeline, so the root is
// bit-identical. U merges issue a cycle (unit u takes j = kU + u at issue k);
// a result is back in the buffer LAT cycles after its issue; level l + 1
// starts when level l's last result is back. Timing (sim/core MergeSchedule):
//   go at cycle g -> out_valid at g + 1 + sum_l (ceil(m_l / U) - 1 + LAT),
// and a new go is taken in the out_valid cycle (ready).
// KIND 0: Chan merges of (count, mean, M2); KIND 1: adds of the square sums.
module chan_merge_seq #(
  parameter integer L = 16, LOG2L = 4, U = 1, LAT = 3, KIND = 0,
  parameter integer NW = 24,                                    // count width
  parameter integer MW = 32, MF = 24, MS = 1, MR = 1, MO = 0,   // mean
  parameter integer QW = 48, QF = 24, QS = 1, QR = 1, QO = 0,   // M2 (KIND 0) or square sum (KIND 1)
  parameter integer RW = 32, RF = 31, RS = 0                    // n_b/n coefficient
) (
  input  wire            clk,
  input  wire            go,        // lane states valid: captured when ready
  output wire            ready,
  // counts and means: unread by an adder tree (KIND 1); one port list for both kinds
  /* verilator lint_off UNUSEDSIGNAL */
  input  wire [L*NW-1:0] lane_n,
  input  wire [L*MW-1:0] lane_mean,
  /* verilator lint_on UNUSEDSIGNAL */
  input  wire [L*QW-1:0] lane_root,
  input  wire [L*RW-1:0] coef,      // n_b/n of tree node j, level by level (L - 1 used); constants of
                                    // the row length, held while a row is in the sequencer
  output wire            out_valid,
  output wire [NW-1:0]   n,
  output wire [MW-1:0]   mean,
  output wire [QW-1:0]   root
);
  localparam integer SW = KIND == 0 ? NW + MW + QW : QW;  // one entry's state
  localparam integer KMAX = (L / 2 + U - 1) / U;          // issue cycles of level 0
  localparam integer KW = KMAX > 1 ? $clog2(KMAX) : 1;
  localparam integer LW = LOG2L > 1 ? $clog2(LOG2L) : 1;
  localparam integer WW = LAT > 1 ? $clog2(LAT) : 1;
  localparam integer T = issues(0);                        // issue cycles of a row
  localparam integer TW = T > 1 ? $clog2(T) : 1;
  // Issue cycles of levels from..log2(L)-1, and the tree node unit u merges at
  // issue cycle t of a row (-1: none): the coefficient it needs.
  function automatic integer issues(input integer from);
    integer l;
    begin
      issues = 0;
      for (l = from; l < LOG2L; l = l + 1) issues = issues + ((L >> (l + 1)) + U - 1) / U;
    end
  endfunction
  function automatic integer node_at(input integer t, input integer u);
    integer l, left, kl;
    begin
      node_at = -1;
      left = t;
      for (l = 0; l < LOG2L; l = l + 1) begin
        kl = ((L >> (l + 1)) + U - 1) / U;
        if (left >= 0 && left < kl) node_at = left * U + u < (L >> (l + 1)) ? L - (L >> l) + left * U + u : -1;
        left = left - kl;
      end
    end
  endfunction
  localparam [1:0] IDLE = 2'd0, ISSUE = 2'd1, WAIT = 2'd2, OUT = 2'd3;

  reg [SW-1:0] b [0:L-1];   // the row's states; entry j holds level l's node j
  reg [1:0] phase = IDLE;
  reg [LW-1:0] lvl;
  reg [KW-1:0] k;
  reg [WW-1:0] w;
  reg [TW-1:0] t;           // issue cycles of this row so far
  assign ready = phase == IDLE || phase == OUT;
  assign out_valid = phase == OUT;
  wire take = go & ready;

  wire [15:0] merges = L >> (lvl + 1);
  wire last_issue = (k + 1) * U >= merges;
  wire last_level = lvl == LOG2L - 1;

  // The U units: unit u reads entries 2(kU+u), 2(kU+u)+1.
  wire [U*SW-1:0] result;
  wire [U-1:0] issue_valid;
  genvar u, kk, e;
  generate
    for (u = 0; u < U; u = u + 1) begin : g_unit
      wire [SW-1:0] cand_a [0:KMAX-1];
      wire [SW-1:0] cand_b [0:KMAX-1];
      for (kk = 0; kk < KMAX; kk = kk + 1) begin : g_cand
        if (2 * (kk * U + u) + 1 < L) begin : g_in
          assign cand_a[kk] = b[2 * (kk * U + u)];
          assign cand_b[kk] = b[2 * (kk * U + u) + 1];
        end else begin : g_none
          assign cand_a[kk] = 0;
          assign cand_b[kk] = 0;
        end
      end
      /* verilator lint_off UNUSEDSIGNAL */
      wire [RW-1:0] ccand [0:T-1];  // unread by an adder tree (KIND 1)
      /* verilator lint_on UNUSEDSIGNAL */
      for (kk = 0; kk < T; kk = kk + 1) begin : g_coef
        if (node_at(kk, u) >= 0) begin : g_node
          assign ccand[kk] = coef[node_at(kk, u) * RW +: RW];
        end else begin : g_none
          assign ccand[kk] = 0;
        end
      end
      wire [SW-1:0] a = cand_a[k];
      wire [SW-1:0] bb = cand_b[k];
      assign issue_valid[u] = phase == ISSUE && k * U + u < merges;
      if (KIND == 0) begin : g_chan
        wire [RW-1:0] c = ccand[t];
        wire [NW-1:0] rn;
        wire [MW-1:0] rm;
        wire [QW-1:0] rq;
        // overflow flags: the model counts overflows per stage (sim/core); the benches compare them
        /* verilator lint_off UNUSEDSIGNAL */
        wire mo, qo;
        /* verilator lint_on UNUSEDSIGNAL */
        chan_merge #(.NW(NW), .MW(MW), .MF(MF), .MS(MS), .MR(MR), .MO(MO), .QW(QW), .QF(QF), .QS(QS), .QR(QR),
                     .QO(QO), .RW(RW), .RF(RF), .RS(RS))
          node (.n_a(a[SW-1 -: NW]), .n_b(bb[SW-1 -: NW]), .mean_a(a[QW+MW-1 -: MW]), .mean_b(bb[QW+MW-1 -: MW]),
                .m2_a(a[QW-1:0]), .m2_b(bb[QW-1:0]), .coef(c), .n(rn), .mean(rm), .m2(rq), .mean_overflow(mo),
                .m2_overflow(qo));
        assign result[u*SW +: SW] = {rn, rm, rq};
      end else begin : g_add
        /* verilator lint_off UNUSEDSIGNAL */
        wire so;
        /* verilator lint_on UNUSEDSIGNAL */
        fx_add #(.W(QW), .S(QS), .R(QR), .O(QO)) node (.a(a), .b(bb), .sum(result[u*SW +: SW]), .overflow(so));
      end
    end
  endgenerate

  // Results travel LAT - 1 stages with their issue index; the buffer write is the last.
  wire [U*SW+U+KW-1:0] back;
  delay_line #(.W(U * SW + U + KW), .N(LAT - 1)) d_back (.clk(clk), .in({issue_valid, k, result}), .out(back));
  wire [U-1:0] back_valid = back[U*SW+U+KW-1 -: U];
  wire [KW-1:0] back_k = back[U*SW+KW-1 -: KW];

  generate
    for (e = 0; e < L; e = e + 1) begin : g_entry
      localparam integer EU = e % U, EK = e / U;
      wire [SW-1:0] lane_state;
      if (KIND == 0) begin : g_ln
        assign lane_state = {lane_n[e*NW +: NW], lane_mean[e*MW +: MW], lane_root[e*QW +: QW]};
      end else begin : g_rms
        assign lane_state = lane_root[e*QW +: QW];
      end
      always @(posedge clk) begin
        if (take) b[e] <= lane_state;
        else if (EK < KMAX && back_valid[EU] && back_k == EK) b[e] <= back[EU*SW +: SW];
      end
    end
  endgenerate

  always @(posedge clk) begin
    if (take) begin
      phase <= ISSUE;
      lvl <= 0;
      k <= 0;
      t <= 0;
    end else begin
      if (phase == ISSUE) t <= t + 1;
      case (phase)
        ISSUE:
          if (!last_issue) k <= k + 1;
          else if (LAT > 1) begin
            phase <= WAIT;
            w <= LAT - 2;
          end else if (last_level) phase <= OUT;
          else begin
            lvl <= lvl + 1;
            k <= 0;
          end
        WAIT:
          if (w != 0) w <= w - 1;
          else if (last_level) phase <= OUT;
          else begin
            phase <= ISSUE;
            lvl <= lvl + 1;
            k <= 0;
          end
        OUT: phase <= IDLE;
        default: ;
      endcase
    end
  end

  generate
    if (KIND == 0) begin : g_out_ln
      assign n = b[0][SW-1 -: NW];
      assign mean = b[0][QW+MW-1 -: MW];
    end else begin : g_out_rms
      assign n = 0;
      assign mean = 0;
    end
  endgenerate
  assign root = b[0][QW-1:0];
endmodule
