package io.lockkit.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * A text table written as rows arrive, in bounded memory: the first {@value #SAMPLE} rows are held
 * back to choose the column widths (capped at {@value #MAX_WIDTH}), then printed with every later
 * row; a later, wider value overflows its column rather than being cut. Not thread-safe.
 */
final class Table {

    static final int SAMPLE = 500;
    static final int MAX_WIDTH = 60;

    private final PrintWriter out;
    private final List<String> headers;
    private final boolean[] right;
    private final List<String[]> held = new ArrayList<>();
    private int[] widths = new int[0];
    private boolean started;
    private long rows;

    Table(PrintWriter out, List<String> headers, boolean[] right) {
        this.out = out;
        this.headers = headers;
        this.right = right.clone();
    }

    void add(String[] cells) {
        rows++;
        if (started) {
            print(cells);
            return;
        }
        held.add(cells);
        if (held.size() >= SAMPLE) {
            start();
        }
    }

    /** Rows added so far. */
    long rows() {
        return rows;
    }

    /** Prints what is held back; call once at the end (also for an empty table: the header alone). */
    void finish() {
        if (!started) {
            start();
        }
    }

    private void start() {
        started = true;
        widths = new int[headers.size()];
        for (int i = 0; i < widths.length; i++) {
            widths[i] = headers.get(i).length();
        }
        for (String[] row : held) {
            for (int i = 0; i < widths.length; i++) {
                widths[i] = Math.min(MAX_WIDTH, Math.max(widths[i], row[i].length()));
            }
        }
        print(headers.toArray(new String[0]));
        for (String[] row : held) {
            print(row);
        }
        held.clear();
    }

    private void print(String[] cells) {
        StringBuilder line = new StringBuilder(128);
        for (int i = 0; i < widths.length; i++) {
            String cell = cells[i];
            boolean last = i == widths.length - 1;
            int pad = Math.max(0, widths[i] - cell.length());
            if (right[i]) {
                line.append(" ".repeat(pad)).append(cell);
            } else {
                line.append(cell);
                if (!last) {
                    line.append(" ".repeat(pad));
                }
            }
            if (!last) {
                line.append("  ");
            }
        }
        out.print(line.append('\n'));
    }
}
