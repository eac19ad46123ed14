package io.lockkit.examples.spring;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** The journals the instances write in their shared directory ({@code runs-<instance>.txt}), as {@link SpringExampleIT} reads them. */
final class Journal {

    /** The report's period: its cron expression fires at every even second. */
    static final long PERIOD_MILLIS = 2000;

    /** A line: what (ready, run, call), the instance, when (epoch ms), and the port (ready) or token (run). */
    record Line(String what, String instance, long millis, long value) {

        /**
         * The tick (a multiple of the period) nearest the line's time: a call that came up to half a
         * period early or late belongs to its own tick.
         */
        long tick() {
            return tickOf(millis);
        }

        /** How many ms after its tick the line was written (negative: before). */
        long lateMillis() {
            return millis - tick() * PERIOD_MILLIS;
        }

        /** {@code instance@ms after the tick}, for messages. */
        @Override
        public String toString() {
            return instance + "@" + lateMillis();
        }
    }

    private Journal() {}

    /** The tick nearest {@code millis}. */
    static long tickOf(long millis) {
        return Math.floorDiv(millis + PERIOD_MILLIS / 2, PERIOD_MILLIS);
    }

    /** The whole lines of every journal in {@code dir}, in order of time (a partly written last line is left for later). */
    static List<Line> read(Path dir, List<String> instances) {
        List<Line> lines = new ArrayList<>();
        for (String instance : instances) {
            Path file = dir.resolve("runs-" + instance + ".txt");
            if (!Files.exists(file)) {
                continue;
            }
            String text;
            try {
                text = Files.readString(file, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            for (String line : text.substring(0, text.lastIndexOf('\n') + 1).split("\n")) {
                if (!line.isBlank()) {
                    String[] f = line.trim().split(" ");
                    lines.add(new Line(f[0], f[1], Long.parseLong(f[2]), Long.parseLong(f[3])));
                }
            }
        }
        lines.sort(Comparator.comparingLong(Line::millis));
        return lines;
    }

    /** The lines of {@code what}. */
    static List<Line> of(List<Line> lines, String what) {
        return lines.stream().filter(l -> l.what().equals(what)).toList();
    }
}
