package io.lockkit.examples.quarkus;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Load for {@link ScheduledJobIT}, run as a process of its own ({@code java CpuLoad <threads> <seconds>}):
 * that many threads spin on the CPU until the process is stopped, or at the latest after the given
 * seconds, so it never outlives a test that died.
 */
public final class CpuLoad {

    private static volatile long sink;

    private CpuLoad() {}

    public static void main(String[] args) throws InterruptedException {
        int threads = Integer.parseInt(args[0]);
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(Long.parseLong(args[1]));
        List<Thread> spinning = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread thread = new Thread(
                    () -> {
                        long x = 0;
                        while (System.nanoTime() - until < 0) {
                            for (int i = 0; i < 1_000_000; i++) {
                                x = x * 31 + i;
                            }
                            sink = x;
                        }
                    },
                    "cpu-load-" + t);
            thread.start();
            spinning.add(thread);
        }
        System.out.println("cpu-load: " + threads + " busy threads");
        for (Thread thread : spinning) {
            thread.join();
        }
    }
}
