package io.lockkit.benchmarks;

import java.util.Arrays;
import java.util.List;

/** Small statistics helpers: medians across runs, percentiles of recorded samples. */
final class Stats {

    private Stats() {}

    /** The median of the values (mean of the middle two for an even count); NaN for none. NaN values are ignored. */
    static double median(List<Double> values) {
        double[] v = values.stream()
                .filter(d -> d != null && !d.isNaN())
                .mapToDouble(Double::doubleValue)
                .sorted()
                .toArray();
        if (v.length == 0) {
            return Double.NaN;
        }
        int mid = v.length / 2;
        return v.length % 2 == 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
    }

    /** The {@code p}-th percentile (0..100, nearest rank) of the samples; sorts them in place; NaN for none. */
    static double percentile(long[] samples, int count, double p) {
        if (count == 0) {
            return Double.NaN;
        }
        Arrays.sort(samples, 0, count);
        int rank = (int) Math.ceil(p / 100.0 * count);
        return samples[Math.min(count - 1, Math.max(0, rank - 1))];
    }

    /** A growable array of long samples, for one thread. */
    static final class Samples {
        long[] values = new long[1024];
        int count;

        void add(long v) {
            if (count == values.length) {
                values = Arrays.copyOf(values, count * 2);
            }
            values[count++] = v;
        }

        long max() {
            long m = 0;
            for (int i = 0; i < count; i++) {
                m = Math.max(m, values[i]);
            }
            return m;
        }

        static Samples merge(List<Samples> all) {
            Samples merged = new Samples();
            int total = all.stream().mapToInt(s -> s.count).sum();
            merged.values = new long[Math.max(1, total)];
            for (Samples s : all) {
                System.arraycopy(s.values, 0, merged.values, merged.count, s.count);
                merged.count += s.count;
            }
            return merged;
        }

        double percentile(double p) {
            return Stats.percentile(values, count, p);
        }
    }
}
