package io.lockkit.benchmarks;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A table of text: a header row, each column aligned left or right, and rows of cells, written as a
 * Markdown (GitHub) table for the reports or as plain padded columns for a console. Rows may be
 * added as they are computed; a row with a different number of cells than the header fails with an
 * {@link IllegalArgumentException}. Not thread-safe.
 */
final class TextTable {

    /** How a column's cells line up; Markdown writes it in the delimiter row ({@code ---} or {@code ---:}). */
    enum Align {
        LEFT,
        RIGHT
    }

    private final List<String> header;
    private final Align[] align;
    private final List<List<String>> rows = new ArrayList<>();

    private TextTable(List<String> header) {
        this.header = header;
        this.align = new Align[header.size()];
        Arrays.fill(align, Align.LEFT);
    }

    /** A table with these column titles, every column aligned left. */
    static TextTable of(String... header) {
        if (header.length == 0) {
            throw new IllegalArgumentException("header must name at least one column");
        }
        return new TextTable(List.of(header));
    }

    /** Aligns the columns from {@code first} (0-based) to the last to the right: the usual for figures. */
    TextTable rightFrom(int first) {
        checkColumn(first);
        Arrays.fill(align, first, align.length, Align.RIGHT);
        return this;
    }

    /** Aligns the given columns (0-based) to the right. */
    TextTable right(int... columns) {
        for (int c : columns) {
            checkColumn(c);
            align[c] = Align.RIGHT;
        }
        return this;
    }

    private void checkColumn(int column) {
        if (column < 0 || column >= align.length) {
            throw new IllegalArgumentException(
                    "column must be one of the table's, 0 to " + (align.length - 1) + ", was " + column);
        }
    }

    /** Adds a row of as many cells as there are columns. */
    TextTable row(String... cells) {
        return row(List.of(cells));
    }

    /** Adds a row of as many cells as there are columns. */
    TextTable row(List<String> cells) {
        if (cells.size() != header.size()) {
            throw new IllegalArgumentException(
                    "cells must be one per column (" + header.size() + "), were " + cells.size() + ": " + cells);
        }
        rows.add(List.copyOf(cells));
        return this;
    }

    int rows() {
        return rows.size();
    }

    /**
     * The table in Markdown, one line per row, each ending in a newline. An empty header cell (the
     * corner above a column of labels) is written {@code | |}; other cells have a space either side.
     */
    String markdown() {
        StringBuilder md = new StringBuilder();
        markdownLine(md, header, true);
        md.append('|');
        for (Align a : align) {
            md.append(a == Align.RIGHT ? "---:|" : "---|");
        }
        md.append('\n');
        rows.forEach(r -> markdownLine(md, r, false));
        return md.toString();
    }

    private static void markdownLine(StringBuilder md, List<String> cells, boolean header) {
        md.append('|');
        for (String cell : cells) {
            md.append(' ');
            if (!header || !cell.isEmpty()) {
                md.append(cell).append(' ');
            }
            md.append('|');
        }
        md.append('\n');
    }

    /** The table as plain text: columns padded to their widest cell, two spaces apart, no trailing blanks. */
    String plain() {
        int[] width = new int[header.size()];
        List<List<String>> all = new ArrayList<>();
        all.add(header);
        all.addAll(rows);
        for (List<String> r : all) {
            for (int c = 0; c < width.length; c++) {
                width[c] = Math.max(width[c], r.get(c).length());
            }
        }
        StringBuilder text = new StringBuilder();
        for (List<String> r : all) {
            StringBuilder line = new StringBuilder();
            for (int c = 0; c < width.length; c++) {
                String pad = " ".repeat(width[c] - r.get(c).length());
                line.append(c == 0 ? "" : "  ").append(align[c] == Align.RIGHT ? pad + r.get(c) : r.get(c) + pad);
            }
            text.append(line.toString().stripTrailing()).append('\n');
        }
        return text.toString();
    }
}
