package dev.ballast.tools.bench;

import java.util.List;
import java.util.Locale;

/** Human-readable result rows (plain text or Markdown). */
final class Table {
    private Table() {
    }

    static final String[] HEADER = {"trace", "topology", "planner", "eval", "frac. of ideal", "frac. of bound", "max/mean (mean)",
            "max/mean (worst)", "inter-node GB/step", "param GB/step", "re-plans", "moved MB/re-plan", "moved MB/step", "plan ms p50", "plan ms p99",
            "peak expert mem GB/GPU"};

    static String[] row(BenchResult r) {
        return new String[] {r.trace(), r.topology() + " " + r.parallelism(), r.planner(), r.mode() + "/" + r.balancerMode(),
                f("%.3f", r.fractionOfIdeal()), f("%.3f", r.fractionOfBound()), f("%.3f", r.imbalance()), f("%.3f", r.imbalanceWorst()),
                f("%.2f", r.interNodeBytes() / 1e9), f("%.2f", r.paramBytesPerStep() / 1e9),
                Integer.toString(r.replans()), f("%.1f", r.paramBytesMoved() / 1e6), f("%.2f", r.movedBytesPerStep() / 1e6),
                f("%.2f", r.planMillisMedian()), f("%.2f", r.planMillisP99()),
                f("%.2f", r.peakExpertMemoryBytes() / 1e9)};
    }

    static String markdown(List<BenchResult> rows) {
        StringBuilder sb = new StringBuilder();
        sb.append('|').append(String.join(" | ", HEADER)).append("|\n|");
        for (int i = 0; i < HEADER.length; i++) {
            sb.append(i < 4 ? "---|" : "--:|");
        }
        sb.append('\n');
        for (BenchResult r : rows) {
            sb.append('|').append(String.join(" | ", row(r))).append("|\n");
        }
        return sb.toString();
    }

    static String text(List<BenchResult> rows) {
        int[] width = new int[HEADER.length];
        for (int i = 0; i < HEADER.length; i++) {
            width[i] = HEADER[i].length();
        }
        for (BenchResult r : rows) {
            String[] cells = row(r);
            for (int i = 0; i < cells.length; i++) {
                width[i] = Math.max(width[i], cells[i].length());
            }
        }
        StringBuilder sb = new StringBuilder();
        line(sb, HEADER, width);
        for (BenchResult r : rows) {
            line(sb, row(r), width);
        }
        return sb.toString();
    }

    private static void line(StringBuilder sb, String[] cells, int[] width) {
        for (int i = 0; i < cells.length; i++) {
            String c = cells[i];
            sb.append(i < 4 ? String.format("%-" + width[i] + "s", c) : String.format("%" + width[i] + "s", c));
            sb.append(i + 1 < cells.length ? "  " : "\n");
        }
    }

    static String f(String fmt, Object... v) {
        return String.format(Locale.ROOT, fmt, v);
    }
}
