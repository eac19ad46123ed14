package io.lockkit.cli;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.LockOptions;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.LockProviderFactory;
import io.lockkit.spi.ProviderEnvironment;
import io.lockkit.spi.ProviderSettings;
import io.lockkit.spi.support.ProviderFactories;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A lock holder in a JVM of its own, for the CLI tests: {@code java -cp <test class path>
 * io.lockkit.cli.HolderMain URI NAME...} takes each lock on the provider the URI's scheme names (watchdog lease 1 s, so renewals run every
 * few hundred ms), prints {@code READY}, prints {@code LOST <name>} for every loss its factory
 * reports, and exits when its standard input closes (or it is destroyed). A name written
 * {@code wait:NAME} is waited for instead, on a thread of its own (for examples with waiters).
 */
public final class HolderMain {

    /** 1 s, or {@code -Dholder.leaseSeconds=N}. */
    private static final Duration LEASE = Duration.ofSeconds(Long.getLong("holder.leaseSeconds", 1));

    private HolderMain() {}

    public static void main(String[] args) throws IOException, InterruptedException {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        LockProviderFactory factory = ProviderFactories.forUri(args[0], HolderMain.class.getClassLoader());
        LockProvider provider = factory.create(
                ProviderSettings.of(Map.of(factory.uriKey().orElseThrow(), args[0]), "the holder's arguments"),
                ProviderEnvironment.none());
        try (DistributedLockFactory locks = DistributedLockFactory.builder(provider)
                .defaultOptions(LockOptions.builder().watchdogLease(LEASE).build())
                .onLockLost(e -> out.println("LOST " + e.lockName()))
                .build()) {
            List<LockHandle> held = new ArrayList<>();
            for (int i = 1; i < args.length; i++) {
                if (args[i].startsWith("wait:")) {
                    String name = args[i].substring("wait:".length());
                    Thread waiter = new Thread(() -> {
                        try {
                            locks.tryAcquire(name, LockOptions.waitAtMost(Duration.ofHours(1)));
                        } catch (InterruptedException | RuntimeException e) {
                            out.println("WAIT ENDED " + name + ": " + e);
                        }
                    });
                    waiter.setDaemon(true);
                    waiter.start();
                    continue;
                }
                held.add(locks.acquire(
                        args[i],
                        LockOptions.builder().watchdogLease(LEASE).noWait().build()));
            }
            out.println("READY " + held.size());
            InputStream in = System.in;
            while (in.read() >= 0) {
                // runs until the test closes our input or destroys the process
            }
        }
    }
}
