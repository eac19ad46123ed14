package io.lockkit.benchmarks;

import static io.lockkit.benchmarks.ReportFigures.p3;
import static io.lockkit.benchmarks.ReportFigures.p6;

import java.util.List;
import java.util.Locale;

/** The report's {@code chart.svg}: the floor, lockkit and Redisson side by side in six panels. */
final class ReportChart {

    private ReportChart() {}

    static String write(ReportFigures f) {
        Svg s = new Svg(980, 660);
        s.text(
                490,
                26,
                "lockkit vs the raw floor vs Redisson " + "(medians of "
                        + f.runs().size()
                        + (f.runs().size() == 1 ? " run" : " runs") + "; "
                        + f.results().machine().redis().replaceAll(" \\(.*", "") + ", "
                        + f.results().machine().cores() + " cores)",
                15,
                "middle",
                true);
        int lx = 330;
        for (Library lib : Library.values()) {
            s.rect(lx, 40, 14, 14, Svg.color(lib));
            s.text(lx + 20, 52, lib.label(), 12, "start", false);
            lx += 120;
        }
        s.bars(20, 70, 300, 260, "P1 lock+unlock p50, µs (lower is better)", new String[] {""}, new double[][] {
            f.medians(ReportFigures::p1p50)
        });
        s.bars(340, 70, 300, 260, "P2 pairs/s, 32 threads (higher is better)", new String[] {""}, new double[][] {
            f.medians(ReportFigures::p2)
        });
        s.bars(660, 70, 300, 260, "P3 hot lock, acquisitions/s (higher is better)", new String[] {""}, new double[][] {
            f.medians((r, lib) -> p3(r, lib, Contention.Result::acquisitionsPerSecond))
        });
        s.bars(20, 370, 300, 260, "P3 hand-off p50, µs (lower is better)", new String[] {""}, new double[][] {
            f.medians((r, lib) -> p3(r, lib, Contention.Result::handoffP50Micros))
        });
        List<Integer> c = f.contenders();
        double[][] lines = new double[Library.values().length][c.size()];
        for (Library lib : Library.values()) {
            for (int i = 0; i < c.size(); i++) {
                lines[lib.ordinal()][i] = f.p4Median(lib, c.get(i));
            }
        }
        s.lines(340, 370, 300, 260, "P4 client commands per acquisition", c, lines);
        s.bars(660, 370, 300, 260, "P6 1,000 waiters drained, ms (lower is better)", new String[] {""}, new double[][] {
            f.medians((r, lib) -> p6(r, lib, WaiterFlood.Result::drainMillis))
        });
        return s.end();
    }

    /** Just enough SVG: grouped bars and a line chart in panels, values printed on the marks. */
    static final class Svg {
        private final StringBuilder sb = new StringBuilder();

        Svg(int width, int height) {
            sb.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"")
                    .append(width)
                    .append("\" height=\"")
                    .append(height)
                    .append("\" viewBox=\"0 0 ")
                    .append(width)
                    .append(' ')
                    .append(height)
                    .append("\" font-family=\"Helvetica, Arial, sans-serif\">\n");
            sb.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
        }

        static String color(Library lib) {
            return switch (lib) {
                case FLOOR -> "#8c8c8c";
                case LOCKKIT -> "#1f77b4";
                case REDISSON -> "#d62728";
            };
        }

        void rect(double x, double y, double w, double h, String fill) {
            sb.append(String.format(
                    Locale.ROOT,
                    "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>%n",
                    x,
                    y,
                    w,
                    h,
                    fill));
        }

        void line(double x1, double y1, double x2, double y2, String stroke, double width) {
            sb.append(String.format(
                    Locale.ROOT,
                    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"%.1f\"/>%n",
                    x1,
                    y1,
                    x2,
                    y2,
                    stroke,
                    width));
        }

        void text(double x, double y, String text, int size, String anchor, boolean bold) {
            sb.append(String.format(
                    Locale.ROOT,
                    "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%d\" text-anchor=\"%s\"%s>%s</text>%n",
                    x,
                    y,
                    size,
                    anchor,
                    bold ? " font-weight=\"bold\"" : "",
                    escape(text)));
        }

        private static String escape(String s) {
            return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
        }

        /** A round axis maximum a little above the largest value (NaN values left out). */
        private static double niceMax(double[][] values) {
            double max = 0;
            for (double[] series : values) {
                for (double v : series) {
                    if (!Double.isNaN(v)) {
                        max = Math.max(max, v);
                    }
                }
            }
            return niceMax(max);
        }

