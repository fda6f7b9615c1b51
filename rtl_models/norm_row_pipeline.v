/* verilator lint_off WIDTH */  // operands widen by Verilog's context rules, on purpose
// One row through the datapath: L lanes (Welford for LayerNorm, KIND 0; square
// sums for RMSNorm, KIND 1), the binary merge tree over them ((2k, 2k+1), then
// (4k, 4k+2), ... as sim/core's tree), variance = root x 1/C (a shift when C
// is a power of two, as sim/core's times_recip), rsqrt_in = q(variance + eps), the RSQRT unit; and L
// normalise/affine lanes for the second pass. Every register format is a
// parameter (see rtl_config), and the pipeline depths are padded to the
// timing model's latencies (arch `latency:` keys):
//   last x beat -> stats_valid : WELFORD_LAT + merge latency + RSQRT_LAT cycles
//   (merge latency: log2(L) MERGE_LAT for the dedicated tree, sim/core
//   MergeSchedule's for MERGE_UNITS shared units)
//   n beat      -> y           : NORM_LAT cycles
// The per-node merge coefficients n_b/n, 1/C and eps are constants of the
// row length, loaded by the host (sim/core computes them).
module norm_row_pipeline #(
  parameter integer L = 16, LOG2L = 4, KIND = 0,
  parameter integer NW = 10, MNW = 24,                      // lane / merge count widths
  parameter integer LMAX = 24,                              // largest log2(C) of a power-of-two row
  parameter integer WELFORD_LAT = 4, MERGE_LAT = 3, RSQRT_LAT = 12, NORM_LAT = 4,
  parameter integer MERGE_UNITS = 0,                        // 0: dedicated tree; 1..L-2: shared units
  parameter integer XW = 24, XF = 14, XS = 1,
  parameter integer MW = 32, MF = 24, MS = 1, MR = 1, MO = 0,
  parameter integer QW = 48, QF = 24, QS = 1, QR = 1, QO = 0,
  parameter integer RW = 32, RF = 31, RS = 0,
  parameter integer UW = 48, UF = 28, US = 0, UR = 1, UO = 0,   // sumsq
  parameter integer VW = 40, VF = 28, VS = 0, VR = 1, VO = 0,   // variance
  parameter integer IW = 40, IF = 28, IS = 0, IR = 1, IO = 0,   // rsqrt_in
  parameter integer OW = 32, OF = 22, OS = 0, OR = 1, OO = 0,   // rsqrt_out
  parameter integer HW = 24, HF = 18, HS = 1, HR = 1, HO = 0,
  parameter integer GW = 16, GF = 13, GS = 1,
  parameter integer BW = 16, BF = 13, BS = 1,
  parameter integer YW = 16, YF = 11, YS = 1, YR = 1, YO = 0,
  parameter integer TB = 8, ITER = 2, NR = 28, SEED = 0, UNIT = 0,  // the RSQRT unit (the generated rsqrt module)
  parameter integer RS_STAGES = 4                                    // its stages: RsqrtConfig::stages()
) (
  input  wire            clk,
  input  wire            start,                 // clears the lanes for a new row
  input  wire            x_valid,
  input  wire [L-1:0]    x_mask,                // lanes that take an element this beat
  input  wire [L*XW-1:0] x,                     // element k L + i on lane i
  // L - 1 nodes use coef (a uniform L-entry bus); RMSNorm's adder tree none of it
  /* verilator lint_off UNUSEDSIGNAL */
  input  wire [L*RW-1:0] coef,                  // n_b/n of tree node j (j = 0..L-2, level by level)
  /* verilator lint_on UNUSEDSIGNAL */
  input  wire [RW-1:0]   recip_c,               // 1/C in the recip format (C not a power of two)
  input  wire            c_pow2,                // C is a power of two: divide by shifting
  input  wire [5:0]      log2c,
  input  wire [IW-1:0]   eps,
  output wire            stats_valid,
  output wire [MW-1:0]   mean,
  output wire [VW-1:0]   variance,
  output wire [OW-1:0]   rstd,
  input  wire            n_valid,
  input  wire [MW-1:0]   n_mean,
  input  wire [OW-1:0]   n_rstd,
  input  wire [L*XW-1:0] n_x,
  input  wire [L*GW-1:0] n_gamma,
  input  wire [L*BW-1:0] n_beta,
  output wire            y_valid,
  output wire [L*YW-1:0] y
);
  // The tree carries (count, mean, root) per node; root is M2 (KIND 0) or the square sum.
  localparam integer PW = KIND == 0 ? QW : UW;
  localparam integer PF = KIND == 0 ? QF : UF;
  localparam integer PS = KIND == 0 ? QS : US;

  // --- lanes ------------------------------------------------------------------------
  wire [L*MNW-1:0] lane_n;
  wire [L*MW-1:0]  lane_mean;
  wire [L*PW-1:0]  lane_root;
  genvar i, lv, k;
  generate
    for (i = 0; i < L; i = i + 1) begin : g_lane
      if (KIND == 0) begin : g_welford
        wire [NW-1:0] n;
        // overflow flags: the model counts overflows per stage (sim/core); the benches compare them
        /* verilator lint_off UNUSEDSIGNAL */
        wire mo, qo;
        /* verilator lint_on UNUSEDSIGNAL */
        welford_lane #(.NW(NW), .XW(XW), .XF(XF), .XS(XS), .MW(MW), .MF(MF), .MS(MS), .MR(MR), .MO(MO),
                       .QW(QW), .QF(QF), .QS(QS), .QR(QR), .QO(QO), .RW(RW), .RF(RF), .RS(RS))
          lane (.clk(clk), .start(start), .in_valid(x_valid & x_mask[i]), .x(x[i*XW +: XW]), .count(n),
                .mean(lane_mean[i*MW +: MW]), .m2(lane_root[i*PW +: PW]), .mean_overflow(mo), .m2_overflow(qo));
        assign lane_n[i*MNW +: MNW] = n;
      end else begin : g_sumsq
        /* verilator lint_off UNUSEDSIGNAL */
        wire so;
        /* verilator lint_on UNUSEDSIGNAL */
        sumsq_lane #(.XW(XW), .XF(XF), .XS(XS), .SW(UW), .SF(UF), .SS(US), .SR(UR), .SO(UO))
          lane (.clk(clk), .start(start), .in_valid(x_valid & x_mask[i]), .x(x[i*XW +: XW]),
                .acc(lane_root[i*PW +: PW]), .overflow(so));
        assign lane_n[i*MNW +: MNW] = 0;
        assign lane_mean[i*MW +: MW] = 0;
      end
    end
  endgenerate

  // The lanes hold the row's state one cycle after its last beat; a beat's
  // valid travels beside it so the tree starts when the row is complete.
  reg last_beat;
  always @(posedge clk) last_beat <= start ? 1'b0 : x_valid;
  wire row_done = last_beat & ~x_valid;  // the cycle after the last beat
  wire go;
  delay_line #(.W(1), .N(WELFORD_LAT - 1)) d_go (.clk(clk), .in(row_done), .out(go));

  // --- merge tree: level 0 is the lanes, captured at go --------------------------------
  // MERGE_UNITS 0: the dedicated tree, L - 1 nodes, pipelined; else that many
  // time-shared units (chan_merge_seq), the same merges in the same order.
  wire             tree_valid;
  wire [MW-1:0]    root_mean;
  wire [PW-1:0]    root;
  generate
    if (MERGE_UNITS == 0) begin : g_tree
      // counts ride along for RMSNorm too; its adder tree does not read them
      /* verilator lint_off UNUSEDSIGNAL */
      wire [L*MNW-1:0] t_n [0:LOG2L];
      /* verilator lint_on UNUSEDSIGNAL */
      wire [L*MW-1:0]  t_mean [0:LOG2L];
      wire [L*PW-1:0]  t_root [0:LOG2L];
      wire             t_valid [0:LOG2L];
      reg [L*MNW-1:0] n0;
      reg [L*MW-1:0]  mean0;
      reg [L*PW-1:0]  root0;
      reg             v0;
      always @(posedge clk) begin
        v0 <= go;
        if (go) begin
          n0 <= lane_n;
          mean0 <= lane_mean;
          root0 <= lane_root;
        end
      end
      assign t_n[0] = n0;
      assign t_mean[0] = mean0;
      assign t_root[0] = root0;
      assign t_valid[0] = v0;
        for (lv = 1; lv <= LOG2L; lv = lv + 1) begin : g_level
          localparam integer NODES = L >> lv;
          localparam integer BASE = L - (L >> (lv - 1));  // coefficient index of this level's first node
          wire [L*MNW-1:0] n_c;
          wire [L*MW-1:0] mean_c;
          wire [L*PW-1:0] root_c;
          for (k = 0; k < NODES; k = k + 1) begin : g_node
            if (KIND == 0) begin : g_chan
              // overflow flags: the model counts overflows per stage (sim/core); the benches compare them
              /* verilator lint_off UNUSEDSIGNAL */
              wire mo, qo;
              /* verilator lint_on UNUSEDSIGNAL */
              chan_merge #(.NW(MNW), .MW(MW), .MF(MF), .MS(MS), .MR(MR), .MO(MO), .QW(QW), .QF(QF), .QS(QS), .QR(QR),
                           .QO(QO), .RW(RW), .RF(RF), .RS(RS))
                node (.n_a(t_n[lv-1][(2*k)*MNW +: MNW]), .n_b(t_n[lv-1][(2*k+1)*MNW +: MNW]),
                      .mean_a(t_mean[lv-1][(2*k)*MW +: MW]), .mean_b(t_mean[lv-1][(2*k+1)*MW +: MW]),
                      .m2_a(t_root[lv-1][(2*k)*PW +: PW]), .m2_b(t_root[lv-1][(2*k+1)*PW +: PW]),
                      .coef(coef[(BASE+k)*RW +: RW]), .n(n_c[k*MNW +: MNW]), .mean(mean_c[k*MW +: MW]),
                      .m2(root_c[k*PW +: PW]), .mean_overflow(mo), .m2_overflow(qo));
            end else begin : g_add
              /* verilator lint_off UNUSEDSIGNAL */
              wire so;
              /* verilator lint_on UNUSEDSIGNAL */
              fx_add #(.W(UW), .S(US), .R(UR), .O(UO))
                node (.a(t_root[lv-1][(2*k)*PW +: PW]), .b(t_root[lv-1][(2*k+1)*PW +: PW]), .sum(root_c[k*PW +: PW]),
                      .overflow(so));
              assign n_c[k*MNW +: MNW] = 0;
              assign mean_c[k*MW +: MW] = 0;
            end
          end
          if (NODES < L) begin : g_pad
            assign n_c[L*MNW-1:NODES*MNW] = 0;
            assign mean_c[L*MW-1:NODES*MW] = 0;
            assign root_c[L*PW-1:NODES*PW] = 0;
          end
          // One register, then MERGE_LAT - 1 more stages.
          wire [L*(MNW+MW+PW):0] staged;
          delay_line #(.W(L*(MNW+MW+PW)+1), .N(MERGE_LAT)) d_level (.clk(clk), .in({t_valid[lv-1], n_c, mean_c, root_c}), .out(staged));
          assign t_n[lv] = staged[L*(MNW+MW+PW)-1 -: L*MNW];
          assign t_mean[lv] = staged[L*(MW+PW)-1 -: L*MW];
          assign t_root[lv] = staged[L*PW-1:0];
          assign t_valid[lv] = staged[L*(MNW+MW+PW)];
        end
      assign tree_valid = t_valid[LOG2L];
      assign root_mean = t_mean[LOG2L][MW-1:0];
      assign root = t_root[LOG2L][PW-1:0];
    end else begin : g_shared
      // the pipeline paces rows itself; the shared unit's ready and count are for its bench
      /* verilator lint_off UNUSEDSIGNAL */
      wire seq_ready;
      wire [MNW-1:0] seq_n;
      /* verilator lint_on UNUSEDSIGNAL */
      chan_merge_seq #(.L(L), .LOG2L(LOG2L), .U(MERGE_UNITS), .LAT(MERGE_LAT), .KIND(KIND), .NW(MNW), .MW(MW),
                       .MF(MF), .MS(MS), .MR(MR), .MO(MO), .QW(PW), .QF(PF), .QS(PS), .QR(KIND == 0 ? QR : UR),
                       .QO(KIND == 0 ? QO : UO), .RW(RW), .RF(RF), .RS(RS))
        seq (.clk(clk), .go(go), .ready(seq_ready), .lane_n(lane_n), .lane_mean(lane_mean), .lane_root(lane_root),
             .coef(coef), .out_valid(tree_valid), .n(seq_n), .mean(root_mean), .root(root));
    end
  endgenerate

  // --- variance = root / C, rsqrt_in = q(variance + eps) ------------------------------
  wire signed [PW:0] rs = {PS != 0 ? root[PW-1] : 1'b0, root};
  wire [VW-1:0] var_shift, var_mul;
  // overflow flags, counted by the model (sim/core) and compared by the benches
  /* verilator lint_off UNUSEDSIGNAL */
  wire ovf_shift, ovf_mul;
  /* verilator lint_on UNUSEDSIGNAL */
  // root 2^-log2c, exactly: shifted left by LMAX - log2c at PF + LMAX fraction bits.
  wire signed [PW+LMAX:0] rs_al = rs <<< (LMAX - log2c);
  fx_requant #(.IN_W(PW + LMAX + 1), .SHIFT(PF + LMAX - VF), .OUT_W(VW), .OUT_S(VS), .ROUND(VR), .OVF(VO))
    q_var_shift (.in(rs_al), .out(var_shift), .overflow(ovf_shift));
  wire signed [RW:0] rc = {RS != 0 ? recip_c[RW-1] : 1'b0, recip_c};
  wire signed [PW+RW+1:0] p = rs * rc;
  fx_requant #(.IN_W(PW + RW + 2), .SHIFT(PF + RF - VF), .OUT_W(VW), .OUT_S(VS), .ROUND(VR), .OVF(VO))
    q_var_mul (.in(p), .out(var_mul), .overflow(ovf_mul));
  wire [VW-1:0] var_q = c_pow2 ? var_shift : var_mul;
  localparam integer EF = VF > IF ? VF : IF;
  localparam integer EW = (VW + 1 + EF - VF > IW + 1 + EF - IF ? VW + 1 + EF - VF : IW + 1 + EF - IF) + 1;
  wire signed [VW:0] vs = {VS != 0 ? var_q[VW-1] : 1'b0, var_q};
  wire signed [IW:0] es = {IS != 0 ? eps[IW-1] : 1'b0, eps};
  wire signed [EW-1:0] ve = (vs <<< (EF - VF)) + (es <<< (EF - IF));
  wire [IW-1:0] rin;
  /* verilator lint_off UNUSEDSIGNAL */
  wire rin_ovf;
  /* verilator lint_on UNUSEDSIGNAL */
  fx_requant #(.IN_W(EW), .SHIFT(EF - IF), .OUT_W(IW), .OUT_S(IS), .ROUND(IR), .OVF(IO)) q_rin (.in(ve), .out(rin), .overflow(rin_ovf));
  reg [IW-1:0] rin_r;
  reg [MW-1:0] mean_r;
  reg [VW-1:0] var_r;
  reg rin_valid;
  always @(posedge clk) begin
    rin_r <= rin;
    mean_r <= root_mean;
    var_r <= var_q;
    rin_valid <= tree_valid;
  end

  // --- RSQRT, then padding to RSQRT_LAT ------------------------------------------------
  wire rs_valid;
  /* verilator lint_off UNUSEDSIGNAL */
  wire rs_ovf;
  /* verilator lint_on UNUSEDSIGNAL */
  wire [OW-1:0] rs_out;
  rsqrt #(.IW(IW), .IF(IF), .IS(IS), .OW(OW), .OF(OF), .OS(OS), .OR(OR), .OO(OO), .TB(TB), .ITER(ITER), .NR(NR),
          .SEED(SEED), .UNIT(UNIT))
    rsqrt_unit (.clk(clk), .in_valid(rin_valid), .in(rin_r), .out_valid(rs_valid), .out(rs_out), .overflow(rs_ovf));
  // mean and variance ride beside the rsqrt pipeline.
  wire [MW+VW-1:0] side;
  delay_line #(.W(MW + VW), .N(RS_STAGES)) d_side (.clk(clk), .in({mean_r, var_r}), .out(side));
  wire [MW+VW+OW:0] stats;
  delay_line #(.W(MW + VW + OW + 1), .N(RSQRT_LAT - RS_STAGES - 1)) d_stats (.clk(clk), .in({rs_valid, side, rs_out}), .out(stats));
  assign stats_valid = stats[MW+VW+OW];
  assign mean = stats[MW+VW+OW-1 -: MW];
  assign variance = stats[VW+OW-1 -: VW];
  assign rstd = stats[OW-1:0];

  // --- normalise lanes ----------------------------------------------------------------
  wire [L*YW-1:0] y_c;
  generate
    for (i = 0; i < L; i = i + 1) begin : g_norm
      // x-hat and the overflow flags are taps for the benches; the model counts overflows (sim/core)
      /* verilator lint_off UNUSEDSIGNAL */
      wire [HW-1:0] xhat;
      wire ho, yo;
      /* verilator lint_on UNUSEDSIGNAL */
      normalize_affine #(.XW(XW), .XF(XF), .XS(XS), .MW(MW), .MF(MF), .MS(MS), .SW(OW), .SF(OF), .SS(OS),
                         .HW(HW), .HF(HF), .HS(HS), .HR(HR), .HO(HO), .GW(GW), .GF(GF), .GS(GS),
                         .BW(BW), .BF(BF), .BS(BS), .YW(YW), .YF(YF), .YS(YS), .YR(YR), .YO(YO))
        lane (.x(n_x[i*XW +: XW]), .mean(n_mean), .rstd(n_rstd), .gamma(n_gamma[i*GW +: GW]),
              .beta(n_beta[i*BW +: BW]), .xhat(xhat), .y(y_c[i*YW +: YW]), .xhat_overflow(ho), .y_overflow(yo));
    end
  endgenerate
  wire [L*YW:0] y_out;
  delay_line #(.W(L*YW + 1), .N(NORM_LAT)) d_norm (.clk(clk), .in({n_valid, y_c}), .out(y_out));
  assign y_valid = y_out[L*YW];
  assign y = y_out[L*YW-1:0];
endmodule
