package io.lockkit.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * How much CPU other processes took while the harness ran: the machine's busy time from
 * {@code /proc/stat} minus this JVM's own time and its reaped children's (JMH forks, stopped Redis
 * servers) minus the running Redis server's. The load average cannot tell this: the harness's own
 * 32 runnable threads put it far above the core count. Linux only; elsewhere the figures are NaN.
 */
final class OtherLoad {

    private static final double TICKS_PER_SECOND = 100; // USER_HZ, the unit of /proc/stat and /proc/<pid>/stat

    private final RedisAdmin redis;
    private final double busy0;
    private final double own0;
    private final double redis0;
    private final long t0 = System.nanoTime();

    OtherLoad(RedisAdmin redis) {
        this.redis = redis;
        this.busy0 = machineBusySeconds();
        this.own0 = ownSeconds();
        this.redis0 = redis.cpuSeconds();
    }

    /** Other processes' CPU since this snapshot, as a percentage of the whole machine (all cores). */
    double percentSince(int cores) {
        double busy = machineBusySeconds() - busy0;
        double own = ownSeconds() - own0;
        double server = redis.cpuSeconds() - redis0;
        double seconds = (System.nanoTime() - t0) / 1e9;
        return Math.max(0, 100 * (busy - own - server) / (seconds * cores));
    }

    private static double machineBusySeconds() {
        try {
            String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            // cpu user nice system idle iowait irq softirq steal ...
            long busy = 0;
            for (int i = 1; i < f.length && i <= 8; i++) {
                if (i != 4 && i != 5) {
                    busy += Long.parseLong(f[i]);
                }
            }
            return busy / TICKS_PER_SECOND;
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }

    private static double ownSeconds() {
        try {
            String stat = Files.readString(Path.of("/proc/self/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split("\\s+");
            // fields after the command: state(0) ... utime(11) stime(12) cutime(13) cstime(14)
            return (Long.parseLong(f[11]) + Long.parseLong(f[12]) + Long.parseLong(f[13]) + Long.parseLong(f[14]))
                    / TICKS_PER_SECOND;
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }
}