        private static double niceMax(double max) {
            if (!(max > 0)) {
                return 1;
            }
            double p = Math.pow(10, Math.floor(Math.log10(max)));
            for (double m : new double[] {1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10}) {
                if (m * p >= max * 1.08) {
                    return m * p;
                }
            }
            return 10 * p;
        }

        private static String label(double v) {
            if (Double.isNaN(v)) {
                return "—";
            }
            if (v >= 100 || v == Math.rint(v)) {
                return String.format(Locale.ROOT, "%,.0f", v);
            }
            return String.format(Locale.ROOT, "%.1f", v);
        }

        private void axes(double x, double y, double w, double h, String title, double max) {
            text(x + w / 2, y + 14, title, 12, "middle", true);
            double top = y + 30;
            double bottom = y + h - 24;
            for (int i = 0; i <= 4; i++) {
                double v = max * i / 4;
                double yy = bottom - (bottom - top) * i / 4;
                line(x + 44, yy, x + w, yy, "#e5e5e5", 1);
                text(x + 40, yy + 4, label(v), 10, "end", false);
            }
            line(x + 44, bottom, x + w, bottom, "#444", 1);
        }

        void bars(double x, double y, double w, double h, String title, String[] groups, double[][] values) {
            double max = niceMax(values);
            axes(x, y, w, h, title, max);
            double top = y + 30;
            double bottom = y + h - 24;
            double groupWidth = (w - 54) / groups.length;
            double barWidth = Math.min(46, (groupWidth - 16) / values[0].length);
            for (int g = 0; g < groups.length; g++) {
                double gx = x + 50 + g * groupWidth + (groupWidth - barWidth * values[g].length) / 2;
                for (int i = 0; i < values[g].length; i++) {
                    double v = values[g][i];
                    double bh = Double.isNaN(v) ? 0 : (bottom - top) * v / max;
                    rect(gx + i * barWidth + 2, bottom - bh, barWidth - 4, bh, color(Library.values()[i]));
                    text(gx + i * barWidth + barWidth / 2, bottom - bh - 4, label(v), 10, "middle", false);
                }
                if (!groups[g].isEmpty()) {
                    text(x + 50 + g * groupWidth + groupWidth / 2, bottom + 16, groups[g], 11, "middle", false);
                }
            }
        }

        void lines(double x, double y, double w, double h, String title, List<Integer> xs, double[][] values) {
            double max = niceMax(values);
            axes(x, y, w, h, title, max);
            double top = y + 30;
            double bottom = y + h - 24;
            double left = x + 60;
            double right = x + w - 16;
            for (int i = 0; i < xs.size(); i++) {
                double px = xs.size() == 1 ? left : left + (right - left) * i / (xs.size() - 1);
                text(px, bottom + 16, String.valueOf(xs.get(i)), 10, "middle", false);
            }
            java.util.Set<String> firstLabels = new java.util.HashSet<>();
            for (int s = 0; s < values.length; s++) {
                StringBuilder points = new StringBuilder();
                for (int i = 0; i < xs.size(); i++) {
                    double v = values[s][i];
                    if (Double.isNaN(v)) {
                        continue;
                    }
                    double px = xs.size() == 1 ? left : left + (right - left) * i / (xs.size() - 1);
                    double py = bottom - (bottom - top) * v / max;
                    points.append(String.format(Locale.ROOT, "%.1f,%.1f ", px, py));
                    sb.append(String.format(
                            Locale.ROOT,
                            "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>%n",
                            px,
                            py,
                            color(Library.values()[s])));
                    if (i == xs.size() - 1) {
                        text(px + 6, py + 4, String.format(Locale.ROOT, "%.1f", v), 10, "start", false);
                    } else if (i == 0 && firstLabels.add(String.format(Locale.ROOT, "%.1f", v))) {
                        text(px + 5, py - 6, String.format(Locale.ROOT, "%.1f", v), 10, "start", false);
                    }
                }
                sb.append(String.format(
                        Locale.ROOT,
                        "<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>%n",
                        points.toString().trim(),
                        color(Library.values()[s])));
            }
            text(x + w / 2 + 20, y + h - 2, "contenders (4 clients)", 10, "middle", false);
        }

        String end() {
            return sb.append("</svg>\n").toString();
        }
    }
}
